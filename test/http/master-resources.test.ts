// Master resources over HTTP on both dialects: tenant-master events (whitelists, correlation id
// end to end), subscriptions (move matrix), SLA profiles (set, assign), version policies (set,
// check with semver), analytics from real rows, the pilot summary; and scope_boundary_denied for
// a tenant session on every master route the server documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const MASTER_GROUP = /^\/api\/v1\/(tenant-master[a-z-]*|subscriptions|sla-profiles|version-policies|analytics)(\/|$)/;

describe.each(DIALECTS)('master resources (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let operator: Client;
  let tenant: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off', mode: 'cloud-multi' });
    admin = await clientAs(env, server);
    operator = await clientAs(env, server, { subject: 'fleet-op', role: 'operator', scope_type: 'master' }, admin.contract);
    tenant = await clientAs(env, server, { subject: 'farm-admin', role: 'admin', scope_type: 'tenant', tenant_id: 't1' }, admin.contract);
  });
  afterAll(async () => env.cleanup());

  it('refuses a tenant session on every master route with scope_boundary_denied', async () => {
    const ops = Object.entries(admin.contract.doc.paths).flatMap(([path, o]) => Object.keys(o).map((method) => ({ method, path })))
      .filter((o) => MASTER_GROUP.test(o.path));
    // every master resource: scheme, list, {id} and each command
    expect(ops.length).toBeGreaterThanOrEqual(24);
    for (const op of ops) {
      const path = op.path.replace(/\{\w+\}/g, 'x');
      const res = op.method === 'get' ? await tenant.get(path) : await tenant.request(op.method.toUpperCase(), path, { body: {} });
      expect(res.status, `${op.method} ${op.path}`).toBe(403);
      expect(res.body.error.code, `${op.method} ${op.path}`).toBe('scope_boundary_denied');
    }
  });

  it('publishes whitelisted tenant events; other types and statuses are 409 and store nothing', async () => {
    const ok = await admin.post('/api/v1/tenant-master/commands/publish', { tenant_id: 't1', event_type: 'tenant.provisioned', status: 'completed', correlation_id: 'corr-tm-1', payload: { plan: 'pilot' } });
    expect(ok.status).toBe(201);
    expect(ok.body.item).toMatchObject({ tenant_id: 't1', event_type: 'tenant.provisioned', status: 'completed', correlation_id: 'corr-tm-1', payload: { plan: 'pilot' } });
    const badType = await admin.post('/api/v1/tenant-master/commands/publish', { tenant_id: 't1', event_type: 'tenant.exploded', status: 'completed' });
    expect(badType.status).toBe(409);
    expect(badType.body.error).toMatchObject({ code: 'event_not_whitelisted', details: [{ field: 'event_type', reason: 'not_whitelisted' }] });
    const badStatus = await admin.post('/api/v1/tenant-master/commands/publish', { tenant_id: 't1', event_type: 'sync.failed', status: 'meh' });
    expect(badStatus.status).toBe(409);
    expect(badStatus.body.error.code).toBe('status_not_whitelisted');
    expect((await admin.post('/api/v1/tenant-master/commands/publish', { event_type: 'sync.failed', status: 'failed' })).status).toBe(400);
    const failed = await admin.post('/api/v1/tenant-master/commands/publish', { tenant_id: 't2', event_type: 'sync.failed', status: 'failed' });
    expect(failed.body.item.correlation_id).toEqual(expect.any(String));
    const list = await admin.get('/api/v1/tenant-master/list?tenant_id=t1');
    expect(list.body.total).toBe(1);
    expect((await admin.get('/api/v1/tenant-master/list?event_type=sync.failed&status=failed')).body.total).toBe(1);
    expect((await operator.get(`/api/v1/tenant-master/${ok.body.item.id}`)).body.item.correlation_id).toBe('corr-tm-1');
    // The correlation id reaches the audit trail and the status stream.
    const audit = (await admin.get('/api/v1/audit/list?correlation_id=corr-tm-1')).body.items;
    expect(audit.map((a: { action: string }) => a.action)).toContain('tenant_master.publish');
    const status = (await admin.get('/api/v1/status/list?correlation_id=corr-tm-1')).body.items;
    expect(status).toEqual([expect.objectContaining({ source: 'tenant-master', event: 'tenant.provisioned', status: 'ok', tenant_id: 't1' })]);
    const failedStatus = (await admin.get(`/api/v1/status/list?correlation_id=${failed.body.item.correlation_id}`)).body.items;
    expect(failedStatus[0].status).toBe('error');
    // Operators read but do not publish.
    expect((await operator.post('/api/v1/tenant-master/commands/publish', { tenant_id: 't1', event_type: 'tenant.updated', status: 'accepted' })).body.error.code).toBe('rbac_forbidden');
    const scheme = (await admin.get('/api/v1/tenant-master/scheme')).body.item;
    expect(scheme.fields.find((f: { name: string }) => f.name === 'event_type').enum).toContain('tenant.provisioned');
  });

  it('moves subscriptions by the matrix and stamps updated_at', async () => {
    const created = await admin.post('/api/v1/subscriptions/commands/create', { id: 'sub-1', tenant_id: 't1', plan: 'poultry-basic' });
    expect(created.status).toBe(201);
    expect(created.body.item).toMatchObject({ id: 'sub-1', status: 'trial', sla_profile_id: null });
    expect((await admin.post('/api/v1/subscriptions/commands/create', { id: 'sub-1', tenant_id: 't1' })).body.error.code).toBe('already_exists');
    const before = created.body.item.updated_at;
    await new Promise((r) => setTimeout(r, 5));
    const active = await admin.post('/api/v1/subscriptions/commands/set-status', { id: 'sub-1', status: 'active' });
    expect(active.body.item.status).toBe('active');
    expect(active.body.item.updated_at > before).toBe(true);
    const again = await admin.post('/api/v1/subscriptions/commands/set-status', { id: 'sub-1', status: 'active' });
    expect(again.body.item.updated_at).toBe(active.body.item.updated_at);
    expect((await admin.post('/api/v1/subscriptions/commands/set-status', { id: 'sub-1', status: 'paused' })).body.item.status).toBe('paused');
    expect((await admin.post('/api/v1/subscriptions/commands/set-status', { id: 'sub-1', status: 'canceled' })).body.item.status).toBe('canceled');
    const back = await admin.post('/api/v1/subscriptions/commands/set-status', { id: 'sub-1', status: 'active' });
    expect(back.status).toBe(409);
    expect(back.body.error).toMatchObject({ code: 'lifecycle_conflict', details: [{ field: 'status', reason: 'not_allowed_from_canceled' }] });
    expect((await admin.get('/api/v1/subscriptions/sub-1')).body.item.status).toBe('canceled');
    expect((await admin.post('/api/v1/subscriptions/commands/set-status', { id: 'sub-1', status: 'gone' })).status).toBe(400);
    expect((await admin.post('/api/v1/subscriptions/commands/set-status', { id: 'nope', status: 'active' })).status).toBe(404);
    await admin.post('/api/v1/subscriptions/commands/create', { id: 'sub-2', tenant_id: 't2', status: 'active' });
    expect((await admin.get('/api/v1/subscriptions/list?status=active')).body.items.map((s: { id: string }) => s.id)).toEqual(['sub-2']);
    expect((await admin.get('/api/v1/subscriptions/list?q=basic')).body.total).toBe(1);
    const doc = admin.contract.doc.paths['/api/v1/subscriptions/commands/set-status'] as unknown as { post: { description: string } };
    expect(doc.post.description).toContain('canceled -> (none: final)');
  });

  it('sets SLA profiles and assigns only active ones to live subscriptions', async () => {
    const gold = await admin.post('/api/v1/sla-profiles/commands/set', { id: 'gold', name: 'Gold', response_minutes: 15, resolution_minutes: 240, escalation_policy: 'on-call, then site manager after 30 min' });
    expect(gold.body.item).toMatchObject({ id: 'gold', status: 'active', response_minutes: 15 });
    const updated = await admin.post('/api/v1/sla-profiles/commands/set', { id: 'gold', name: 'Gold', response_minutes: 10, resolution_minutes: 240, escalation_policy: 'on-call' });
    expect(updated.body.item.response_minutes).toBe(10);
    expect((await admin.get('/api/v1/sla-profiles/list')).body.total).toBe(1);
    expect((await admin.post('/api/v1/sla-profiles/commands/set', { id: 'bad', name: 'Bad', response_minutes: 60, resolution_minutes: 10, escalation_policy: 'x' })).status).toBe(400);
    await admin.post('/api/v1/sla-profiles/commands/set', { id: 'old', name: 'Old', response_minutes: 60, resolution_minutes: 600, escalation_policy: 'email', status: 'retired' });
    const assigned = await admin.post('/api/v1/sla-profiles/commands/assign', { subscription_id: 'sub-2', sla_profile_id: 'gold' });
    expect(assigned.status).toBe(200);
    expect(assigned.body.item).toMatchObject({ id: 'sub-2', sla_profile_id: 'gold' });
    expect((await admin.get('/api/v1/subscriptions/list?sla_profile_id=gold')).body.total).toBe(1);
    const retired = await admin.post('/api/v1/sla-profiles/commands/assign', { subscription_id: 'sub-2', sla_profile_id: 'old' });
    expect(retired.status).toBe(409);
    expect(retired.body.error.code).toBe('lifecycle_conflict');
    expect((await admin.post('/api/v1/sla-profiles/commands/assign', { subscription_id: 'sub-1', sla_profile_id: 'gold' })).status).toBe(409);
    expect((await admin.post('/api/v1/sla-profiles/commands/assign', { subscription_id: 'nope', sla_profile_id: 'gold' })).status).toBe(404);
    expect((await admin.post('/api/v1/sla-profiles/commands/assign', { subscription_id: 'sub-2', sla_profile_id: 'nope' })).status).toBe(404);
    expect((await admin.get('/api/v1/subscriptions/sub-2')).body.item.sla_profile_id).toBe('gold');
  });

  it('sets version policies by id and checks installed modules with semver', async () => {
    const set = await admin.post('/api/v1/version-policies/commands/set', { id: 'alarms-2', scope: 'global', module_id: 'alarms', min_version: '2.0.0' });
    expect(set.status).toBe(200);
    expect(set.body.item).toMatchObject({ id: 'alarms-2', scope: 'global', min_version: '2.0.0', origin: 'local' });
    await admin.post('/api/v1/version-policies/commands/set', { id: 'tasks-major', scope: 'tenant', tenant_id: 't1', module_id: 'tasks', allowed_major: 1, max_version: '1.5.0' });
    await admin.post('/api/v1/version-policies/commands/set', { id: 'poultry-pin', scope: 'industry', industry_code: 'poultry', pinned_version: '1.0.0' });
    for (const bad of [
      { id: 'x', scope: 'global', min_version: 'one' },
      { id: 'x', scope: 'industry', allowed_major: 1 },
      { id: 'x', scope: 'global' },
      { id: 'x', scope: 'global', min_version: '2.0.0', max_version: '1.0.0' },
      { id: 'x', scope: 'tenant', tenant_id: 't1', allowed_major: 2, pinned_version: '1.0.0' },
    ]) {
      const res = await admin.post('/api/v1/version-policies/commands/set', bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await admin.get('/api/v1/version-policies/list')).body.total).toBe(3);
    const check = await admin.post('/api/v1/version-policies/commands/check', {});
    expect(check.status).toBe(200);
    expect(check.body.item.compliant).toBe(false);
    expect(check.body.item.violations).toEqual([expect.objectContaining({ policy_id: 'alarms-2', module_id: 'alarms', installed_version: '1.0.0', rule: 'min_version', expected: '>= 2.0.0' })]);
    // Tenant policies apply to the tenant asked about; industry ones to that industry's modules.
    const t1 = (await admin.post('/api/v1/version-policies/commands/check', { tenant_id: 't1' })).body.item;
    expect(t1.policies_applied).toEqual(expect.arrayContaining(['alarms-2', 'tasks-major']));
    expect(t1.violations).toHaveLength(1);
    await admin.post('/api/v1/version-policies/commands/set', { id: 'tasks-major', scope: 'tenant', tenant_id: 't1', module_id: 'tasks', allowed_major: 3 });
    const after = (await admin.post('/api/v1/version-policies/commands/check', { tenant_id: 't1', module_id: 'tasks' })).body.item;
    expect(after.violations).toEqual([expect.objectContaining({ rule: 'allowed_major', module_id: 'tasks', expected: '3.x' })]);
    expect(after.modules_checked).toBe(1);
    const poultry = (await admin.post('/api/v1/version-policies/commands/check', { industry_code: 'poultry', module_id: 'poultry' })).body.item;
    expect(poultry.policies_applied).toContain('poultry-pin');
    expect((await admin.post('/api/v1/version-policies/commands/set', { id: 'alarms-2', scope: 'global', module_id: 'alarms', min_version: '1.0.0' })).body.item.min_version).toBe('1.0.0');
    expect((await admin.post('/api/v1/version-policies/commands/check')).body.item.violations).toEqual([]);
    expect((await operator.post('/api/v1/version-policies/commands/set', { id: 'y', scope: 'global', allowed_major: 1 })).body.error.code).toBe('rbac_forbidden');
  });

  it('computes analytics metrics and the summary from real alarms, tasks and heartbeats', async () => {
    const before = (await admin.get('/api/v1/analytics/summary')).body.item;
    await server.services.alarms!.raise({ tenant_id: 't3', severity: 'critical', source: 'test', title: 'Silo door open' });
    await server.services.alarms!.raise({ tenant_id: 't3', severity: 'low', source: 'test', title: 'Low feed' });
    const task = await admin.post('/api/v1/tasks', { item: { title: 'Check silo', priority: 'high', tenant_id: 't3' } });
    expect(task.status).toBe(201);
    const summary = (await admin.get('/api/v1/analytics/summary')).body.item;
    expect(summary.open_alarms_total).toBe(before.open_alarms_total + 2);
    expect(summary.open_tasks_total).toBe(before.open_tasks_total + 1);
    expect(summary.tenants_count).toBe(before.tenants_count + 1);
    expect(summary.average_uptime_percent).toBeNull();
    const rows = (await admin.get('/api/v1/analytics/metrics/list?tenant_id=t3&window=24h&limit=500')).body.items;
    const by = (m: string) => rows.find((r: { metric: string }) => r.metric === m);
    expect(by('open_alarms').value).toBe(2);
    expect(by('open_tasks').value).toBe(1);
    expect(by('uptime_percent').value).toBeNull();
    expect((await admin.get('/api/v1/analytics/metrics/list?metric=open_alarms&tenant_id=t3')).body.total).toBe(3);
    expect((await admin.get('/api/v1/analytics/metrics/list?window=2d')).status).toBe(400);
    const sorted = (await admin.get('/api/v1/analytics/metrics/list?metric=open_alarms&window=24h&sort=value&order=desc&limit=1')).body.items;
    expect(sorted[0]).toMatchObject({ tenant_id: 't3', value: 2 });
  });

  it('answers the pilot summary in its documented shape from real figures', async () => {
    const res = await admin.get('/api/v1/operability/pilot-summary');
    expect(res.status).toBe(200);
    const s = res.body.item;
    expect(s.deployment).toMatchObject({ mode: 'cloud-multi', engine: dialect === 'sqlite' ? 'sqlite' : expect.stringMatching(/postgresql|pglite/) });
    expect(s.modules.installed).toBeGreaterThan(5);
    expect(s.alarms.critical_open).toBeGreaterThanOrEqual(1);
    expect(s.checks).toEqual(expect.arrayContaining([{ name: 'critical_alarms', status: 'warn', detail: expect.any(String) }]));
    const mine = (await tenant.get('/api/v1/operability/pilot-summary')).body.item;
    expect(mine.deployment.tenant_id).toBe('t1');
    expect(mine.alarms.open).toBe(0);
  });
});
