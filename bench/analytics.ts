// Fleet analytics benchmark: `npx tsx bench/analytics.ts [sites] [rounds]` (defaults 1000 100).
// Not a test: prints figures only. Rows are inserted in time order, as pushes arrive. Needs a PostgreSQL server (CABINET_TEST_PG_URL, else the local
// one the tests use); a fresh database is made and dropped.
//  1. Fills a simulated year of a fleet in bulk (generate_series, one statement per table):
//     `sites` sites of 50 tenants, a heartbeat and a telemetry aggregate per site every 5 minutes
//     for the last 8 days (the raw rows a window of 7 days reads), day roll-ups for the whole
//     year, and two alarms per site and day for the year (one in 200 still open).
//  2. Times `analytics/summary` and `analytics/metrics/list` over HTTP on the real server, one
//     request at a time (they answer from the snapshot of snapshot.ts while nothing changes), and
//     `auth/me` on the same server as the floor of an HTTP answer.
//  3. A read right after a change, each updating the snapshot before it answers: an alarm raised on
//     the master (HTTP), then the summary and the list; and pushes of 1 and of 25 sites (a heartbeat
//     and a telemetry aggregate each, through the real push route), then the summary and the list.
//  4. Baselines, same run, same database, in-process (no HTTP): the routes' former per-read path
//     (loadFigures from the roll-ups for the summary; loadFigures, the rows and their rewrite for
//     the metrics). The per-read computation from the raw rows (compute.ts) runs only with
//     BENCH_RAW=1: at 1,000 sites it had not finished 10 calls in 29 minutes (docs/figures.md).
import { sql } from 'drizzle-orm';

// Set before the test helpers load: they read it once (the machine's server, as the tests use it).
process.env.CABINET_TEST_PG_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
const { createTestEnv } = await import('../test/helpers/server.js');
const { clientAs, siteClient } = await import('../test/helpers/client.js');
type Client = Awaited<ReturnType<typeof siteClient>>;
const { loadFacts, metricRows, summary } = await import('../src/modules/analytics/compute.js');
const { figureMetricRows, figureSummary, loadFigures } = await import('../src/modules/analytics/rollups.js');
const { analyticsMetrics } = await import('../src/modules/analytics/schema.js');
const { tableOf } = await import('../src/db/sql.js');

const SITES = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 100);
const BASELINE_ROUNDS = 3;
const FORMER_ROUNDS = 20;
const CHANGE_ROUNDS = ROUNDS;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms (${xs.length} rounds)`;

const env = await createTestEnv('postgres');
try {
  const master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', log_level: 'warn' });
  const db = master.services.db;
  const iso = (t: string) => `to_char((${t}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const t0 = Date.now();
  const fill = async (what: string, statement: string) => {
    const t = Date.now();
    await db.exec(statement);
    console.log(`  ${what}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  };
  if (db.engine !== 'postgresql') throw new Error(`needs a PostgreSQL server, got ${db.engine}`);
  console.log(`filling ${SITES} sites (${await db.serverVersion()})`);
  const sites = `generate_series(1, ${SITES}) s`;
  const tenant = `'farm-' || (s % 50)`;
  await fill('sites', `insert into sync_sites select ${tenant}, 'site-' || s, 'pk-' || s, (array['poultry','swine','melioration'])[1 + s % 3], ${iso("now() - interval '1 year'")}, ${iso('now()')}, 0, 0, 0, null, null, 12.5, null from ${sites}`);
  // Each site's beats are offset by a few seconds, as real boxes are.
  const beats = `${sites}, generate_series(now() - interval '8 days', now(), interval '5 minutes') t`;
  const at = `t - (s % 300) * interval '1 second'`;
  await fill('heartbeats, 8 days', `insert into sync_heartbeats select ${tenant}, 'site-' || s, (extract(epoch from t)::bigint / 300), ${iso(at)}, 300000, round((random() * 400)::numeric, 2) from ${beats} order by t`);
  await fill('telemetry aggregates, 8 days', `insert into sync_telemetry select ${tenant}, 'site-' || s, 'fan-1', 'temp', ${iso(`date_trunc('minute', ${at})`)}, 50, 1000, 10, 30, 'online' from ${beats} order by t`);
  const sum = `sum(hb), sum(cov), sum(rs), sum(rc), min(fb), sum(tp), sum(tr)`;
  const raw = `select tenant_id, site_id, at as t, 1 as hb, interval_ms as cov, coalesce(rtt_ms, 0) as rs, 1 as rc, at as fb, 0 as tp, 0 as tr from sync_heartbeats
    union all select tenant_id, site_id, bucket, 0, 0, 0, 0, null, points, 1 from sync_telemetry`;
  for (const [grain, expr] of [['minute', `substr(t, 1, 16) || ':00.000Z'`], ['hour', `substr(t, 1, 13) || ':00:00.000Z'`], ['day', `substr(t, 1, 10) || 'T00:00:00.000Z'`]]) {
    await fill(`${grain} roll-ups, 8 days`, `insert into sync_rollups select tenant_id, site_id, '${grain}', ${expr}, ${sum} from (${raw}) e group by tenant_id, site_id, ${expr} order by 4`);
  }
  const days = `${sites}, generate_series(date_trunc('day', now() - interval '1 year'), date_trunc('day', now()) - interval '9 days', interval '1 day') d`;
  await fill('day roll-ups, the rest of the year', `insert into sync_rollups select ${tenant}, 'site-' || s, 'day', ${iso('d')}, 288, 86400000, 288 * 200.0, 288, ${iso('d')}, 288 * 50, 288 from ${days} order by d`);
  const alarms = `${sites}, generate_series(now() - interval '1 year', now(), interval '12 hours') t`;
  await fill('alarms, 1 year', `insert into sync_alarms select ${tenant}, 'al-' || s || '-' || extract(epoch from t)::bigint, 'site-' || s, case when random() < 0.1 then 'critical' else 'low' end,
    case when random() < 0.005 then 'open' else 'acknowledged' end, 'alarm', 'c', ${iso(`t - (s % 600) * interval '1 minute'`)}, null, ${iso('t')} from ${alarms} order by t`);
  // As autovacuum does after a bulk insert: statistics, and the visibility map index-only scans need.
  await db.exec('vacuum analyze');
  const [counts] = await db.read<Record<string, unknown>>(sql`select (select count(*) from sync_heartbeats) as heartbeats, (select count(*) from sync_telemetry) as telemetry,
    (select count(*) from sync_rollups) as rollups, (select count(*) from sync_alarms) as alarms, pg_size_pretty(pg_database_size(current_database())) as size`);
  console.log(`filled in ${((Date.now() - t0) / 1000).toFixed(0)} s:`, counts);

  const token = await env.token(master);
  const get = async (path: string) => {
    const t = performance.now();
    const res = await fetch(`${master.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.json();
    return performance.now() - t;
  };
  const routes = { summary: '/api/v1/analytics/summary', metrics: '/api/v1/analytics/metrics/list?limit=100', me: '/api/v1/auth/me' };
  for (const path of Object.values(routes)) await get(path);
  const timed: Record<string, number[]> = { summary: [], metrics: [], me: [] };
  for (let i = 0; i < ROUNDS; i++) for (const [name, path] of Object.entries(routes)) timed[name]!.push(await get(path));
  const load = (await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`\n${SITES} sites, a simulated year (load average ${load}):`);
  for (const name of ['summary', 'metrics']) console.log(`  analytics/${name} (snapshot, HTTP):             ${fmt(timed[name]!)}`);
  console.log(`  baseline auth/me (HTTP, same server):          ${fmt(timed.me!)}`);

  // A change, then a read: the read waits for the new snapshot (figures and the rows' rewrite).
  const raise = async () => {
    const res = await fetch(`${master.url}/api/v1/alarms/commands/raise`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ severity: 'low', source: 'rules', title: 'bench' }),
    });
    if (res.status !== 201) throw new Error(`raise: ${res.status} ${await res.text()}`);
  };
  const changed: Record<string, number[]> = { summary: [], metrics: [] };
  for (let i = 0; i < CHANGE_ROUNDS; i++) {
    for (const name of ['summary', 'metrics'] as const) { await raise(); changed[name]!.push(await get(routes[name])); }
  }
  for (const name of ['summary', 'metrics']) console.log(`  analytics/${name} right after a master alarm (HTTP): ${fmt(changed[name]!)}`);

  // Pushes, then a read: the read computes the sites that pushed again, and only them. One site,
  // then 25 at once (at 1,000 sites pushing every minute, a read each second follows ~17 pushes).
  const fleetDesk = await clientAs(env, master);
  const benchSites: { client: Client; seq: number }[] = [];
  // In two of the fleet's tenants, as in the runs docs/figures.md gives.
  for (let i = 0; i < 25; i++) {
    const reg = await fleetDesk.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: i < 10 ? 'farm-12' : 'farm-13', site_id: `bench-site-${i}`, industry_code: 'poultry' });
    if (reg.status !== 201) throw new Error(`register-site: ${reg.status} ${JSON.stringify(reg.body)}`);
    benchSites.push({ client: await siteClient(master.url, reg.body.item.credential as string), seq: 0 });
  }
  const pushOne = async (site: { client: Client; seq: number }) => {
    const at = new Date().toISOString();
    const events = [
      { seq: ++site.seq, kind: 'heartbeat', created_at: at, payload: { at, interval_ms: 300_000, rtt_ms: 120 } },
      { seq: ++site.seq, kind: 'telemetry', created_at: at, payload: { aggregates: [{ device_id: 'fan-1', metric: 'temp', bucket: at.slice(0, 16) + ':00.000Z', points: 50, sum: 1000, min: 10, max: 30, last_status: 'online' }] } },
    ];
    const res = await site.client.post('/api/v1/site-sync/commands/push', { events, remaining: 0 });
    if (res.status !== 200) throw new Error(`push: ${res.status} ${JSON.stringify(res.body)}`);
  };
  for (const count of [1, 25]) {
    const pushed: Record<string, number[]> = { summary: [], metrics: [] };
    for (let i = 0; i < CHANGE_ROUNDS; i++) {
      for (const name of ['summary', 'metrics'] as const) {
        await Promise.all(benchSites.slice(0, count).map(pushOne));
        pushed[name]!.push(await get(routes[name]));
      }
    }
    for (const name of ['summary', 'metrics']) console.log(`  analytics/${name} right after ${count === 1 ? "a site's push" : `${count} sites' pushes`} (HTTP): ${fmt(pushed[name]!)}`);
  }

  // The routes' former path, in-process: every read computed the figures; the list rewrote its rows.
  const former: Record<string, number[]> = { summary: [], metrics: [] };
  for (let i = 0; i < FORMER_ROUNDS; i++) {
    let t = performance.now();
    figureSummary(await loadFigures(db), master.services.config);
    former.summary!.push(performance.now() - t);
    t = performance.now();
    const rows = figureMetricRows(await loadFigures(db), master.services.config);
    await db.transaction(async () => {
      const table = tableOf(analyticsMetrics, db);
      await db.orm.delete(table);
      for (let k = 0; k < rows.length; k += 500) await db.orm.insert(table).values(rows.slice(k, k + 500) as never);
    });
    former.metrics!.push(performance.now() - t);
  }
  for (const name of ['summary', 'metrics']) console.log(`  baseline ${name}: former per-read path (in-process): ${fmt(former[name]!)}`);

  if (process.env.BENCH_RAW === '1') {
    const baseline: Record<string, number[]> = { summary: [], metrics: [] };
    for (let i = 0; i < BASELINE_ROUNDS; i++) {
      let t = performance.now();
      summary(await loadFacts(db), master.services.config);
      baseline.summary!.push(performance.now() - t);
      t = performance.now();
      metricRows(await loadFacts(db), master.services.config);
      baseline.metrics!.push(performance.now() - t);
    }
    for (const name of ['summary', 'metrics']) console.log(`  baseline ${name}: per-read from raw rows (in-process): ${fmt(baseline[name]!)}`);
  }
} finally {
  await env.cleanup();
}
