// A resource's list parameters (filters, sorts, search, the list route's query) are made at the
// first request that needs them, not when the resource is defined at start; a declaration's
// filter that cannot work is still refused at definition.
import { describe, expect, it } from 'vitest';
import { defineRecord } from '../../src/kernel/record.js';
import { defineResource, type FieldSpec } from '../../src/kernel/resource.js';
import type { HandlerContext } from '../../src/kernel/route.js';

const rec = defineRecord('lazy_points', {
  id: { type: 'string', label: 'ID' },
  seq: { type: 'integer', label: 'Seq', sortable: true },
  note: { type: 'string', label: 'Note', searchable: true, filter: true },
});
type Row = typeof rec.row;
const base = { name: 'lazy-points', module: 'test', title: 'Points', table: rec.table, access: { resource: 'lazy-points' }, defaultSort: { field: 'seq', order: 'asc' as const } };

describe('defineResource', () => {
  it('derives the list parameters when first asked, once', async () => {
    let reads = 0;
    const seq: FieldSpec = { type: 'integer', label: 'Seq', get sortable() { reads++; return true; } };
    const res = defineResource<Row>({ ...base, fields: { ...rec.fields, seq } });
    expect(reads).toBe(0);
    const list = res.routes.find((r) => r.path.endsWith('/list'))!;
    expect(list.query).toMatchObject({ sort: { enum: ['seq'] }, q: { type: 'string' }, note: { type: 'string' }, limit: { type: 'integer' } });
    expect(reads).toBe(1);
    const scheme = (await res.routes.find((r) => r.path.endsWith('/scheme'))!.handler({} as HandlerContext<unknown>)) as { sortable: string[]; search_fields: string[] };
    expect(scheme).toMatchObject({ sortable: ['seq'], search_fields: ['note'] });
    expect(reads).toBe(1);
  });

  it('still refuses at definition a field filter that cannot work, unless a declared filter replaces it', () => {
    const fields = { ...rec.fields, seq: { type: 'integer', label: 'Seq', filter: { format: 'date-time' } } } satisfies Record<string, FieldSpec>;
    expect(() => defineResource<Row>({ ...base, fields })).toThrow(/seq has format date-time but type integer/);
    const flag: FieldSpec = { type: 'boolean', label: 'Flag', column: false, filter: { op: 'gt' } };
    expect(() => defineResource<Row>({ ...base, fields: { ...rec.fields, flag } })).toThrow(/flag compares a boolean with gt/);
    expect(() => defineResource<Row>({ ...base, fields, filters: { seq: { type: 'integer', op: 'gt' } } })).not.toThrow();
  });
});
