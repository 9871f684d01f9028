// Two real processes: an edge box on SQLite and a master on PostgreSQL (SQLite when no
// CABINET_TEST_PG_URL is given: PGlite cannot be shared between processes). The master is
// stopped while the edge raises alarms and ingests telemetry; when it returns everything arrives
// once and the sync record goes from stopped/degraded to live with lag and pending at zero;
// kill -9 of the master and then of the edge in the middle of a sync loses and duplicates
// nothing; a version policy set on the master reaches the edge, whose check reports it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { api, killAll, proc, waitFor, type Proc } from './procs.js';

const PG = Boolean(process.env.CABINET_TEST_PG_URL);

describe(`edge (SQLite) and master (${PG ? 'PostgreSQL' : 'SQLite'}) as two processes`, () => {
  let masterEnv: TestEnv;
  let edgeEnv: TestEnv;
  let master: Proc;
  let edge: Proc;
  let fleet: string;
  let op: string;
  let raised = 0;

  const record = async () => (await api(master, fleet, 'GET', '/api/v1/tenant-master-sync/farm-a')).body.item;
  const openOnMaster = async () => (await api(master, fleet, 'GET', '/api/v1/analytics/summary')).body.item.open_alarms_total as number;
  /** Every event the edge ever numbered (its outbox counter). */
  const edgeSeq = () => {
    const db = new Database(join(edgeEnv.dataDir, 'cabinet.sqlite'), { readonly: true });
    try {
      return Number((db.prepare("select value from sync_state where key = 'outbox_seq'").get() as { value: string }).value);
    } finally {
      db.close();
    }
  };
  const raise = async (n: number, tag: string) => {
    for (let i = 0; i < n; i++) {
      const r = await api(edge, op, 'POST', '/api/v1/alarms/commands/raise', { severity: i % 10 === 0 ? 'high' : 'low', source: 'rules', title: `${tag} ${i}` });
      expect(r.status).toBe(201);
      raised++;
    }
  };
  /** Everything on the edge has arrived exactly once: open alarms and the event count match. */
  const allArrived = async () => {
    const rec = await waitFor('a live record with nothing pending', async () => {
      const r = await record();
      return r?.status === 'live' && r.pending === 0 && r.lag_seconds === 0 && r.events_received === edgeSeq() ? r : undefined;
    }, 60_000);
    expect(await openOnMaster()).toBe(raised);
    return rec;
  };

  beforeAll(async () => {
    masterEnv = await createTestEnv(PG ? 'postgres' : 'sqlite');
    edgeEnv = await createTestEnv('sqlite');
    master = await proc('master', { mode: 'cloud-multi', data_dir: masterEnv.dataDir, database_url: masterEnv.databaseUrl, sync_stale_ms: '1500' });
    await master.start();
    fleet = await master.token();
    const reg = await api(master, fleet, 'POST', '/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-a', site_id: 'site-1', industry_code: 'poultry' });
    expect(reg.status).toBe(201);
    writeFileSync(join(edgeEnv.dataDir, 'site-credential'), reg.body.item.credential, { mode: 0o600 });
    edge = await proc('edge', {
      data_dir: edgeEnv.dataDir, sync_master_url: master.url, sync_interval_ms: '100', sync_heartbeat_ms: '500',
      sync_backoff_max_ms: '400', sync_batch_max: '25', sync_request_timeout_ms: '3000',
    });
    await edge.start();
    op = await edge.token({ role: 'operator', scope_type: 'tenant', tenant_id: 'farm-a', site_id: 'site-1' });
  }, 120_000);

  afterAll(async () => {
    await edge?.stop();
    await master?.stop();
    killAll();
    await edgeEnv?.cleanup();
    await masterEnv?.cleanup();
  });

  it('catches up once the master is back: stopped, then live with nothing pending', async () => {
    await raise(5, 'online');
    await allArrived();
    await master.stop();
    await raise(60, 'offline');
    const telemetry = await api(edge, op, 'POST', '/api/v1/devices/telemetry/commands/ingest', {
      points: Array.from({ length: 120 }, (_, i) => ({ device_id: `fan-${i % 4}`, metric: 'temp', value: i, ts: new Date(Date.now() - i * 1000).toISOString() })),
    });
    expect(telemetry.status).toBe(200);
    const offline = await waitFor('the edge to notice', async () => {
      const s = (await api(edge, await edge.token(), 'GET', '/api/v1/operability/pilot-summary')).body.item.sync.edge;
      return s.state !== 'live' && s.pending > 0 ? s : undefined;
    });
    expect(offline.last_error).toBeTruthy();
    // It keeps trying, backing off: failures add up while the master is away.
    await waitFor('repeated attempts', async () => (await api(edge, await edge.token(), 'GET', '/api/v1/operability/pilot-summary')).body.item.sync.edge.failures >= 2);
    await new Promise((r) => setTimeout(r, 1600)); // longer than sync_stale_ms
    await master.start();
    const back = await record();
    expect(['stopped', 'degraded']).toContain(back.status);
    expect(back.lag_seconds).toBeGreaterThan(1);
    await allArrived();
  }, 120_000);

  it('loses and duplicates nothing when the master is killed -9 mid-sync', async () => {
    await api(master, fleet, 'POST', '/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'paused' });
    await raise(600, 'backlog-m');
    const base = (await record()).events_received as number;
    await api(master, fleet, 'POST', '/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'auto' });
    const under = await waitFor('the sync under way', async () => {
      const n = (await record()).events_received as number;
      return n > base + 50 ? n : undefined;
    });
    await master.kill9();
    expect(under).toBeLessThan(edgeSeq());
    expect((await record().catch(() => undefined))).toBeUndefined();
    await master.start();
    await allArrived();
  }, 120_000);

  it('loses and duplicates nothing when the edge is killed -9 mid-sync, and resumes after the restart', async () => {
    await api(master, fleet, 'POST', '/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'paused' });
    // A backlog the sync cannot finish between its progress being read and the kill (200 were
    // pushed whole in that gap once, at load 15+, since pushes are pipelined).
    await raise(600, 'backlog-e');
    const base = (await record()).events_received as number;
    await api(master, fleet, 'POST', '/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'auto' });
    await waitFor('the sync under way', async () => ((await record()).events_received > base + 50 ? true : undefined));
    await edge.kill9();
    const mid = await record();
    expect(mid.events_received).toBeLessThan(edgeSeq());
    await edge.start();
    await allArrived();
  }, 120_000);

  it('sends a version policy set on the master to the edge, whose check reports the violation', async () => {
    const set = await api(master, fleet, 'POST', '/api/v1/version-policies/commands/set', { id: 'alarms-2x', scope: 'global', module_id: 'alarms', allowed_major: 2 });
    expect(set.status).toBe(200);
    const edgeAdmin = await edge.token();
    const violations = await waitFor('the violation on the edge', async () => {
      const check = await api(edge, edgeAdmin, 'POST', '/api/v1/version-policies/commands/check', {});
      return check.body.item.violations.length ? check.body.item.violations : undefined;
    });
    expect(violations).toEqual([expect.objectContaining({ policy_id: 'alarms-2x', module_id: 'alarms', rule: 'allowed_major', installed_version: '1.0.0' })]);
    await waitFor('pending_down at zero', async () => ((await record()).pending_down === 0 ? true : undefined));
  }, 60_000);
});
