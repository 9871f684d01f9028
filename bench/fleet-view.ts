// Fleet view benchmark: `npx tsx bench/fleet-view.ts [sqlite|postgres] [sites] [rounds]` (defaults
// postgres 1000 20). Not a test: prints figures only.
//  1. Fills a master with `sites` sites of sites/10 tenants, 12 version policies, module versions
//     reported by nine sites in ten (30 modules each), 3 open alarms per 10 sites (one critical).
//  2. Times sync-sites/list over HTTP: the first read (every site's view is new: one UPDATE per
//     site), then `rounds` reads of a quiet fleet (nothing changed: no write), and
//     tenant-master-sync/list (the tenant records, refreshed with the same batched reads).
//  3. Baseline, same run, same database: the master-owned state read per site, as the tenant
//     records did before (downState per site: three queries each), called in-process.
export {};
process.env.CABINET_TEST_PG_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
const { createTestEnv } = await import('../test/helpers/server.js');
const { downState } = await import('../src/modules/tenant-master-sync/engine/master.js');
const { tableOf } = await import('../src/db/sql.js');
const { syncAlarms, syncSites, syncTenants } = await import('../src/modules/tenant-master-sync/schema.js');
const { versionPolicies } = await import('../src/modules/version-policies/schema.js');

const DIALECT = (process.argv[2] ?? 'postgres') as 'sqlite' | 'postgres';
const SITES = Number(process.argv[3] ?? 1000);
const ROUNDS = Number(process.argv[4] ?? 20);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms (${xs.length} rounds)`;

const env = await createTestEnv(DIALECT);
try {
  const master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', log_level: 'warn' });
  const db = master.services.db;
  const now = new Date().toISOString();
  const tenants = Math.max(1, Math.round(SITES / 10));
  const insert = async (table: Parameters<typeof tableOf>[0], rows: Record<string, unknown>[]) => {
    for (let i = 0; i < rows.length; i += 200) await db.orm.insert(tableOf(table, db)).values(rows.slice(i, i + 200) as never);
  };
  await insert(syncTenants, Array.from({ length: tenants }, (_, t) => ({
    tenant_id: `farm-${t}`, status: 'stopped', mode: 'auto', lag_seconds: 0, pending_up: 0, pending_down: 0, pending: 0, sites: 0, sites_live: 0, events_received: 0, last_seen_at: null, run_requested_at: null, updated_at: now,
  })));
  const modules = Array.from({ length: 30 }, (_, m) => ({ id: `module-${m}`, version: `1.${m % 4}.0`, industry_code: null }));
  await insert(syncSites, Array.from({ length: SITES }, (_, s) => ({
    tenant_id: `farm-${s % tenants}`, site_id: `site-${s}`, id: `site-${s}@farm-${s % tenants}`, passkey_id: `pk-${s}`, industry_code: 'poultry', registered_at: now,
    last_seen_at: s % 20 === 0 ? null : new Date(Date.now() - (s % 7) * 1000).toISOString(), applied_seq: 0, events_received: 0, reported_pending: s % 13 === 0 ? 5 : 0,
    reported_oldest_at: s % 13 === 0 ? now : null, down_revision: null, last_rtt_ms: 12, held: null,
    app_version: s % 10 === 0 ? null : '0.1.0', module_versions: s % 10 === 0 ? null : modules, versions_reported_at: s % 10 === 0 ? null : now,
  })));
  await insert(versionPolicies, Array.from({ length: 12 }, (_, p) => ({
    id: `policy-${p}`, scope: p < 4 ? 'global' : p < 8 ? 'industry' : 'tenant', industry_code: p >= 4 && p < 8 ? 'poultry' : null, tenant_id: p >= 8 ? `farm-${p}` : null,
    module_id: `module-${p}`, allowed_major: 1, min_version: null, max_version: p === 3 ? '1.2.0' : null, pinned_version: null, origin: 'local', updated_by: 'bench', updated_at: now,
  })));
  await insert(syncAlarms, Array.from({ length: Math.round(SITES * 0.3) }, (_, a) => ({
    tenant_id: `farm-${a % tenants}`, alarm_id: `alarm-${a}`, site_id: `site-${a}`, severity: a % 3 === 0 ? 'critical' : 'low', state: 'open', title: 'bench', correlation_id: `c-${a}`,
    raised_at: now, acknowledged_by: null, updated_at: now, priority: null,
  })));
  const token = await env.token(master, {});
  const get = async (path: string) => {
    const t = performance.now();
    const res = await fetch(`${master.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { total?: number; items?: { attention: number }[] };
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
    return { ms: performance.now() - t, body };
  };
  console.log(`${DIALECT}: ${SITES} sites of ${tenants} tenants`);
  const first = await get('/api/v1/sync-sites/list?limit=50');
  console.log(`  sync-sites/list, first read (every view new, ${first.body.total} sites): ${first.ms.toFixed(1)} ms`);
  const quiet: number[] = [];
  for (let i = 0; i < ROUNDS; i++) quiet.push((await get('/api/v1/sync-sites/list?limit=50')).ms);
  console.log(`  sync-sites/list, quiet fleet: ${fmt(quiet)}`);
  const filtered: number[] = [];
  for (let i = 0; i < ROUNDS; i++) filtered.push((await get('/api/v1/sync-sites/list?limit=50&status=stopped')).ms);
  console.log(`  sync-sites/list?status=stopped: ${fmt(filtered)}`);
  const tenantsRead: number[] = [];
  for (let i = 0; i < ROUNDS; i++) tenantsRead.push((await get('/api/v1/tenant-master-sync/list?limit=50')).ms);
  console.log(`  tenant-master-sync/list (batched master state): ${fmt(tenantsRead)}`);
  const sites = (await db.orm.select().from(tableOf(syncSites, db))) as { tenant_id: string; site_id: string; industry_code: string | null }[];
  const baseline: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    for (const s of sites) await downState(db, s);
    baseline.push(performance.now() - t);
  }
  console.log(`  baseline, the master state read per site as before (in-process, no HTTP): ${fmt(baseline)}`);
} finally {
  await env.cleanup();
}
