// Changing a saved poultry adapter profile (poultry-adapters/commands/revise) against a real
// pymodbus peer, on both dialects: the revision replaces the profile and becomes its next version
// (GET {id}/versions keeps the earlier one, archived), the poller reads the controller with it
// from its next poll (a reading moved to another register shows the other register's value) and
// keeps its link state; each create, revise and delete is an audit record; bad input is the
// contract's error envelope and stores nothing; an operator is refused; versions outlive a delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { startModbusPeer, stopAll, waitFor, type ModbusPeer } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';
import { eq } from 'drizzle-orm';
import { colOf, tableOf } from '../../src/db/sql.js';
import { adapterVersionRecord } from '../../src/modules/poultry/adapter-versions.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const REVISE = '/api/v1/poultry-adapters/commands/revise';
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe.each(DIALECTS)('adapter profile revisions (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let admin: Client;
  let operator: Client;
  let peer: ModbusPeer;
  let id = '';
  let item: Item;

  const versions = async () => (await admin.get(`/api/v1/poultry-adapters/${id}/versions`)).body.items as Item[];
  const audit = async (action: string) => (await master.get(`/api/v1/audit/list?action=${action}&limit=50`)).body.items as Item[];
  const latestTemp = async () => ((await admin.get('/api/v1/poultry-climate-readings/list?house_id=1&sort=ts&order=desc&limit=1')).body.items as Item[])[0]?.temp as number | undefined;
  const device = async () => ((await admin.get('/api/v1/device-polling/list')).body.items as Item[]).find((d) => d.device_id === `poultry:${id}`);

  beforeAll(async () => {
    peer = await startModbusPeer('tcp', '0');
    await peer.set('ir', 0, [215, 230]);
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', alarm_escalation_interval_ms: '3600000', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'installer', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    operator = await clientAs(env, server, { subject: 'night-shift', role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: '1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(10), birds_placed: 20_000 })).status).toBe(201);
    item = {
      unit_id: '1', controller_id: 'house-1-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, modbus_unit_id: 1,
      points: [{ key: 'target_temp_c', address: 0, scale: 10 }],
      readings: [{ key: 'temp', object_type: 'input register', address: 0, scale: 10 }],
      poll_period_s: 1,
    };
  }, 120_000);
  afterAll(async () => {
    await env?.cleanup();
    await stopAll();
  });

  it('a create is version 1 and audited; the poller reads it', async () => {
    const created = await admin.post('/api/v1/poultry-adapters', { item });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    id = created.body.item.id;
    expect(await versions()).toMatchObject([{ version_id: 1, state: 'published', created_by: 'installer', controller_id: 'house-1-climate', profile: { readings: [{ address: 0 }] } }]);
    expect((await audit('adapter-profile.create')).find((a) => a.details.id === id)).toMatchObject({ actor: 'installer', resource: 'poultry-adapters', result: 'success', details: { controller_id: 'house-1-climate', version_id: 1 } });
    await waitFor(async () => (await latestTemp()) === 21.5, 20_000, 'the first polled reading');
    expect(await device()).toMatchObject({ state: 'ok', lost_since: null });
  });

  it('a revision is the next version, the earlier one archived; the poller reads the new register and keeps the link', async () => {
    const before = await device();
    const r = await admin.post(REVISE, { id, item: { ...item, readings: [{ key: 'temp', object_type: 'input register', address: 1, scale: 10 }] }, change_note: 'temperature probe moved to register 1' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.item).toMatchObject({ adapter_id: id, version_id: 2, state: 'published', created_by: 'installer', change_note: 'temperature probe moved to register 1', changed: ['readings'] });
    const list = await versions();
    expect(list.map((v) => [v.version_id, v.state])).toEqual([[2, 'published'], [1, 'archived']]);
    expect(list[1]!.profile.readings[0].address).toBe(0);
    expect(list.map((v) => v.changed)).toEqual([['readings'], []]);
    expect((await admin.get(`/api/v1/poultry-adapters/${id}`)).body.item.readings).toEqual([{ key: 'temp', object_type: 'input register', address: 1, scale: 10 }]);
    const audited = (await audit('adapter-profile.revise')).find((a) => a.details.id === id);
    expect(audited).toMatchObject({ actor: 'installer', resource: 'poultry-adapters', result: 'success', details: { version_id: 2, previous_version: 1, changed: ['readings'], change_note: 'temperature probe moved to register 1' } });
    await waitFor(async () => (await latestTemp()) === 23, 20_000, 'a reading from the revised register');
    const after = await device();
    expect(after).toMatchObject({ state: 'ok', device_id: before!.device_id });
  });

  it('bad input is the error envelope and changes nothing', async () => {
    const held = (await admin.get(`/api/v1/poultry-adapters/${id}`)).body.item;
    const cases: [Item, number, string][] = [
      [{ id, item: { ...item, port: 70_000 } }, 400, 'validation_error'],
      [{ id, item: { ...item, points: [] } }, 400, 'validation_error'],
      [{ id, item: { ...item, id: 'another' } }, 400, 'validation_error'],
      [{ id, item: { ...item, readings: [{ key: 'temp', object_type: 'input register', address: 1, scale: 10 }] } }, 409, 'lifecycle_conflict'],
      [{ id: 'no-such-profile', item }, 404, 'not_found'],
      [{ item }, 400, 'validation_error'],
    ];
    for (const [body, status, code] of cases) {
      const r = await admin.post(REVISE, body);
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.error.code).toBe(code);
      expect(typeof r.body.error.message).toBe('string');
    }
    expect((await admin.get(`/api/v1/poultry-adapters/${id}`)).body.item).toEqual(held);
    expect((await versions()).length).toBe(2);
    // an operator reads the versions but may not revise
    const refused = await operator.post(REVISE, { id, item: { ...item, poll_period_s: 5 } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('rbac_forbidden');
    expect((await operator.get(`/api/v1/poultry-adapters/${id}/versions`)).status).toBe(200);
    expect((await versions()).length).toBe(2);
    expect((await admin.get('/api/v1/poultry-adapters/no-such-profile/versions')).status).toBe(404);
  });

  it('a profile saved before versions were kept gets version 1, as it stood, at its first revision', async () => {
    const old = { ...item, unit_id: '2', controller_id: 'house-2-climate', readings: [], poll_period_s: 3600 };
    const created = await admin.post('/api/v1/poultry-adapters', { item: old });
    const oldId = created.body.item.id as string;
    const db = server.services.db;
    await db.orm.delete(tableOf(adapterVersionRecord.table, db)).where(eq(colOf(adapterVersionRecord.table, db, 'adapter_id'), oldId));
    expect((await admin.get(`/api/v1/poultry-adapters/${oldId}/versions`)).body.items).toEqual([]);
    const r = await admin.post(REVISE, { id: oldId, item: { ...old, poll_period_s: 1800 } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.item).toMatchObject({ version_id: 2, changed: ['poll_period_s'] });
    const list = (await admin.get(`/api/v1/poultry-adapters/${oldId}/versions`)).body.items as Item[];
    expect(list.map((v) => [v.version_id, v.state, v.created_by, v.profile.poll_period_s])).toEqual([[2, 'published', 'installer', 1800], [1, 'archived', 'system', 3600]]);
  });

  it('a delete is audited and the versions stay', async () => {
    expect((await admin.delete(`/api/v1/poultry-adapters/${id}`)).status).toBe(200);
    expect((await audit('adapter-profile.delete')).find((a) => a.details.id === id)).toMatchObject({ actor: 'installer', details: { controller_id: 'house-1-climate' } });
    expect((await versions()).map((v) => v.version_id)).toEqual([2, 1]);
    expect((await admin.post(REVISE, { id, item })).status).toBe(404);
  });
});
