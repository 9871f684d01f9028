// industry-alarms: publish stores an active event through the one industry alarm service and
// bridges every severity to status with the contract's mapping and the same correlation_id;
// lists filter by tenant, industry and site and never show another tenant's or site's rows;
// bad input changes nothing; an industry this installation does not serve is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const MAPPING = { critical: 'error', high: 'error', medium: 'warn', low: 'ok', info: 'ok' } as const;

describe.each(DIALECTS)('industry alarms (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let adminA: Client;
  let opA: Client;
  let siteA2: Client;
  let adminB: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    master = await clientAs(env, server);
    adminA = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    siteA2 = await clientAs(env, server, { subject: 'admin-a2', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-2' }, master.contract);
    adminB = await clientAs(env, server, { subject: 'admin-b', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  it('bridges each severity to status with the contract mapping and the same correlation id', async () => {
    for (const [severity, status] of Object.entries(MAPPING)) {
      const corr = `corr-${severity}-${dialect}`;
      const r = await adminA.post('/api/v1/industry-alarms/commands/publish', {
        industry_code: 'swine', site_id: 'farm-1', unit_id: 'room-3', severity, title: `Room 3 ${severity}`, correlation_id: corr, priority: 'P1', sla_target_sec: 900,
      });
      expect(r.status).toBe(201);
      expect(r.body.item).toMatchObject({ tenant_id: 'tA', industry_code: 'swine', site_id: 'farm-1', unit_id: 'room-3', severity, status: 'active', correlation_id: corr, bridged_to_status: true, escalation_level: 0, sla_breached: false });
      expect(Date.parse(r.body.item.sla_deadline_at) - Date.parse(r.body.item.raised_at)).toBe(900_000);
      // alarm_changed is published on its own turn after the command's answer.
      await expect.poll(async () => (await adminA.get(`/api/v1/status/list?correlation_id=${corr}`)).body.total).toBe(2);
      const events = (await adminA.get(`/api/v1/status/list?correlation_id=${corr}`)).body.items as { event: string; details: { kind?: string } }[];
      // The contract's bridge, and the alarm view's one event per change (every severity).
      expect(events.filter((e) => e.event === 'alarm_changed').map((e) => e.details.kind), severity).toEqual(['raised']);
      const bridged = events.filter((e) => e.event !== 'alarm_changed');
      expect(bridged, severity).toHaveLength(1);
      expect(bridged[0]).toMatchObject({ status, event: 'alarm_raised', source: 'swine-alarms', tenant_id: 'tA', site_id: 'farm-1', correlation_id: corr });
      expect(bridged[0]!.details).toMatchObject({ alarm_id: r.body.item.id, severity, industry_code: 'swine' });
    }
    const audit = (await master.get(`/api/v1/audit/list?correlation_id=corr-critical-${dialect}`)).body.items;
    expect(audit.map((a: { action: string }) => a.action)).toContain('alarm.raise');
  });

  it('generates the correlation id when absent and keeps industries, sites and tenants apart in lists', async () => {
    const poultry = await adminA.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', site_id: 'farm-2', unit_id: 'house-1', severity: 'high', title: 'House 1 hot' });
    expect(poultry.body.item.correlation_id).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(async () => (await adminA.get(`/api/v1/status/list?correlation_id=${poultry.body.item.correlation_id}`)).body.items.map((e: { event: string }) => e.event).sort()).toEqual(['alarm_changed', 'alarm_raised']);
    const b = await adminB.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'swine', site_id: 'farm-1', severity: 'critical', title: 'B only' });
    expect(b.body.item.tenant_id).toBe('tB');

    expect((await adminA.get('/api/v1/industry-alarms/list?industry_code=swine')).body.total).toBe(5);
    expect((await adminA.get('/api/v1/industry-alarms/list?industry_code=poultry')).body.items.map((a: { unit_id: string }) => a.unit_id)).toEqual(['house-1']);
    expect((await adminA.get('/api/v1/industry-alarms/list?site_id=farm-1&severity=critical')).body.total).toBe(1);
    expect((await adminA.get('/api/v1/industry-alarms/list?unit_id=room-3&sort=severity&order=asc')).body.total).toBe(5);
    expect((await adminA.get('/api/v1/industry-alarms/list?tenant_id=tA')).body.total).toBe(6);
    expect((await adminA.get('/api/v1/industry-alarms/list?q=B only')).body.total).toBe(0);
    expect((await adminB.get('/api/v1/industry-alarms/list')).body.items.map((a: { title: string }) => a.title)).toEqual(['B only']);
    expect((await adminB.get(`/api/v1/industry-alarms/${poultry.body.item.id}`)).status).toBe(404);
    expect((await adminB.get('/api/v1/industry-alarms/list?tenant_id=tA')).body.error.code).toBe('tenant_boundary_denied');
    expect((await adminB.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'swine', severity: 'low', title: 'x', tenant_id: 'tA' })).body.error.code).toBe('tenant_boundary_denied');
    // B's status stream does not carry A's bridged events.
    expect((await adminB.get(`/api/v1/status/list?correlation_id=${poultry.body.item.correlation_id}`)).body.total).toBe(0);

    // A session bound to farm-2 sees only farm-2 and publishes only for farm-2.
    expect((await siteA2.get('/api/v1/industry-alarms/list')).body.items.map((a: { unit_id: string }) => a.unit_id)).toEqual(['house-1']);
    expect((await siteA2.get('/api/v1/industry-alarms/list?site_id=farm-1')).body.total).toBe(0);
    expect((await siteA2.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'swine', site_id: 'farm-1', severity: 'low', title: 'x' })).body.error.code).toBe('tenant_boundary_denied');
    const own = await siteA2.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'swine', severity: 'info', title: 'Door open' });
    expect(own.body.item.site_id).toBe('farm-2');
  });

  it('refuses bad input, operators, masters and industries not served, changing nothing', async () => {
    const before = (await adminA.get('/api/v1/industry-alarms/list')).body.total;
    const bad = [
      { industry_code: 'swine', severity: 'urgent', title: 'x' },
      { industry_code: 'cattle', severity: 'low', title: 'x' },
      { industry_code: 'swine', severity: 'low' },
      { industry_code: 'swine', severity: 'low', title: '   ' },
      { industry_code: 'swine', severity: 'low', title: 'x', sla_target_sec: -5 },
      { industry_code: 'swine', severity: 'low', title: 'x', priority: 'P3' },
      { industry_code: 'swine', severity: 'low', title: 'x', colour: 'red' },
    ];
    for (const body of bad) {
      const r = await adminA.post('/api/v1/industry-alarms/commands/publish', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    }
    expect((await adminA.get('/api/v1/industry-alarms/list?severity=urgent')).status).toBe(400);
    expect((await opA.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'swine', severity: 'low', title: 'x' })).body.error.code).toBe('rbac_forbidden');
    expect((await master.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'swine', severity: 'low', title: 'x' })).body.error.code).toBe('scope_boundary_denied');
    expect((await opA.get('/api/v1/industry-alarms/list')).status).toBe(200);

    // In cloud-multi an industry whose module is not installed is not served.
    expect((await master.post('/api/v1/modules/commands/uninstall', { id: 'melioration' })).status).toBe(200);
    const refused = await adminA.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'melioration', severity: 'low', title: 'x' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('industry_policy_conflict');
    expect((await adminA.get('/api/v1/industry-alarms/list')).body.total).toBe(before);
    expect((await master.post('/api/v1/modules/commands/install', { id: 'melioration' })).status).toBe(200);
  });
});

// The industry policy does not depend on the dialect: one SQLite server is enough.
describe('industry alarms and profiles in edge-single', () => {
  it('takes only the box industry', async () => {
    const edgeEnv = await createTestEnv('sqlite');
    try {
      const edge = await edgeEnv.start({ mode: 'edge-single', industry: 'poultry', mqtt_broker: 'off' });
      const admin = await clientAs(edgeEnv, edge, { subject: 'admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' });
      const swine = await admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'swine', severity: 'high', title: 'x' });
      expect(swine.status).toBe(409);
      expect(swine.body.error.code).toBe('industry_policy_conflict');
      expect((await admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', severity: 'high', title: 'House 2 hot' })).status).toBe(201);
      expect((await admin.get('/api/v1/industry-alarms/list')).body.total).toBe(1);
      // The same policy holds for profiles: a swine document cannot be imported on a poultry box.
      const yaml = (industry: string) => `schema_version: v1\nindustry_code: ${industry}\nequipment_profile: room\nname: r1\ncontent: { a: 1 }\n`;
      const profile = await admin.post('/api/v1/industry-profiles/commands/import', { yaml: yaml('swine') });
      expect(profile.status).toBe(409);
      expect(profile.body.error).toMatchObject({ code: 'profile_incompatible', details: [{ field: 'industry_code', reason: 'this edge-single box runs poultry' }] });
      expect((await admin.post('/api/v1/industry-profiles/commands/import', { yaml: yaml('poultry') })).status).toBe(201);
      expect((await admin.get('/api/v1/industry-profiles/list')).body.total).toBe(1);
      expect((await admin.get('/api/v1/swine-climate/list')).body.error.code).toBe('module_not_installed');
    } finally {
      await edgeEnv.cleanup();
    }
  });
});
