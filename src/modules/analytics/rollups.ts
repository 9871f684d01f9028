// Fleet figures read from the roll-ups the sync keeps on ingest (sync_rollups, written by
// tenant-master-sync/engine/rollup.ts), not from the raw heartbeats and telemetry rows. A sliding
// window [now - w, now] is cut at its first whole minute, hour and day:
//   [from, next minute)   raw heartbeats and telemetry rows: less than a minute of them
//   [next minute, next hour)  minute roll-ups, [next hour, next day)  hour roll-ups, [next day, …)  day roll-ups
// so a site costs at most 59 + 23 + 8 rows, whatever the fleet stored. Each range is its own
// branch of a UNION ALL, so each is an index range on (grain, bucket): PostgreSQL estimates an OR
// of them from the whole column (mostly recent minute rows) and scans the table instead. The figures equal the
// per-read computation of compute.ts (test/http/analytics-rollups.test.ts checks it).
// Alarms and tasks are counted in SQL (an index range on when they were raised, plus the open
// ones); tenants are those of the sync sites and of the master's own alarms, tasks and
// subscriptions (a site's alarms arrive only through a registered site, so its tenant is a site's).
import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Config } from '../../config.js';
import { tableOf } from '../../db/sql.js';
import { syncSites, type SyncSiteRow } from '../tenant-master-sync/schema.js';
import { METRICS, UNITS, WINDOWS, type MetricName, type MetricRow, type WindowName } from './schema.js';

interface SiteWindow {
  tenant: string | null;
  site: string | null;
  beats: number;
  covered: number;
  rttSum: number;
  rttCount: number;
  points: number;
  pointRows: number;
  alarms: number;
  openAlarms: number;
  tasks: number;
  openTasks: number;
}

export interface Figures {
  now: number;
  windows: Record<WindowName, Map<string, SiteWindow>>;
  /** Earliest heartbeat of each site within the last 7 days (epoch ms). */
  firstBeat: Map<string, number>;
  sites: SyncSiteRow[];
  tenants: Set<string>;
  openAlarms: number;
  criticalOpen: number;
  openTasks: number;
}

const siteKey = (tenant: string | null, site: string | null) => `${tenant ?? ''}\n${site ?? ''}`;
const ceil = (ms: number, size: number) => Math.ceil(ms / size) * size;
const iso = (ms: number) => new Date(ms).toISOString();
const n = (v: unknown) => Number(v ?? 0);

function slot(map: Map<string, SiteWindow>, tenant: string | null, site: string | null): SiteWindow {
  const k = siteKey(tenant, site);
  let w = map.get(k);
  if (!w) map.set(k, (w = { tenant, site, beats: 0, covered: 0, rttSum: 0, rttCount: 0, points: 0, pointRows: 0, alarms: 0, openAlarms: 0, tasks: 0, openTasks: 0 }));
  return w;
}

/**
 * The queries of one computation: at once (the fastest answer, up to 14 pooled connections), or
 * one after another for a refresh nobody waits for, so it never holds the pool from the reads.
 */
type Runner = <T extends (() => Promise<unknown>)[]>(jobs: [...T]) => Promise<{ [K in keyof T]: Awaited<ReturnType<T[K]>> }>;
const together: Runner = (jobs) => Promise.all(jobs.map((j) => j())) as never;
const inTurn: Runner = async (jobs) => {
  const out: unknown[] = [];
  for (const j of jobs) out.push(await j());
  return out as never;
};

const mine = (tenant: string | undefined) => (tenant === undefined ? sql`` : sql` and tenant_id = ${tenant}`);

/** Heartbeats and telemetry of one window, per site; records each site's earliest heartbeat. */
async function heartbeatsAndPoints(db: Database, from: number, map: Map<string, SiteWindow>, first: Map<string, number> | null, tenant: string | undefined, run: Runner): Promise<void> {
  const m0 = iso(ceil(from, 60_000));
  const h0 = iso(ceil(from, 3_600_000));
  const d0 = iso(ceil(from, 86_400_000));
  const f = iso(from);
  const [rolled, beats, points] = await run([
    () => db.read<Record<string, unknown>>(sql`select tenant_id, site_id, sum(heartbeats) as hb, sum(covered_ms) as cov, sum(rtt_sum) as rs, sum(rtt_count) as rc,
      min(first_beat_at) as fb, sum(telemetry_points) as tp, sum(telemetry_rows) as tr from (
        select * from sync_rollups where grain = 'minute' and bucket >= ${m0} and bucket < ${h0}${mine(tenant)}
        union all select * from sync_rollups where grain = 'hour' and bucket >= ${h0} and bucket < ${d0}${mine(tenant)}
        union all select * from sync_rollups where grain = 'day' and bucket >= ${d0}${mine(tenant)}
      ) r group by tenant_id, site_id`),
    () => db.read<{ tenant_id: string; site_id: string; at: string; interval_ms: unknown; rtt_ms: unknown }>(
      sql`select tenant_id, site_id, at, interval_ms, rtt_ms from sync_heartbeats where at >= ${f} and at < ${m0}${mine(tenant)}`),
    () => db.read<{ tenant_id: string; site_id: string; bucket: string; points: unknown }>(
      sql`select tenant_id, site_id, bucket, points from sync_telemetry where bucket >= ${f} and bucket < ${m0}${mine(tenant)}`),
  ]);
  const earliest = (k: string, at: number) => { if (first && Number.isFinite(at) && !(first.get(k)! <= at)) first.set(k, at); };
  for (const r of rolled) {
    const w = slot(map, r.tenant_id as string, r.site_id as string);
    w.beats += n(r.hb); w.covered += n(r.cov); w.rttSum += n(r.rs); w.rttCount += n(r.rc); w.points += n(r.tp); w.pointRows += n(r.tr);
    if (typeof r.fb === 'string') earliest(siteKey(w.tenant, w.site), Date.parse(r.fb));
  }
  for (const b of beats) {
    const at = Date.parse(b.at);
    if (!(at >= from)) continue;
    const w = slot(map, b.tenant_id, b.site_id);
    w.beats += 1; w.covered += n(b.interval_ms);
    if (b.rtt_ms !== null) { w.rttSum += n(b.rtt_ms); w.rttCount += 1; }
    earliest(siteKey(b.tenant_id, b.site_id), at);
  }
  for (const p of points) {
    if (!(Date.parse(p.bucket) >= from)) continue;
    const w = slot(map, p.tenant_id, p.site_id);
    w.points += n(p.points); w.pointRows += 1;
  }
}

/** Counts per site of the rows raised (created) in each window, of those open, and of all open ones. */
async function countOpen(db: Database, table: string, at: string, open: SQL, critical: SQL, froms: Record<WindowName, string>, tenant?: string) {
  const win = (w: WindowName) => sql`, sum(case when ${sql.raw(at)} >= ${froms[w]} then 1 else 0 end) as ${sql.raw(`"n_${w}"`)}, sum(case when ${sql.raw(at)} >= ${froms[w]} and ${open} then 1 else 0 end) as ${sql.raw(`"o_${w}"`)}`;
  return db.read<Record<string, unknown>>(sql`select tenant_id, site_id${win('1h')}${win('24h')}${win('7d')},
    sum(case when ${open} then 1 else 0 end) as open_all, sum(case when ${open} and ${critical} then 1 else 0 end) as critical_all
    from (select * from ${sql.raw(table)} where ${sql.raw(at)} >= ${froms['7d']}${mine(tenant)}
      union all select * from ${sql.raw(table)} where ${sql.raw(at)} < ${froms['7d']} and ${open}${mine(tenant)}) a group by tenant_id, site_id`);
}

export async function loadFigures(db: Database, tenant?: string, now = Date.now(), opts: { inTurn?: boolean } = {}): Promise<Figures> {
  const run = opts.inTurn ? inTurn : together;
  const windows = { '1h': new Map(), '24h': new Map(), '7d': new Map() } as Record<WindowName, Map<string, SiteWindow>>;
  const firstBeat = new Map<string, number>();
  const froms = Object.fromEntries(Object.entries(WINDOWS).map(([w, ms]) => [w, iso(now - ms)])) as Record<WindowName, string>;
  const isOpenAlarm = sql`state = 'open'`;
  const [, , , localAlarms, remoteAlarms, taskRows, sites, tenantRows] = await run([
    () => heartbeatsAndPoints(db, now - WINDOWS['7d'], windows['7d'], firstBeat, tenant, run),
    () => heartbeatsAndPoints(db, now - WINDOWS['24h'], windows['24h'], null, tenant, run),
    () => heartbeatsAndPoints(db, now - WINDOWS['1h'], windows['1h'], null, tenant, run),
    () => countOpen(db, 'alarms', 'raised_at', isOpenAlarm, sql`severity = 'critical'`, froms, tenant),
    () => countOpen(db, 'sync_alarms', 'raised_at', isOpenAlarm, sql`severity = 'critical'`, froms, tenant),
    () => countOpen(db, 'tasks', 'created_at', sql`status not in ('done', 'canceled')`, sql`1 = 0`, froms, tenant),
    async () => (await db.orm.select().from(tableOf(syncSites, db))) as SyncSiteRow[],
    () => db.read<{ tenant_id: string | null }>(sql`select tenant_id from alarms union select tenant_id from tasks union select tenant_id from subscriptions`),
  ]);
  const figures: Figures = { now, windows, firstBeat, sites: tenant === undefined ? sites : sites.filter((s) => s.tenant_id === tenant), tenants: new Set(), openAlarms: 0, criticalOpen: 0, openTasks: 0 };
  for (const [rows, kind] of [[localAlarms, 'alarm'], [remoteAlarms, 'alarm'], [taskRows, 'task']] as const) {
    for (const r of rows) {
      const t = r.tenant_id as string | null;
      const s = r.site_id as string | null;
      if (t) figures.tenants.add(t);
      for (const w of Object.keys(WINDOWS) as WindowName[]) {
        const x = slot(windows[w], t, s);
        if (kind === 'alarm') { x.alarms += n(r[`n_${w}`]); x.openAlarms += n(r[`o_${w}`]); } else { x.tasks += n(r[`n_${w}`]); x.openTasks += n(r[`o_${w}`]); }
      }
      if (kind === 'alarm') { figures.openAlarms += n(r.open_all); figures.criticalOpen += n(r.critical_all); } else figures.openTasks += n(r.open_all);
    }
  }
  for (const r of [...tenantRows.filter((r) => tenant === undefined || r.tenant_id === tenant), ...figures.sites]) if (r.tenant_id) figures.tenants.add(r.tenant_id);
  return figures;
}

/** Uptime percent of the sites with heartbeats in the window (mean over sites), and the mean round trip. */
export function health(f: Figures, window: WindowName, filter: (tenant: string | null, site: string | null) => boolean = () => true) {
  const from = f.now - WINDOWS[window];
  let uptimeSum = 0;
  let sites = 0;
  let rttSum = 0;
  let rttCount = 0;
  for (const [k, w] of f.windows[window]) {
    if (!w.beats || !filter(w.tenant, w.site)) continue;
    const span = f.now - Math.max(from, f.firstBeat.get(k) ?? from);
    // A heartbeat covers the interval it starts, so one just received counts as up.
    uptimeSum += span <= 0 ? 100 : Math.min(100, (100 * w.covered) / Math.max(span, 1));
    sites += 1;
    rttSum += w.rttSum;
    rttCount += w.rttCount;
  }
  const mean = (sum: number, count: number) => (count ? Math.round((sum / count) * 100) / 100 : null);
  return { uptime_percent: mean(uptimeSum, sites), average_latency_ms: mean(rttSum, rttCount), sites, samples: rttCount };
}

export function figureMetricRows(f: Figures, config: Pick<Config, 'mode' | 'industry'>): MetricRow[] {
  const industryOf = new Map(f.sites.map((s) => [siteKey(s.tenant_id, s.site_id), s.industry_code]));
  const fallback = config.mode === 'edge-single' ? config.industry : null;
  const ind = (tenant: string | null, site: string | null) => industryOf.get(siteKey(tenant, site)) ?? fallback;
  const groups = new Set<string>();
  for (const t of f.tenants) groups.add(`${t}\n${fallback ?? ''}`);
  for (const s of f.sites) groups.add(`${s.tenant_id}\n${s.industry_code ?? fallback ?? ''}`);
  const computed_at = iso(f.now);
  const rows: MetricRow[] = [];
  for (const g of groups) {
    const [tenant, industryText] = g.split('\n') as [string, string];
    const industry = industryText || null;
    const inGroup = (t: string | null, s: string | null) => t === tenant && ind(t, s) === industry;
    for (const window of Object.keys(WINDOWS) as WindowName[]) {
      let alarms = 0, openAlarms = 0, tasks = 0, openTasks = 0, points = 0, pointRows = 0;
      for (const w of f.windows[window].values()) {
        if (!inGroup(w.tenant, w.site)) continue;
        alarms += w.alarms; openAlarms += w.openAlarms; tasks += w.tasks; openTasks += w.openTasks; points += w.points; pointRows += w.pointRows;
      }
      const h = health(f, window, inGroup);
      const pending = f.sites.filter((s) => inGroup(s.tenant_id, s.site_id));
      const values: Record<MetricName, [number | null, number]> = {
        open_alarms: [openAlarms, alarms],
        alarms_raised: [alarms, alarms],
        open_tasks: [openTasks, tasks],
        uptime_percent: [h.uptime_percent, h.sites],
        average_latency_ms: [h.average_latency_ms, h.samples],
        telemetry_points: [points, pointRows],
        sync_pending: [pending.reduce((sum, s) => sum + Number(s.reported_pending), 0), pending.length],
      };
      for (const metric of METRICS) {
        const [value, samples] = values[metric];
        rows.push({ id: `${tenant}:${industry ?? '-'}:${metric}:${window}`, tenant_id: tenant, industry_code: industry, metric, window, value, unit: UNITS[metric], samples, computed_at });
      }
    }
  }
  return rows;
}

export function figureSummary(f: Figures, config: Pick<Config, 'mode' | 'industry'>) {
  const industries = new Set<string>();
  for (const s of f.sites) if (s.industry_code) industries.add(s.industry_code);
  if (config.mode === 'edge-single') industries.add(config.industry);
  const h = health(f, '24h');
  return {
    tenants_count: f.tenants.size,
    industries_count: industries.size,
    average_uptime_percent: h.uptime_percent,
    average_latency_ms: h.average_latency_ms,
    open_alarms_total: f.openAlarms,
    open_tasks_total: f.openTasks,
    window: '24h',
    sites_reporting: h.sites,
    computed_at: iso(f.now),
  };
}
