// The kit's comparison filters: a FilterSpec with `op` (gt, gte, lt, lte) and `column` compares
// instead of matching, on SQLite and PostgreSQL (PGlite here; the HTTP tests run a PostgreSQL
// server); date-time values are validated and normalised to UTC by the query parser, so a
// malformed one is a 400 validation_error; the scheme names each filter's operator.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineRecord } from '../../src/kernel/record.js';
import { defineResource } from '../../src/kernel/resource.js';
import { normaliseDateTime, parseQuery } from '../../src/kernel/query.js';
import { ApiError } from '../../src/kernel/errors.js';
import type { AnyRoute, HandlerContext } from '../../src/kernel/route.js';
import type { Caller, Services } from '../../src/kernel/context.js';
import { openDatabase, type Database } from '../../src/db/client.js';

const rec = defineRecord('kit_range_points', {
  id: { type: 'string', label: 'ID' },
  tenant_id: { type: 'string', label: 'Tenant' },
  house_id: { type: 'string', label: 'House', filter: true },
  seq: { type: 'integer', label: 'Seq', sortable: true },
  ts: { type: 'datetime', label: 'Time', sortable: true },
  note: { type: 'string', label: 'Note', searchable: true },
});
type Row = typeof rec.row;

const res = defineResource<Row>({
  name: 'kit-range-points',
  module: 'test',
  title: 'Points',
  table: rec.table,
  access: { resource: 'kit-range-points' },
  tenantColumn: 'tenant_id',
  fields: rec.fields,
  filters: {
    from: { type: 'string', format: 'date-time', column: 'ts', op: 'gte', description: 'at or after' },
    to: { type: 'string', format: 'date-time', column: 'ts', op: 'lt', description: 'before' },
    after_seq: { type: 'integer', min: 0, column: 'seq', op: 'gt', defaultOrder: 'asc' },
    max_seq: { type: 'integer', column: 'seq', op: 'lte' },
  },
  defaultSort: { field: 'ts', order: 'desc' },
  toItem: (row) => row,
});
const route = (suffix: string) => res.routes.find((r) => r.method === 'get' && r.path.endsWith(suffix)) as AnyRoute;
const list = route('/list');

const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
// tenant A: 10 points, 30 minutes apart, seq 1..10; tenant B: the same times
const ROWS: Row[] = [
  ...Array.from({ length: 10 }, (_, i) => ({ id: `a${i + 1}`, tenant_id: 'A', house_id: i % 2 ? 'H2' : 'H1', seq: i + 1, ts: at(i * 30), note: i === 4 ? 'door open' : 'ok' })),
  ...Array.from({ length: 10 }, (_, i) => ({ id: `b${i + 1}`, tenant_id: 'B', house_id: 'H1', seq: i + 1, ts: at(i * 30), note: 'ok' })),
];

const tenantA: Caller = { subject: 'a', role: 'operator', scope_type: 'tenant', tenant_id: 'A', session_id: 's' };

function validationDetails(fn: () => unknown) {
  try { fn(); } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('validation_error');
    return (err as ApiError).details;
  }
  throw new Error('expected a validation error');
}

describe('date-time query parameters', () => {
  it('normalises RFC 3339 timestamps to UTC and refuses anything else', () => {
    expect(normaliseDateTime('2026-11-20T02:30:00+02:00')).toBe('2026-11-20T00:30:00.000Z');
    expect(normaliseDateTime('2026-11-20t00:30:00.5z')).toBe('2026-11-20T00:30:00.500Z');
    for (const bad of ['2026-11-20', '2026-11-20T00:30Z', '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-20T24:00:00Z', 'yesterday', '2026-11-20T00:00:00 02:00', '2026-11-20T00:00:00+25:00']) {
      expect(normaliseDateTime(bad), bad).toBeUndefined();
    }
  });

  it('gives 400 validation_error with invalid_format for a malformed date-time and invalid_type for a malformed integer', () => {
    const parse = (qs: string) => parseQuery(list.query!, new URLSearchParams(qs));
    expect(parse('from=2026-11-20T02:30:00%2B02:00')).toMatchObject({ from: '2026-11-20T00:30:00.000Z' });
    expect(validationDetails(() => parse('from=2026-11-20&to=nope'))).toEqual([{ field: 'from', reason: 'invalid_format' }, { field: 'to', reason: 'invalid_format' }]);
    expect(validationDetails(() => parse('after_seq=1.5'))).toEqual([{ field: 'after_seq', reason: 'invalid_type' }]);
    expect(validationDetails(() => parse('after_seq=-1'))).toEqual([{ field: 'after_seq', reason: 'below_minimum' }]);
  });

  it('refuses a comparison on a boolean and a date-time format on a non-string at definition', () => {
    const base = { name: 'x', module: 'test', title: 'X', table: rec.table, access: { resource: 'x' }, fields: rec.fields, defaultSort: { field: 'ts', order: 'asc' as const }, toItem: (r: Row) => r };
    expect(() => defineResource<Row>({ ...base, filters: { f: { type: 'boolean', op: 'gt' } } })).toThrow(/boolean/);
    expect(() => defineResource<Row>({ ...base, filters: { f: { type: 'integer', format: 'date-time', op: 'gt' } } })).toThrow(/format/);
  });

  it('lists the range filters in the scheme with their operator and format', async () => {
    const scheme = (await route('/scheme').handler({} as HandlerContext<unknown>)) as { filters: { name: string; op: string; format?: string }[] };
    expect(scheme.filters).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'house_id', op: 'eq' }),
      expect.objectContaining({ name: 'from', op: 'gte', format: 'date-time', type: 'string' }),
      expect.objectContaining({ name: 'to', op: 'lt', format: 'date-time' }),
      expect.objectContaining({ name: 'after_seq', op: 'gt', type: 'integer' }),
    ]));
  });
});

describe.each(['sqlite', 'pglite'] as const)('range filters in lists (%s)', (engine) => {
  let dir: string;
  let db: Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kit-range-'));
    db = await openDatabase({ dataDir: dir, databaseUrl: engine === 'pglite' ? `pglite:${join(dir, 'pg')}` : undefined });
    await db.exec(`create table kit_range_points (id text primary key, tenant_id text not null, house_id text not null, seq ${engine === 'pglite' ? 'bigint' : 'integer'} not null, ts text not null, note text not null)`);
    for (const r of ROWS) await res.kit.store(db).insert(r);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (qs: string, caller: Caller = tenantA) => {
    const ctx = { services: { db } as unknown as Services, caller, query: parseQuery(list.query!, new URLSearchParams(qs)), params: {}, requestId: 'r' } as HandlerContext<unknown>;
    return (await list.handler(ctx)) as { items: Row[]; total: number; offset: number; limit: number };
  };
  const ids = (page: { items: Row[] }) => page.items.map((r) => r.id);

  it('compares a date-time column: from included, to excluded, within the caller tenant', async () => {
    const page = await call(`from=${at(60)}&to=${at(150)}`);
    expect(ids(page)).toEqual(['a5', 'a4', 'a3']); // default sort ts desc
    expect(page.total).toBe(3);
    // an offset is converted to UTC before the comparison: 03:00+02:00 is 01:00Z
    expect(ids(await call('from=2026-11-20T03:00:00%2B02:00&to=2026-11-20T04:30:00%2B02:00'))).toEqual(['a5', 'a4', 'a3']);
    expect((await call(`from=${at(300)}`)).total).toBe(0);
    expect((await call(`to=${at(0)}`)).total).toBe(0);
    expect((await call(`from=${at(0)}`)).total).toBe(10);
  });

  it('combines ranges with equality filters, search, sort and paging', async () => {
    expect(ids(await call(`house_id=H1&from=${at(60)}&sort=seq`))).toEqual(['a3', 'a5', 'a7', 'a9']);
    expect(ids(await call(`from=${at(0)}&q=DOOR`))).toEqual(['a5']);
    const page = await call(`after_seq=2&max_seq=8&limit=2&offset=2`);
    // after_seq implies oldest first when no sort is asked for
    expect(ids(page)).toEqual(['a5', 'a6']);
    expect(page).toMatchObject({ total: 6, offset: 2, limit: 2 });
    expect(ids(await call('after_seq=7&order=desc'))).toEqual(['a10', 'a9', 'a8']);
    expect(ids(await call('after_seq=7&sort=ts&order=desc'))).toEqual(['a10', 'a9', 'a8']);
  });

  it('never widens the tenant scope; a caller without a tenant scope sees every tenant', async () => {
    const b = await call(`from=${at(0)}`, { ...tenantA, tenant_id: 'B' });
    expect(b.total).toBe(10);
    expect(b.items.every((r) => r.tenant_id === 'B')).toBe(true);
    const master = await call(`from=${at(240)}`, { subject: 'm', role: 'admin', scope_type: 'master', session_id: 'm' });
    expect(ids(master).sort()).toEqual(['a10', 'a9', 'b10', 'b9'].sort());
  });
});
