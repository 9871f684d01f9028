// Allowed reads merged while they wait (src/auth/security-log.ts), on both engines: a read that
// repeats a waiting one (the same caller, address, method and path) is counted by it (count,
// last_at) instead of being an entry of its own; anything else that differs, a refusal, a change
// and an authentication event are entries of their own; a flush ends the merging (the next read
// is a new entry). record() is synchronous, so no timer fires between the records of one step;
// the clock (Date only) is stepped by hand so that the times differ.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrateAll } from '../../src/modules/migrate-all.js';
import { configureGroupCommit } from '../../src/db/group-commit.js';
import { SecurityLog, type SecurityEvent, type SecurityLogRow } from '../../src/auth/security-log.js';
import { createLogger } from '../../src/kernel/logger.js';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { buildOpenApi } from '../../src/kernel/openapi.js';
import { securityLogResource } from '../../src/modules/auth/security-log-routes.js';

const read: SecurityEvent = { category: 'access', result: 'allow', event: 'access', method: 'GET', path: '/api/v1/poultry-climate-readings/list', tenant_id: 't1', subject: 'tablet', role: 'operator', client_address: '10.0.0.7' };

describe.each(DIALECTS)('security log: allowed reads merged while they wait (%s)', (dialect) => {
  let env: TestEnv;
  let db: Database;
  let log: SecurityLog;
  const entries = async () => {
    await log.flush();
    const { rows } = await log.rows.list({ where: {}, sort: { column: 'at', order: 'asc' }, limit: 1000, offset: 0 });
    return rows as SecurityLogRow[];
  };
  const at = (iso: string) => vi.setSystemTime(new Date(iso));

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    db = await openDatabase({ dataDir: env.dataDir, ...(env.databaseUrl ? { databaseUrl: env.databaseUrl } : {}) });
    await migrateAll(db);
    configureGroupCommit(db, { holdMs: 60_000 });
  });
  beforeEach(async () => {
    await db.exec('delete from auth_security_log');
    vi.useFakeTimers({ toFake: ['Date'] });
    log = new SecurityLog(db, createLogger('error'));
  });
  afterEach(async () => {
    await log.flush(); // its armed timer cleared: nothing runs after the test
    vi.useRealTimers();
  });
  afterAll(async () => {
    await db.close();
    await env.cleanup();
  });

  it('N identical allowed reads within the minute are one entry: the first one\'s id, time and request, count N, the last one\'s time', async () => {
    for (let i = 0; i < 7; i++) {
      at(`2026-12-01T10:00:${String(10 + i * 5).padStart(2, '0')}.000Z`);
      log.record({ ...read, request_id: `req-${i}`, route_context: { n: i } as never });
    }
    log.record({ ...read, method: 'HEAD', request_id: 'req-head' }); // HEAD is a read too, merged with HEADs
    log.record({ ...read, method: 'HEAD', request_id: 'req-head-2' });
    const rows = await entries();
    expect(rows.map((r) => [r.method, r.count, r.request_id, r.at, r.last_at])).toEqual([
      ['GET', 7, 'req-0', '2026-12-01T10:00:10.000Z', '2026-12-01T10:00:40.000Z'],
      ['HEAD', 2, 'req-head', '2026-12-01T10:00:40.000Z', '2026-12-01T10:00:40.000Z'],
    ]);
    expect(rows[0]!.route_context).toEqual({ n: 0 });
  });

  it('a different path, subject, tenant, role or address is an entry of its own', async () => {
    at('2026-12-01T10:00:10.000Z');
    for (const e of [read, { ...read, path: '/api/v1/tables/list' }, { ...read, subject: 'other' }, { ...read, tenant_id: 't2' }, { ...read, role: 'admin' }, { ...read, client_address: '10.0.0.8' }]) {
      log.record(e);
      log.record(e);
    }
    const rows = await entries();
    expect(rows).toHaveLength(6);
    expect(rows.map((r) => r.count)).toEqual([2, 2, 2, 2, 2, 2]);
  });

  it('never merges a refusal, a change or an authentication event: each keeps its entry and request id', async () => {
    at('2026-12-01T10:00:10.000Z');
    const denied: SecurityEvent = { ...read, result: 'deny', event: 'rbac_check', reason: 'rbac_forbidden' };
    const changes = ['POST', 'PUT', 'PATCH', 'DELETE'].map((method): SecurityEvent => ({ ...read, method }));
    const login: SecurityEvent = { ...read, category: 'auth', event: 'login' };
    const session: SecurityEvent = { ...read, category: 'session', event: 'mqtt_connect' };
    let n = 0;
    for (const e of [denied, ...changes, login, session]) for (let i = 0; i < 3; i++) log.record({ ...e, request_id: `r${n++}` });
    log.record({ ...read, request_id: 'the-read' });
    const rows = await entries();
    expect(rows).toHaveLength(n + 1);
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(n + 1);
    expect(rows.filter((r) => r.count !== 1)).toEqual([]);
    expect(rows.filter((r) => r.last_at !== null)).toEqual([]); // one request each: no last time stored
  });

  it('a flush between two reads gives two entries (a written entry is never changed)', async () => {
    at('2026-12-01T10:00:10.000Z');
    log.record({ ...read, request_id: 'before' });
    log.record({ ...read, request_id: 'before-2' });
    await log.flush();
    at('2026-12-01T10:00:12.000Z');
    log.record({ ...read, request_id: 'after' });
    const rows = await entries();
    expect(rows.map((r) => [r.request_id, r.count])).toEqual([['before', 2], ['after', 1]]);
  });

  it('a refusal between two reads is its own entry and leaves them one; reads after the write start a new entry', async () => {
    at('2026-12-01T10:00:10.000Z');
    log.record({ ...read, request_id: 'a' });
    log.record({ ...read, result: 'deny', event: 'rbac_check', reason: 'rbac_forbidden', request_id: 'refused' });
    log.record({ ...read, request_id: 'b' });
    await log.flush();
    log.record({ ...read, request_id: 'c' });
    const rows = await entries();
    expect(rows.map((r) => [r.request_id, r.count])).toEqual([['a', 2], ['refused', 1], ['c', 1]]);
  });
});

describe('security log: the entry\'s shape in the OpenAPI document', () => {
  it('shows count and last_at, saying what a merged entry is', () => {
    type Schema = { properties: Record<string, { type?: string; format?: string; description?: string }>; required: string[] };
    const doc = buildOpenApi(securityLogResource.routes, { version: 'test' }) as { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: { properties: { items: { items: Schema } } } }> }> }>> };
    const item = doc.paths['/api/v1/auth/security-log/list']!.get!.responses['200']!.content['application/json']!.schema.properties.items.items;
    expect(item.properties.count).toMatchObject({ type: 'integer' });
    expect(item.properties.count!.description).toMatch(/merged/);
    expect(item.properties.count!.description).toMatch(/never merged/);
    expect(item.properties.last_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(item.required).toEqual(expect.arrayContaining(['count', 'last_at']));
  });
});
