// Benchmark (not a test): `npx tsx bench/alarm-bytes.ts [alarms] [idle_s]` (defaults 100, 60).
// What the shell's alarm display costs on the wire: the poultry workspace opened from cold (a new
// browser context: no HTTP cache, no service worker, no local storage; the session cookie only)
// on a box with `alarms` listed alarms (P1 and P2 across four houses, a quarter acknowledged),
// then left open and idle for `idle_s` seconds. Prints the bytes of the whole workspace from cold,
// of its alarm requests alone, and of the alarm requests while idle (transferSize of the resource
// timing; API answers are never cached). Same-run baseline: the raw industry alarm list of the
// same alarms (listed=true), the old shell's own read, fetched once by the page.
// Run against another checkout to compare versions: the script only drives the page.
import { launch, rfidLogin } from '../test/e2e/browser.js';
import { createTestEnv } from '../test/helpers/server.js';
import { clientAs } from '../test/helpers/client.js';

const ALARMS = Number(process.argv[2] ?? 100);
const IDLE_S = Number(process.argv[3] ?? 60);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

// @ts-expect-error a plain ESM script without type declarations
const { ensureUiBuilt } = (await import('../src/ui/build-ui.mjs')) as { ensureUiBuilt(o?: { quiet?: boolean }): Promise<unknown> };
await ensureUiBuilt({ quiet: true });
const env = await createTestEnv('sqlite');
const server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', log_level: 'error', alarm_escalation_interval_ms: '3600000' });
const master = await clientAs(env, server);
const farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
const card = (await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Bench', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 120, card_uid: '04F0000002' })).body.item.credential as string;

for (let h = 1; h <= 4; h++) {
  await farm.post('/api/v1/poultry-flock/commands/place', { house_id: String(h), batch_id: `B${h}`, subtype: 'broiler', start_date: daysAgo(20), birds_placed: 20_000 });
  await farm.post('/api/v1/poultry-climate/commands/telemetry', { house_id: String(h), temp: 25, humidity: 60, co2: 1500, nh3: 6, ventilation: 30 });
}
for (let i = 0; i < ALARMS; i++) {
  const r = await farm.post('/api/v1/industry-alarms/commands/publish', {
    industry_code: 'poultry', unit_id: String((i % 4) + 1), severity: i % 3 ? 'medium' : 'critical', priority: i % 3 ? 'P2' : 'P1', metric: 'temp', value: 30 + (i % 5),
    title: `House ${(i % 4) + 1}: temperature above the limit (${i})`, message: `temp ${30 + (i % 5)} gt 28 for 120 s`, details: { threshold: 28, comparator: 'gt' }, sla_target_sec: 900,
  });
  if (i % 4 === 0) await farm.post('/api/v1/industry-alarms/commands/ack', { id: r.body.item.id });
}

const browser = await launch();
const login = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const first = await login.newPage();
await rfidLogin(first, server.url, card);
const cookies = await login.cookies();

const entries = `performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).map((e) => [e.name.replace(location.origin, ''), e.transferSize || 0, e.startTime])`;
const isAlarm = (name: string) => /alarm/.test(name);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

const c = await browser.newContext({ viewport: { width: 1280, height: 800 } });
await c.addCookies(cookies);
const page = await c.newPage();
await page.goto(server.url);
await page.locator('#houses li').first().waitFor();
await page.locator('#alarm-count').waitFor();
await page.waitForTimeout(2000);
const cold = (await page.evaluate(entries)) as [string, number, number][];
const openedAt = Math.max(...cold.map((e) => e[2]));
await page.waitForTimeout(IDLE_S * 1000);
const after = (await page.evaluate(entries)) as [string, number, number][];
const idle = after.filter((e) => e[2] > openedAt && isAlarm(e[0]));
const baseline = (await page.evaluate(`fetch('/api/v1/industry-alarms/list?listed=true&limit=100&sort=raised_at&order=desc', { cache: 'no-store' }).then((r) => r.text()).then((t) => t.length)`)) as number;

const sum = (xs: [string, number, number][]) => xs.reduce((n, e) => n + e[1], 0);
console.log(`alarms listed                          ${ALARMS}`);
console.log(`bytes: workspace from cold             ${kb(sum(cold))}`);
console.log(`  of which alarm requests              ${kb(sum(cold.filter((e) => isAlarm(e[0]))))} (${cold.filter((e) => isAlarm(e[0])).map((e) => e[0].replace(/\?.*/, '')).join(', ')})`);
console.log(`bytes: alarm requests, ${IDLE_S} s idle      ${kb(sum(idle))} in ${idle.length} requests`);
console.log(`baseline: the raw industry alarm list  ${kb(baseline)} (listed=true, the same alarms, body only)`);
await browser.close();
await env.cleanup();
process.exit(0);
