import { describe, expect, it } from 'vitest';
import { pagingSpec, parseQuery } from '../../src/kernel/query.js';
import type { ApiError } from '../../src/kernel/errors.js';

const spec = { ...pagingSpec(['id', 'created_at'], true), severity: { type: 'string' as const, enum: ['low', 'high'] }, acked: { type: 'boolean' as const } };
const parse = (qs: string) => parseQuery(spec, new URLSearchParams(qs));
const details = (qs: string) => {
  try { parse(qs); } catch (err) { return (err as ApiError).details; }
  throw new Error('expected a validation error');
};

describe('query parsing', () => {
  it('applies defaults and types', () => {
    expect(parse('')).toMatchObject({ limit: 50, offset: 0 });
    expect(parse('limit=10&offset=20&sort=id&order=desc&q=x&severity=high&acked=true')).toEqual({ limit: 10, offset: 20, sort: 'id', order: 'desc', q: 'x', severity: 'high', acked: true });
  });

  it('refuses an unknown enum value with reason unsupported_value', () => {
    expect(details('severity=critical')).toEqual([{ field: 'severity', reason: 'unsupported_value' }]);
    expect(details('acked=yes')).toEqual([{ field: 'acked', reason: 'unsupported_value' }]);
  });

  it('reports every problem at once', () => {
    expect(details('limit=1000&sort=title&x=1')).toEqual([
      { field: 'x', reason: 'unknown_parameter' },
      { field: 'limit', reason: 'above_maximum' },
      { field: 'sort', reason: 'unsupported_value' },
    ]);
  });
});
