// Audit: the log command, newest-first list with filters, tenant isolation, and the SQL-backed
// service replacing the kernel's log-only default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { FIRST_PURGE_AFTER_MS } from '../../src/kernel/retention.js';

describe.each(DIALECTS)('audit (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let adminA: Client;
  let opA: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off' });
    master = await clientAs(env, server);
    adminA = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  it('logs a record: actor defaults to the caller, correlation_id to the request id', async () => {
    const res = await opA.post('/api/v1/audit/commands/log', { action: 'door.open', resource: 'house-3', result: 'success', details: { door: 'north' } }, { 'x-request-id': 'req-audit-1' });
    expect(res.status).toBe(201);
    expect(res.body.item).toMatchObject({ actor: 'op-a', recorded_by: 'op-a', tenant_id: 'tA', correlation_id: 'req-audit-1', details: { door: 'north' } });
    const given = await opA.post('/api/v1/audit/commands/log', { actor: 'plc-7', action: 'valve.close', resource: 'line-1', result: 'error', correlation_id: 'corr-9' });
    expect(given.body.item).toMatchObject({ actor: 'plc-7', recorded_by: 'op-a', correlation_id: 'corr-9', result: 'error' });
    expect((await opA.post('/api/v1/audit/commands/log', { action: 'x', resource: 'y', result: 'maybe' })).status).toBe(400);
    expect((await opA.post('/api/v1/audit/commands/log', { action: 'x', resource: 'y', result: 'success', tenant_id: 'tB' })).status).toBe(403);
  });

  it('lists newest first with actor, action, resource, result and q filters; operators may not read', async () => {
    for (const i of [1, 2, 3]) await adminA.post('/api/v1/audit/commands/log', { action: `step.${i}`, resource: 'seq', result: 'success' });
    const list = await adminA.get('/api/v1/audit/list?resource=seq');
    expect(list.body.items.map((r: { action: string }) => r.action)).toEqual(['step.3', 'step.2', 'step.1']);
    expect((await adminA.get('/api/v1/audit/list?actor=plc-7')).body.items[0].action).toBe('valve.close');
    expect((await adminA.get('/api/v1/audit/list?result=error')).body.items.every((r: { result: string }) => r.result === 'error')).toBe(true);
    expect((await adminA.get('/api/v1/audit/list?action=step.2')).body.total).toBe(1);
    expect((await adminA.get('/api/v1/audit/list?q=VALVE')).body.total).toBe(1);
    expect((await opA.get('/api/v1/audit/list')).status).toBe(403);
  });

  it('keeps tenants apart; the master sees all', async () => {
    await master.post('/api/v1/audit/commands/log', { action: 'fleet.sync', resource: 'tenant-master', result: 'success', tenant_id: 'tB' });
    expect((await adminA.get('/api/v1/audit/list?action=fleet.sync')).body.total).toBe(0);
    expect((await master.get('/api/v1/audit/list?action=fleet.sync')).body.items[0].tenant_id).toBe('tB');
  });

  it('services.audit is the SQL-backed service other modules call', async () => {
    await server.services.audit.record({ actor: 'field', action: 'modbus.write', resource: 'rtu-1', result: 'denied', correlation_id: 'corr-field-1', tenant_id: 'tA', details: { register: 40001 } });
    const rows = (await adminA.get('/api/v1/audit/list?correlation_id=corr-field-1')).body.items;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor: 'field', action: 'modbus.write', result: 'denied', details: { register: 40001 } });
  });
});

describe('audit retention', () => {
  it('deletes records older than audit_retention_days once the service has started (FIRST_PURGE_AFTER_MS)', async () => {
    const env = await createTestEnv('sqlite');
    try {
      const first = await env.start({ mqtt_broker: 'off' });
      const admin = await clientAs(env, first);
      await admin.post('/api/v1/audit/commands/log', { action: 'old.thing', resource: 'r', result: 'success' });
      await admin.post('/api/v1/audit/commands/log', { action: 'new.thing', resource: 'r', result: 'success' });
      await first.services.db.exec(`update audit_records set created_at = '2001-01-01T00:00:00.000Z' where action = 'old.thing'`);
      await first.close();
      const second = await env.start({ mqtt_broker: 'off', audit_retention_days: '30' });
      const again = await clientAs(env, second, {}, admin.contract);
      const list = async () => (await again.get('/api/v1/audit/list?limit=500')).body.items.map((i: { action: string }) => i.action as string);
      // The first purge runs FIRST_PURGE_AFTER_MS after the start.
      await new Promise((r) => setTimeout(r, FIRST_PURGE_AFTER_MS + 500));
      const actions = await list();
      expect(actions).toContain('new.thing');
      expect(actions).not.toContain('old.thing');
    } finally {
      await env.cleanup();
    }
  });
});
