// The normalised pilot summary (contract 4.2; its shape is not shown there, so it is fixed here
// and in the route description): one document a pilot review reads, the same on an edge box and
// on the master. Every figure is computed at call time, from the stored rows and the roll-ups.
import type { Services } from '../../kernel/context.js';
import { tableOf } from '../../db/sql.js';
import { syncTenants, type SyncTenantRow } from '../tenant-master-sync/schema.js';
import { refreshRecords } from '../tenant-master-sync/engine/master.js';
import { health as siteHealth, loadFigures, totals } from './rollups.js';

export const PILOT_SUMMARY_SHAPE =
  'Shape: {generated_at, deployment {mode, industry_code, engine, tenant_id}, modules {installed, total}, sites {total, live, degraded, stopped}, ' +
  'sync {role (master|edge|off), pending_up, pending_down, max_lag_seconds, edge (the box\'s own sync state or null)}, alarms {open, critical_open}, ' +
  'tasks {open}, service {uptime_percent_24h, average_latency_ms_24h}, checks [{name, status (ok|warn|fail), detail}]}.';

type Check = { name: string; status: 'ok' | 'warn' | 'fail'; detail: string };

export async function pilotSummary(services: Services, tenant?: string) {
  const { db, config } = services;
  await refreshRecords(db, { staleMs: config.sync_stale_ms }, tenant ? [tenant] : undefined);
  const facts = await loadFigures(db, tenant);
  const records = ((await db.orm.select().from(tableOf(syncTenants, db))) as SyncTenantRow[]).filter((r) => tenant === undefined || r.tenant_id === tenant);
  const edge = services.edgeSync ? await services.edgeSync.status() : null;
  const states = services.modules.states();
  const health = siteHealth(facts, '24h');
  const sites = { total: facts.sites.length, live: 0, degraded: 0, stopped: 0 };
  for (const r of records) {
    sites.live += Number(r.sites_live);
    if (r.status === 'stopped') sites.stopped += Number(r.sites) - Number(r.sites_live);
    else sites.degraded += Number(r.sites) - Number(r.sites_live);
  }
  const sync = {
    role: edge ? 'edge' : records.length ? 'master' : 'off',
    pending_up: edge ? edge.pending : records.reduce((n, r) => n + Number(r.pending_up), 0),
    pending_down: records.reduce((n, r) => n + Number(r.pending_down), 0),
    max_lag_seconds: edge?.oldest_pending_at ? (Date.now() - Date.parse(edge.oldest_pending_at)) / 1000 : records.reduce((m, r) => Math.max(m, Number(r.lag_seconds)), 0),
    edge,
  };
  const counts = totals(facts);
  const critical = counts.criticalOpen;
  const checks: Check[] = [
    { name: 'database', status: services.lifecycle.state === 'ready' ? 'ok' : 'fail', detail: `${db.engine} ${services.lifecycle.state}` },
    { name: 'critical_alarms', status: critical ? 'warn' : 'ok', detail: `${critical} critical alarm(s) open` },
  ];
  if (edge) checks.push({ name: 'sync', status: edge.state === 'live' ? 'ok' : edge.state === 'stopped' ? 'fail' : 'warn', detail: edge.last_error ?? `${edge.pending} event(s) waiting` });
  else if (records.length) checks.push({ name: 'sync', status: sites.stopped ? 'fail' : sites.degraded ? 'warn' : 'ok', detail: `${sites.live}/${sites.total} site(s) live` });
  return {
    generated_at: new Date().toISOString(),
    deployment: { mode: config.mode, industry_code: config.mode === 'edge-single' ? config.industry : null, engine: db.engine, tenant_id: tenant ?? null },
    modules: { installed: states.filter((m) => m.installed).length, total: states.length },
    sites,
    sync,
    alarms: { open: counts.openAlarms, critical_open: critical },
    tasks: { open: counts.openTasks },
    service: { uptime_percent_24h: health.uptime_percent, average_latency_ms_24h: health.average_latency_ms },
    checks,
  };
}
