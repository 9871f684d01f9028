// The farms' alarms on a master (SQLite and PostgreSQL): sites push alarm events through the real
// sync route with their credentials (site-sync/commands/push, as a box's sync does), and the
// fleet team lists them through sync-alarms: which farm, which alarm, since when, acknowledged by
// whom at the farm; open first, then P1, then newest first; read-only and master scope only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, siteClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

interface FarmAlarm {
  id: string; tenant_id: string; site_id: string; alarm_id: string; site: string; site_label: string; title: string;
  severity: string; priority: string | null; state: string; open: boolean; p1: boolean; raised_at: string; acknowledged_by: string | null;
}

const iso = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

/** An alarm event as a box's outbox holds it: an industry alarm has a priority, a site alarm only a severity. */
function alarmEvent(kind: 'raised' | 'acknowledged', a: { id: string; site_id: string; severity: string; priority?: string; state: string; ago: number; by?: string }) {
  return {
    kind: 'alarm', created_at: iso(a.ago),
    payload: { kind, alarm: { id: a.id, site_id: a.site_id, severity: a.severity, state: a.state, title: `alarm ${a.id}`, correlation_id: `c-${a.id}`, raised_at: iso(a.ago), acknowledged_by: a.by ?? null, ...(a.priority ? { priority: a.priority } : {}) } },
  };
}

describe.each(DIALECTS)('sync-alarms, the farms\' alarms on the master (%s)', (dialect) => {
  let env: TestEnv;
  let master: RunningServer;
  let fleet: Client;
  const seqs = new Map<Client, number>();

  const push = async (site: Client, events: ReturnType<typeof alarmEvent>[]) => {
    let seq = seqs.get(site) ?? 0;
    const r = await site.post('/api/v1/site-sync/commands/push', { events: events.map((e) => ({ seq: ++seq, ...e })), remaining: 0 });
    seqs.set(site, seq);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.item.accepted).toBe(events.length);
  };
  const list = async (query = '') => {
    const r = await fleet.get(`/api/v1/sync-alarms/list${query}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { items: FarmAlarm[]; total: number; has_more: boolean };
  };
  const ids = async (query = '') => (await list(query)).items.map((a) => a.alarm_id);

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    fleet = await clientAs(env, master);
    const site = async (tenant_id: string, site_id: string) => {
      const r = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id, site_id, industry_code: 'poultry' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return siteClient(master.url, r.body.item.credential as string, fleet.contract);
    };
    const north = await site('farm-a', 'north-barn');
    const east = await site('farm-b', 'east-barn');
    await push(north, [
      alarmEvent('raised', { id: 'a-p2', site_id: 'north-barn', severity: 'medium', priority: 'P2', state: 'active', ago: 50 }),
      alarmEvent('raised', { id: 'a-p1', site_id: 'north-barn', severity: 'high', priority: 'P1', state: 'active', ago: 40 }),
      // A site alarm (alarms module) has no priority: critical is the fleet's P1, low is not.
      alarmEvent('raised', { id: 'a-crit', site_id: 'north-barn', severity: 'critical', state: 'open', ago: 30 }),
      alarmEvent('raised', { id: 'a-low', site_id: 'north-barn', severity: 'low', state: 'open', ago: 10 }),
      alarmEvent('raised', { id: 'a-done', site_id: 'north-barn', severity: 'high', priority: 'P1', state: 'active', ago: 20 }),
    ]);
    await push(north, [alarmEvent('acknowledged', { id: 'a-done', site_id: 'north-barn', severity: 'high', priority: 'P1', state: 'acked', ago: 20, by: 'anna' })]);
    await push(east, [alarmEvent('raised', { id: 'b-p1', site_id: 'east-barn', severity: 'critical', priority: 'P1', state: 'active', ago: 5 })]);
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('lists every farm\'s alarms with the farm in words: open first, then P1, then newest first', async () => {
    const all = await list();
    expect(all.total).toBe(6);
    expect(all.items.map((a) => a.alarm_id)).toEqual(['b-p1', 'a-crit', 'a-p1', 'a-low', 'a-p2', 'a-done']);
    expect(all.items[0]).toEqual({
      id: 'b-p1@farm-b', tenant_id: 'farm-b', alarm_id: 'b-p1', site_id: 'east-barn', site: 'east-barn@farm-b', site_label: 'east-barn · farm-b',
      title: 'alarm b-p1', severity: 'critical', priority: 'P1', state: 'active', open: true, p1: true, correlation_id: 'c-b-p1',
      raised_at: expect.any(String), updated_at: expect.any(String), acknowledged_by: null,
    });
    expect(all.items.find((a) => a.alarm_id === 'a-crit')).toMatchObject({ priority: null, severity: 'critical', state: 'open', open: true, p1: true });
    expect(all.items.find((a) => a.alarm_id === 'a-low')).toMatchObject({ priority: null, open: true, p1: false });
    expect(all.items.find((a) => a.alarm_id === 'a-done')).toMatchObject({ state: 'acknowledged', open: false, p1: true, acknowledged_by: 'anna' });
    // The order key is bookkeeping: never shown.
    expect(Object.keys(all.items[0]!)).not.toContain('sort_key');
  });

  it('filters by farm, site, state, priority, severity, open and P1, and pages in the same order', async () => {
    expect(await ids('?tenant_id=farm-a')).toEqual(['a-crit', 'a-p1', 'a-low', 'a-p2', 'a-done']);
    expect(await ids('?site_id=east-barn')).toEqual(['b-p1']);
    expect(await ids('?state=acknowledged')).toEqual(['a-done']);
    expect(await ids('?priority=P1')).toEqual(['b-p1', 'a-p1', 'a-done']);
    expect(await ids('?severity=critical')).toEqual(['b-p1', 'a-crit']);
    // What a master's annunciator counts: the farms' open P1s.
    const p1 = await list('?open=true&p1=true&limit=1');
    expect(p1.total).toBe(3);
    expect(p1.has_more).toBe(true);
    expect(await ids('?tenant_id=farm-a&open=false')).toEqual(['a-done']);
    // The same P1s the site's card counts.
    const card = await fleet.get('/api/v1/sync-sites/north-barn@farm-a');
    expect(card.body.item.open_p1).toBe(2);
    expect((await list('?site_id=north-barn&open=true&p1=true')).total).toBe(2);
    expect(await ids('?limit=2&offset=2')).toEqual(['a-p1', 'a-low']);
    expect(await ids('?sort=raised_at&order=asc&tenant_id=farm-a')).toEqual(['a-p2', 'a-p1', 'a-crit', 'a-done', 'a-low']);
    expect((await fleet.get('/api/v1/sync-alarms/list?priority=P7')).status).toBe(400);
    expect((await fleet.get('/api/v1/sync-alarms/list?sort=sort_key')).status).toBe(400);
  });

  it('an acknowledgement at the farm reaches the master with the next push and moves the alarm down', async () => {
    const site = [...seqs.keys()][0]!;
    await push(site, [alarmEvent('acknowledged', { id: 'a-p1', site_id: 'north-barn', severity: 'high', priority: 'P1', state: 'acked', ago: 40, by: 'bert' })]);
    const one = await fleet.get('/api/v1/sync-alarms/a-p1@farm-a');
    expect(one.status).toBe(200);
    expect(one.body.item).toMatchObject({ id: 'a-p1@farm-a', state: 'acknowledged', open: false, p1: true, acknowledged_by: 'bert', site_label: 'north-barn · farm-a' });
    expect(await ids('?tenant_id=farm-a')).toEqual(['a-crit', 'a-low', 'a-p2', 'a-done', 'a-p1']);
    expect((await list('?open=true&p1=true')).total).toBe(2);
  });

  it('reads one alarm by alarm@tenant; an unknown one is a 404 in the error envelope', async () => {
    const one = await fleet.get('/api/v1/sync-alarms/a-crit@farm-a');
    expect(one.status).toBe(200);
    expect(one.body.item).toMatchObject({ alarm_id: 'a-crit', tenant_id: 'farm-a', site_id: 'north-barn' });
    for (const id of ['nothing@farm-a', 'a-crit@farm-b', 'a-crit']) {
      const r = await fleet.get(`/api/v1/sync-alarms/${encodeURIComponent(id)}`);
      expect(r.status, id).toBe(404);
      expect(r.body).toEqual({ error: { code: 'not_found', message: expect.stringContaining(id), details: [] }, meta: { request_id: expect.any(String), timestamp: expect.any(String) } });
    }
  });

  it('is master scope and read-only: a tenant session gets the scope error; there is nothing to acknowledge with', async () => {
    const tenant = await clientAs(env, master, { subject: 'farmer', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-a' });
    for (const path of ['/api/v1/sync-alarms/list', '/api/v1/sync-alarms/scheme', '/api/v1/sync-alarms/a-crit@farm-a']) {
      const r = await tenant.get(path);
      expect(r.status, path).toBe(403);
      expect(r.body.error.code, path).toBe('scope_boundary_denied');
    }
    const ack = await fleet.post('/api/v1/sync-alarms/commands/ack', { id: 'a-crit@farm-a' });
    expect(ack.status).toBe(404);
    const scheme = (await fleet.get('/api/v1/sync-alarms/scheme')).body.item as { operations: Record<string, boolean>; commands: unknown[]; filters: { name: string }[]; fields: { name: string }[] };
    expect(scheme.operations).toEqual({ create: false, patch: false, delete: false });
    expect(scheme.commands).toEqual([]);
    expect(scheme.filters.map((f) => f.name)).toEqual(expect.arrayContaining(['tenant_id', 'site_id', 'state', 'priority', 'severity', 'open', 'p1']));
    expect(scheme.fields.map((f) => f.name)).not.toContain('sort_key');
  });

  it('is declared once: the OpenAPI document says what a record is and that it is acknowledged at the farm; the policy grants it', async () => {
    const doc = fleet.contract.doc as { paths: Record<string, { get?: { description?: string } }> };
    for (const p of ['/api/v1/sync-alarms/scheme', '/api/v1/sync-alarms/list', '/api/v1/sync-alarms/{id}']) expect(Object.keys(doc.paths)).toContain(p);
    const description = doc.paths['/api/v1/sync-alarms/list']!.get!.description!;
    expect(description).toContain('One record per alarm a site box synced, id alarm@tenant');
    expect(description).toContain('acknowledged at the farm');
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/sync-alarms/commands'))).toEqual([]);
    const context = await fleet.get('/api/v1/app/context');
    expect(context.body.item.policy.permissions.api['api:GET /api/v1/sync-alarms/list']).toBe(true);
    const operator = await clientAs(env, master, { subject: 'fleet-op', role: 'operator', scope_type: 'master' });
    expect((await operator.get('/api/v1/sync-alarms/list')).status).toBe(200);
  });
});
