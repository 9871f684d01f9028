// Fleet figures computed from the raw rows at every call: the master's own alarms and tasks, the
// sites' alarms, heartbeats and telemetry aggregates received through the sync, subscriptions and
// sync sites. The routes read the roll-ups instead (rollups.ts); this computation stays as the
// reference they are checked against (test/http/analytics-rollups.test.ts) and the baseline of
// bench/analytics.ts.
// Uptime of a site over a window: heartbeats received x their interval, over the time since the
// window started (or since the site's first heartbeat, if later), at most 100 %. Latency: the
// round trip the box measured to the master, averaged over its heartbeats.
import { gte } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Config } from '../../config.js';
import { colOf, tableOf } from '../../db/sql.js';
import { alarms } from '../alarms/schema.js';
import { tasks } from '../tasks/schema.js';
import { subscriptions } from '../subscriptions/schema.js';
import { syncAlarms, syncHeartbeats, syncSites, syncTelemetry, type SyncSiteRow } from '../tenant-master-sync/schema.js';
import { METRICS, UNITS, WINDOWS, type MetricName, type MetricRow, type WindowName } from './schema.js';

const OPEN_TASK = (s: string) => s !== 'done' && s !== 'canceled';

interface Facts {
  alarms: { tenant: string | null; site: string | null; open: boolean; critical: boolean; at: number }[];
  tasks: { tenant: string | null; site: string | null; open: boolean; at: number }[];
  beats: { tenant: string; site: string; at: number; interval: number; rtt: number | null }[];
  points: { tenant: string; site: string; at: number; points: number }[];
  sites: SyncSiteRow[];
  firstBeat: Map<string, number>;
  tenants: Set<string>;
}

const siteKey = (tenant: string | null, site: string | null) => `${tenant ?? ''}\n${site ?? ''}`;

export async function loadFacts(db: Database, tenant?: string, now = Date.now()): Promise<Facts> {
  const since = new Date(now - WINDOWS['7d']).toISOString();
  const sel = async <T>(t: Parameters<typeof tableOf>[0], col?: string) =>
    (await (col ? db.orm.select().from(tableOf(t, db)).where(gte(colOf(t, db, col), since)) : db.orm.select().from(tableOf(t, db)))) as T[];
  const mine = <T extends { tenant_id: string | null }>(rows: T[]) => (tenant === undefined ? rows : rows.filter((r) => r.tenant_id === tenant));
  const local = mine(await sel<{ tenant_id: string | null; site_id: string | null; state: string; severity: string; raised_at: string }>(alarms));
  const remote = mine(await sel<{ tenant_id: string; site_id: string; state: string; severity: string; raised_at: string }>(syncAlarms));
  const taskRows = mine(await sel<{ tenant_id: string | null; site_id: string | null; status: string; created_at: string }>(tasks));
  const beats = mine(await sel<{ tenant_id: string; site_id: string; at: string; interval_ms: number; rtt_ms: number | null }>(syncHeartbeats, 'at'));
  const tele = mine(await sel<{ tenant_id: string; site_id: string; bucket: string; points: number }>(syncTelemetry, 'bucket'));
  const sites = mine(await sel<SyncSiteRow>(syncSites));
  const subs = mine(await sel<{ tenant_id: string }>(subscriptions));
  const firstBeat = new Map<string, number>();
  for (const b of beats) {
    const k = siteKey(b.tenant_id, b.site_id);
    const at = Date.parse(b.at);
    if (!firstBeat.has(k) || at < (firstBeat.get(k) as number)) firstBeat.set(k, at);
  }
  const tenants = new Set<string>();
  for (const r of [...local, ...remote, ...taskRows, ...sites, ...subs]) if (r.tenant_id) tenants.add(r.tenant_id);
  return {
    alarms: [...local, ...remote].map((a) => ({ tenant: a.tenant_id, site: a.site_id, open: a.state === 'open', critical: a.severity === 'critical', at: Date.parse(a.raised_at) })),
    tasks: taskRows.map((t) => ({ tenant: t.tenant_id, site: t.site_id, open: OPEN_TASK(t.status), at: Date.parse(t.created_at) })),
    beats: beats.map((b) => ({ tenant: b.tenant_id, site: b.site_id, at: Date.parse(b.at), interval: Number(b.interval_ms), rtt: b.rtt_ms === null ? null : Number(b.rtt_ms) })),
    points: tele.map((p) => ({ tenant: p.tenant_id, site: p.site_id, at: Date.parse(p.bucket), points: Number(p.points) })),
    sites, firstBeat, tenants,
  };
}

/** Uptime percent of each site with heartbeats in the window, and the mean round trip. */
export function siteHealth(f: Facts, windowMs: number, filter: (tenant: string, site: string) => boolean = () => true, now = Date.now()) {
  const from = now - windowMs;
  const bySite = new Map<string, { covered: number; rtts: number[]; start: number }>();
  for (const b of f.beats) {
    if (b.at < from || !filter(b.tenant, b.site)) continue;
    const k = siteKey(b.tenant, b.site);
    let s = bySite.get(k);
    if (!s) bySite.set(k, (s = { covered: 0, rtts: [], start: Math.max(from, f.firstBeat.get(k) ?? from) }));
    s.covered += b.interval;
    if (b.rtt !== null) s.rtts.push(b.rtt);
  }
  const uptimes: number[] = [];
  const rtts: number[] = [];
  for (const s of bySite.values()) {
    const span = now - s.start;
    // A heartbeat covers the interval it starts, so one just received counts as up.
    uptimes.push(span <= 0 ? 100 : Math.min(100, (100 * s.covered) / Math.max(span, 1)));
    rtts.push(...s.rtts);
  }
  const mean = (xs: number[]) => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : null);
  return { uptime_percent: mean(uptimes), average_latency_ms: mean(rtts), sites: bySite.size, samples: rtts.length };
}

export function metricRows(f: Facts, config: Pick<Config, 'mode' | 'industry'>, now = Date.now()): MetricRow[] {
  const industryOf = new Map(f.sites.map((s) => [siteKey(s.tenant_id, s.site_id), s.industry_code]));
  const fallback = config.mode === 'edge-single' ? config.industry : null;
  const ind = (tenant: string | null, site: string | null) => industryOf.get(siteKey(tenant, site)) ?? fallback;
  const groups = new Set<string>();
  const group = (tenant: string, industry: string | null) => `${tenant}\n${industry ?? ''}`;
  for (const t of f.tenants) groups.add(group(t, fallback));
  for (const s of f.sites) groups.add(group(s.tenant_id, s.industry_code ?? fallback));
  const computed_at = new Date(now).toISOString();
  const rows: MetricRow[] = [];
  // In the order of tenant and industry, as rollups.ts gives them.
  const byTenant = (a: string, b: string) => { const [ta, ia] = a.split('\n') as [string, string]; const [tb, ib] = b.split('\n') as [string, string]; return ta === tb ? ia.localeCompare(ib) : ta.localeCompare(tb); };
  for (const g of [...groups].sort(byTenant)) {
    const [tenant, industryText] = g.split('\n') as [string, string];
    const industry = industryText || null;
    const inGroup = (t: string | null, s: string | null) => t === tenant && ind(t, s) === industry;
    for (const [window, ms] of Object.entries(WINDOWS) as [WindowName, number][]) {
      const from = now - ms;
      const al = f.alarms.filter((a) => inGroup(a.tenant, a.site) && a.at >= from);
      const tk = f.tasks.filter((t) => inGroup(t.tenant, t.site) && t.at >= from);
      const pts = f.points.filter((p) => inGroup(p.tenant, p.site) && p.at >= from);
      const health = siteHealth(f, ms, (t, s) => inGroup(t, s), now);
      const pending = f.sites.filter((s) => inGroup(s.tenant_id, s.site_id));
      const values: Record<MetricName, [number | null, number]> = {
        open_alarms: [al.filter((a) => a.open).length, al.length],
        alarms_raised: [al.length, al.length],
        open_tasks: [tk.filter((t) => t.open).length, tk.length],
        uptime_percent: [health.uptime_percent, health.sites],
        average_latency_ms: [health.average_latency_ms, health.samples],
        telemetry_points: [pts.reduce((n, p) => n + p.points, 0), pts.length],
        sync_pending: [pending.reduce((n, s) => n + Number(s.reported_pending), 0), pending.length],
      };
      for (const metric of METRICS) {
        const [value, samples] = values[metric];
        rows.push({ id: `${tenant}:${industry ?? '-'}:${metric}:${window}`, tenant_id: tenant, industry_code: industry, metric, window, value, unit: UNITS[metric], samples, computed_at });
      }
    }
  }
  return rows;
}

export function summary(f: Facts, config: Pick<Config, 'mode' | 'industry'>, now = Date.now()) {
  const industries = new Set<string>();
  for (const s of f.sites) if (s.industry_code) industries.add(s.industry_code);
  if (config.mode === 'edge-single') industries.add(config.industry);
  const health = siteHealth(f, WINDOWS['24h'], undefined, now);
  return {
    tenants_count: f.tenants.size,
    industries_count: industries.size,
    average_uptime_percent: health.uptime_percent,
    average_latency_ms: health.average_latency_ms,
    open_alarms_total: f.alarms.filter((a) => a.open).length,
    open_tasks_total: f.tasks.filter((t) => t.open).length,
    window: '24h',
    sites_reporting: health.sites,
    computed_at: new Date(now).toISOString(),
  };
}
