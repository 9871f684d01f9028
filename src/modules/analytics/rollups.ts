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
//
// The figures are kept per member: a site's (its heartbeats, telemetry and synced alarms) and the
// master's own alarms and tasks per tenant and site. Each member carries the moment it was cut, so
// snapshot.ts can compute again only the sites whose pushes changed something and keep the rest.
import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Config } from '../../config.js';
import type { SyncSiteRow } from '../tenant-master-sync/schema.js';
import { METRICS, UNITS, WINDOWS, type MetricName, type MetricRow, type WindowName } from './schema.js';

interface Counts {
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

/** One site's figures (or the master's own rows of one tenant and site), cut at `cut`. */
export interface Member {
  tenant: string | null;
  site: string | null;
  /** The moment its windows end (epoch ms). */
  cut: number;
  windows: Record<WindowName, Counts>;
  /** Earliest heartbeat within the 7 days before `cut`. */
  firstBeat?: number;
  openAlarms: number;
  criticalOpen: number;
  openTasks: number;
  /** It has alarm or task rows (open, or raised within 7 days): its tenant counts as a tenant. */
  listed: boolean;
}

export interface Figures {
  /** The newest cut of any member: the figures are as of this moment or, for members nothing changed, earlier. */
  now: number;
  /** The sites' members, from what the sync stored. */
  remote: Map<string, Member>;
  /** The master's own alarms and tasks, per tenant and site. */
  own: Map<string, Member>;
  sites: FigureSite[];
  /** Tenants of the master's own alarms, tasks and subscriptions. */
  ownTenants: Set<string>;
}

/** Which rows a load reads: a tenant's, or a few sites' (a snapshot's update), or all. */
export interface Scope {
  tenant?: string;
  sites?: { tenant_id: string; site_id: string }[];
}

export const siteKey = (tenant: string | null, site: string | null) => `${tenant ?? ''}\n${site ?? ''}`;
const ceil = (ms: number, size: number) => Math.ceil(ms / size) * size;
const iso = (ms: number) => new Date(ms).toISOString();
const n = (v: unknown) => Number(v ?? 0);
const zero = (): Counts => ({ beats: 0, covered: 0, rttSum: 0, rttCount: 0, points: 0, pointRows: 0, alarms: 0, openAlarms: 0, tasks: 0, openTasks: 0 });

function memberOf(map: Map<string, Member>, tenant: string | null, site: string | null, cut: number): Member {
  const k = siteKey(tenant, site);
  let m = map.get(k);
  if (!m) map.set(k, (m = { tenant, site, cut, windows: { '1h': zero(), '24h': zero(), '7d': zero() }, openAlarms: 0, criticalOpen: 0, openTasks: 0, listed: false }));
  return m;
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

function where(scope: Scope): SQL {
  const parts: SQL[] = [];
  if (scope.tenant !== undefined) parts.push(sql` and tenant_id = ${scope.tenant}`);
  if (scope.sites) {
    const pairs = sql.join(scope.sites.map((s) => sql`(${s.tenant_id}, ${s.site_id})`), sql`, `);
    parts.push(sql` and (tenant_id, site_id) in (values ${pairs})`);
  }
  return sql.join(parts, sql``);
}

/** Heartbeats and telemetry of one window, per site; records each site's earliest heartbeat. */
async function heartbeatsAndPoints(db: Database, now: number, window: WindowName, map: Map<string, Member>, scope: Scope, run: Runner): Promise<void> {
  const from = now - WINDOWS[window];
  const mine = where(scope);
  const m0 = iso(ceil(from, 60_000));
  const h0 = iso(ceil(from, 3_600_000));
  const d0 = iso(ceil(from, 86_400_000));
  const f = iso(from);
  const [rolled, beats, points] = await run([
    () => db.read<Record<string, unknown>>(sql`select tenant_id, site_id, sum(heartbeats) as hb, sum(covered_ms) as cov, sum(rtt_sum) as rs, sum(rtt_count) as rc,
      min(first_beat_at) as fb, sum(telemetry_points) as tp, sum(telemetry_rows) as tr from (
        select * from sync_rollups where grain = 'minute' and bucket >= ${m0} and bucket < ${h0}${mine}
        union all select * from sync_rollups where grain = 'hour' and bucket >= ${h0} and bucket < ${d0}${mine}
        union all select * from sync_rollups where grain = 'day' and bucket >= ${d0}${mine}
      ) r group by tenant_id, site_id`),
    () => db.read<{ tenant_id: string; site_id: string; at: string; interval_ms: unknown; rtt_ms: unknown }>(
      sql`select tenant_id, site_id, at, interval_ms, rtt_ms from sync_heartbeats where at >= ${f} and at < ${m0}${mine}`),
    () => db.read<{ tenant_id: string; site_id: string; bucket: string; points: unknown }>(
      sql`select tenant_id, site_id, bucket, points from sync_telemetry where bucket >= ${f} and bucket < ${m0}${mine}`),
  ]);
  const first = window === '7d';
  const earliest = (m: Member, at: number) => { if (first && Number.isFinite(at) && !(m.firstBeat! <= at)) m.firstBeat = at; };
  for (const r of rolled) {
    const m = memberOf(map, r.tenant_id as string, r.site_id as string, now);
    const w = m.windows[window];
    w.beats += n(r.hb); w.covered += n(r.cov); w.rttSum += n(r.rs); w.rttCount += n(r.rc); w.points += n(r.tp); w.pointRows += n(r.tr);
    if (typeof r.fb === 'string') earliest(m, Date.parse(r.fb));
  }
  for (const b of beats) {
    const at = Date.parse(b.at);
    if (!(at >= from)) continue;
    const m = memberOf(map, b.tenant_id, b.site_id, now);
    const w = m.windows[window];
    w.beats += 1; w.covered += n(b.interval_ms);
    if (b.rtt_ms !== null) { w.rttSum += n(b.rtt_ms); w.rttCount += 1; }
    earliest(m, at);
  }
  for (const p of points) {
    if (!(Date.parse(p.bucket) >= from)) continue;
    const w = memberOf(map, p.tenant_id, p.site_id, now).windows[window];
    w.points += n(p.points); w.pointRows += 1;
  }
}

/** Counts per site of the rows raised (created) in each window, of those open, and of all open ones. */
async function countOpen(db: Database, table: string, at: string, open: SQL, critical: SQL, now: number, scope: Scope) {
  const froms = Object.fromEntries(Object.entries(WINDOWS).map(([w, ms]) => [w, iso(now - ms)])) as Record<WindowName, string>;
  const mine = where(scope);
  const win = (w: WindowName) => sql`, sum(case when ${sql.raw(at)} >= ${froms[w]} then 1 else 0 end) as ${sql.raw(`"n_${w}"`)}, sum(case when ${sql.raw(at)} >= ${froms[w]} and ${open} then 1 else 0 end) as ${sql.raw(`"o_${w}"`)}`;
  return db.read<Record<string, unknown>>(sql`select tenant_id, site_id${win('1h')}${win('24h')}${win('7d')},
    sum(case when ${open} then 1 else 0 end) as open_all, sum(case when ${open} and ${critical} then 1 else 0 end) as critical_all
    from (select * from ${sql.raw(table)} where ${sql.raw(at)} >= ${froms['7d']}${mine}
      union all select * from ${sql.raw(table)} where ${sql.raw(at)} < ${froms['7d']} and ${open}${mine}) a group by tenant_id, site_id`);
}

function addCounts(map: Map<string, Member>, rows: Record<string, unknown>[], kind: 'alarm' | 'task', cut: number): void {
  for (const r of rows) {
    const m = memberOf(map, r.tenant_id as string | null, r.site_id as string | null, cut);
    m.listed = true;
    for (const w of Object.keys(WINDOWS) as WindowName[]) {
      if (kind === 'alarm') { m.windows[w].alarms += n(r[`n_${w}`]); m.windows[w].openAlarms += n(r[`o_${w}`]); } else { m.windows[w].tasks += n(r[`n_${w}`]); m.windows[w].openTasks += n(r[`o_${w}`]); }
    }
    if (kind === 'alarm') { m.openAlarms += n(r.open_all); m.criticalOpen += n(r.critical_all); } else m.openTasks += n(r.open_all);
  }
}

const isOpenAlarm = sql`state = 'open'`;

/** The sites' members (all, a tenant's, or the listed sites'), cut at `now`. */
export async function loadRemote(db: Database, now: number, scope: Scope, opts: { inTurn?: boolean } = {}): Promise<Map<string, Member>> {
  const run = opts.inTurn ? inTurn : together;
  const map = new Map<string, Member>();
  const [, , , alarms] = await run([
    () => heartbeatsAndPoints(db, now, '7d', map, scope, run),
    () => heartbeatsAndPoints(db, now, '24h', map, scope, run),
    () => heartbeatsAndPoints(db, now, '1h', map, scope, run),
    () => countOpen(db, 'sync_alarms', 'raised_at', isOpenAlarm, sql`severity = 'critical'`, now, scope),
  ]);
  addCounts(map, alarms, 'alarm', now);
  return map;
}

/** The master's own alarms and tasks per tenant and site, and the tenants of its own rows. */
export async function loadOwn(db: Database, now: number, tenant: string | undefined, opts: { inTurn?: boolean } = {}): Promise<{ own: Map<string, Member>; ownTenants: Set<string> }> {
  const run = opts.inTurn ? inTurn : together;
  const scope = { tenant };
  const [alarms, tasks, tenantRows] = await run([
    () => countOpen(db, 'alarms', 'raised_at', isOpenAlarm, sql`severity = 'critical'`, now, scope),
    () => countOpen(db, 'tasks', 'created_at', sql`status not in ('done', 'canceled')`, sql`1 = 0`, now, scope),
    () => db.read<{ tenant_id: string | null }>(sql`select tenant_id from alarms union select tenant_id from tasks union select tenant_id from subscriptions`),
  ]);
  const own = new Map<string, Member>();
  addCounts(own, alarms, 'alarm', now);
  addCounts(own, tasks, 'task', now);
  const ownTenants = new Set<string>();
  for (const r of tenantRows) if (r.tenant_id && (tenant === undefined || r.tenant_id === tenant)) ownTenants.add(r.tenant_id);
  return { own, ownTenants };
}

/** What the figures read of a sync site row. */
export type FigureSite = Pick<SyncSiteRow, 'tenant_id' | 'site_id' | 'industry_code' | 'reported_pending' | 'events_received'>;

/** The sync's site rows, read before any figure (snapshot.ts compares their event counts later). */
export async function loadSites(db: Database, tenant?: string): Promise<FigureSite[]> {
  return db.read<FigureSite>(sql`select tenant_id, site_id, industry_code, reported_pending, events_received from sync_sites${tenant === undefined ? sql`` : sql` where tenant_id = ${tenant}`}`);
}

export async function loadFigures(db: Database, tenant?: string, now = Date.now(), opts: { inTurn?: boolean; sites?: FigureSite[] } = {}): Promise<Figures> {
  const sites = opts.sites ?? await loadSites(db, tenant);
  const run = opts.inTurn ? inTurn : together;
  const [remote, { own, ownTenants }] = await run([
    () => loadRemote(db, now, { tenant }, opts),
    () => loadOwn(db, now, tenant, opts),
  ]);
  return { now, remote, own, sites, ownTenants };
}

export function tenantsOf(f: Figures): Set<string> {
  const tenants = new Set(f.ownTenants);
  for (const m of [...f.remote.values(), ...f.own.values()]) if (m.listed && m.tenant) tenants.add(m.tenant);
  for (const s of f.sites) if (s.tenant_id) tenants.add(s.tenant_id);
  return tenants;
}

export function totals(f: Figures) {
  let openAlarms = 0, criticalOpen = 0, openTasks = 0;
  for (const m of [...f.remote.values(), ...f.own.values()]) { openAlarms += m.openAlarms; criticalOpen += m.criticalOpen; openTasks += m.openTasks; }
  return { openAlarms, criticalOpen, openTasks };
}

/** Uptime percent of the sites with heartbeats in the window (mean over sites), and the mean round trip. */
export function health(f: Figures, window: WindowName, filter: (tenant: string | null, site: string | null) => boolean = () => true) {
  return healthOf([...f.remote.values()].filter((m) => filter(m.tenant, m.site)), window);
}

function healthOf(members: Iterable<Member>, window: WindowName) {
  let uptimeSum = 0;
  let sites = 0;
  let rttSum = 0;
  let rttCount = 0;
  for (const m of members) {
    const w = m.windows[window];
    if (!w.beats) continue;
    const from = m.cut - WINDOWS[window];
    const span = m.cut - Math.max(from, m.firstBeat ?? from);
    // A heartbeat covers the interval it starts, so one just received counts as up.
    uptimeSum += span <= 0 ? 100 : Math.min(100, (100 * w.covered) / Math.max(span, 1));
    sites += 1;
    rttSum += w.rttSum;
    rttCount += w.rttCount;
  }
  const mean = (sum: number, count: number) => (count ? Math.round((sum / count) * 100) / 100 : null);
  return { uptime_percent: mean(uptimeSum, sites), average_latency_ms: mean(rttSum, rttCount), sites, samples: rttCount };
}

/** A metric row's `computed_at`: the newest cut of its group's members (the snapshot's oldest cut when it has none). */
export function figureMetricRows(f: Figures, config: Pick<Config, 'mode' | 'industry'>, base = f.now): MetricRow[] {
  const industryOf = new Map(f.sites.map((s) => [siteKey(s.tenant_id, s.site_id), s.industry_code]));
  const fallback = config.mode === 'edge-single' ? config.industry : null;
  const ind = (tenant: string | null, site: string | null) => industryOf.get(siteKey(tenant, site)) ?? fallback;
  interface Group { tenant: string; industry: string | null; sites: Member[]; own: Member[]; pending: number; count: number }
  const groups = new Map<string, Group>();
  const groupOf = (tenant: string, industry: string | null) => {
    const k = `${tenant}\n${industry ?? ''}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { tenant, industry, sites: [], own: [], pending: 0, count: 0 }));
    return g;
  };
  for (const t of tenantsOf(f)) groupOf(t, fallback);
  for (const s of f.sites) {
    const g = groupOf(s.tenant_id, s.industry_code ?? fallback);
    g.pending += Number(s.reported_pending);
    g.count += 1;
  }
  const member = (m: Member) => (m.tenant === null ? undefined : groups.get(`${m.tenant}\n${ind(m.tenant, m.site) ?? ''}`));
  for (const m of f.remote.values()) member(m)?.sites.push(m);
  for (const m of f.own.values()) member(m)?.own.push(m);
  const rows: MetricRow[] = [];
  // In the order of tenant and industry, whatever order the rows were read in.
  for (const g of [...groups.values()].sort((a, b) => (a.tenant === b.tenant ? (a.industry ?? '').localeCompare(b.industry ?? '') : a.tenant.localeCompare(b.tenant)))) {
    let cut = base;
    for (const m of g.sites) if (m.cut > cut) cut = m.cut;
    for (const m of g.own) if (m.cut > cut) cut = m.cut;
    const computed_at = iso(cut);
    for (const window of Object.keys(WINDOWS) as WindowName[]) {
      let alarms = 0, openAlarms = 0, tasks = 0, openTasks = 0, points = 0, pointRows = 0;
      for (const list of [g.sites, g.own]) {
        for (const m of list) {
          const w = m.windows[window];
          alarms += w.alarms; openAlarms += w.openAlarms; tasks += w.tasks; openTasks += w.openTasks; points += w.points; pointRows += w.pointRows;
        }
      }
      const h = healthOf(g.sites, window);
      const values: Record<MetricName, [number | null, number]> = {
        open_alarms: [openAlarms, alarms],
        alarms_raised: [alarms, alarms],
        open_tasks: [openTasks, tasks],
        uptime_percent: [h.uptime_percent, h.sites],
        average_latency_ms: [h.average_latency_ms, h.samples],
        telemetry_points: [points, pointRows],
        sync_pending: [g.pending, g.count],
      };
      for (const metric of METRICS) {
        const [value, samples] = values[metric];
        rows.push({ id: `${g.tenant}:${g.industry ?? '-'}:${metric}:${window}`, tenant_id: g.tenant, industry_code: g.industry, metric, window, value, unit: UNITS[metric], samples, computed_at });
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
  const t = totals(f);
  return {
    tenants_count: tenantsOf(f).size,
    industries_count: industries.size,
    average_uptime_percent: h.uptime_percent,
    average_latency_ms: h.average_latency_ms,
    open_alarms_total: t.openAlarms,
    open_tasks_total: t.openTasks,
    window: '24h',
    sites_reporting: h.sites,
    computed_at: iso(f.now),
  };
}
