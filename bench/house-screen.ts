// Benchmark (not a test): run with `npx tsx bench/house-screen.ts [rounds] [houses]` (defaults 15, 4).
// The web shell in Debian's Chromium against the real server on loopback (SQLite in a temp dir,
// the shell built from src/ui), with `houses` houses of a 20-day flock, a climate reading every
// 2 hours of the batch and every 10 s over the last 10 minutes, feed and water lines. Prints:
//   - the first house card after a reload of a logged-in tablet (performance mark
//     cabinet:first-house-card, from the navigation's start), p50/min/max over `rounds`;
//   - the same reload with the tablet's offline copy of the flock list removed first, so that the
//     shell does not ask for the lists at start-up (the order of requests before that change);
//   - the first house card from cold: a new browser context each round (empty HTTP cache, no
//     service worker, no local storage), only the session cookie carried over;
//   - the same-run baseline: the raw API lists the cards are built from, fetched in parallel by
//     the page itself (what the data alone costs, no shell);
//   - bytes transferred per screen (the resource timing's transferSize; API answers are never
//     cached): the workspace from cold and after a reload, and the house screen reached by a tap.
import { launch, rfidLogin } from '../test/e2e/browser.js';
import { createTestEnv } from '../test/helpers/server.js';
import { clientAs } from '../test/helpers/client.js';

const [roundsArg, housesArg] = process.argv.slice(2);
const ROUNDS = Number(roundsArg ?? 15);
const HOUSES = Number(housesArg ?? 4);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10);

// @ts-expect-error a plain ESM script without type declarations
const { ensureUiBuilt } = (await import('../src/ui/build-ui.mjs')) as { ensureUiBuilt(o?: { quiet?: boolean }): Promise<unknown> };
await ensureUiBuilt({ quiet: true });
const env = await createTestEnv('sqlite');
const server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', log_level: 'error', alarm_escalation_interval_ms: '3600000' });
const master = await clientAs(env, server);
const farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
const card = (await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Bench', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 120, card_uid: '04F0000001' })).body.item.credential as string;

const t0 = performance.now();
for (let h = 1; h <= HOUSES; h++) {
  await farm.post('/api/v1/poultry-flock/commands/place', { house_id: String(h), batch_id: `B${h}`, subtype: 'broiler', start_date: daysAgo(20), birds_placed: 20_000 });
  const placed = Date.parse(`${daysAgo(20)}T00:00:00Z`);
  const at: number[] = [];
  for (let ts = placed + HOUR; ts < Date.now() - 11 * 60_000; ts += 2 * HOUR) at.push(ts);
  for (let ts = Date.now() - 10 * 60_000; ts < Date.now() - 5_000; ts += 10_000) at.push(ts);
  for (const ts of at) await farm.post('/api/v1/poultry-climate/commands/telemetry', { house_id: String(h), ts: new Date(ts).toISOString(), temp: 25 + Math.sin(ts / HOUR), humidity: 60, co2: 1500, nh3: 6, ventilation: 30 });
  for (let d = 3; d >= 0; d--) {
    const ts = d === 0 ? Date.now() - 60_000 : Date.parse(`${daysAgo(d)}T23:00:00Z`);
    await farm.post('/api/v1/poultry-feedwater/commands/ingest', { house_id: String(h), batch_id: `B${h}`, birds: 20_000, age_days: 20 - d, water_counter_l: 10_000 + (3 - d) * 4_000, feed_counter_kg: 5_000 + (3 - d) * 2_000, pressure_bar: 2.5, ts: new Date(ts).toISOString() });
  }
}
console.log(`data: ${HOUSES} houses, ${((performance.now() - t0) / 1000).toFixed(1)} s to load through the API`);

const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
await rfidLogin(page, server.url, card);
await page.locator('#houses li').first().waitFor();

const mark = `(() => { const m = performance.getEntriesByName('cabinet:first-house-card')[0]; return m ? m.startTime : null; })()`;
const bytes = `performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).reduce((n, e) => n + (e.transferSize || 0), 0)`;
const waitMark = async (p: typeof page) => {
  for (let i = 0; i < 400; i++) {
    const v = (await p.evaluate(mark)) as number | null;
    if (v !== null) return v;
    await p.waitForTimeout(10);
  }
  throw new Error('no first house card');
};
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${s[Math.floor(s.length / 2)]!.toFixed(0)} ms (min ${s[0]!.toFixed(0)}, max ${s[s.length - 1]!.toFixed(0)})`;
};

// The lists the cards are built from, as the shell asks for them (src/ui/src/screens/Poultry.tsx loadHouses).
const lists = [
  'poultry-flock/list?limit=200&status=active', 'poultry-climate/list?limit=200&age_mode=active', 'poultry-feedwater/list?limit=200&state=published',
  'poultry-alarms/list?limit=200&status=active', 'poultry-climate-readings/list?limit=60&sort=ts&order=desc',
];
const rawFetch = `(async () => { const t = performance.now(); await Promise.all(${JSON.stringify(lists)}.map((p) => fetch('/api/v1/' + p, { cache: 'no-store' }).then((r) => r.text()))); return performance.now() - t; })()`;

const reload: number[] = [];
const raw: number[] = [];
let reloadBytes = 0;
for (let i = 0; i < ROUNDS; i++) {
  await page.reload();
  reload.push(await waitMark(page));
  await page.waitForTimeout(300);
  reloadBytes = (await page.evaluate(bytes)) as number;
  raw.push((await page.evaluate(rawFetch)) as number);
}

// BENCH_TIMELINE=1: where the last reload's time went (each request's start and end, from the navigation's start).
if (process.env.BENCH_TIMELINE) {
  const rows = (await page.evaluate(`performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).map((e) => [Math.round(e.startTime), Math.round(e.responseEnd), e.transferSize, e.name.replace(location.origin, '')])`)) as [number, number, number, string][];
  for (const [a, b, n, name] of rows.sort((x, y) => x[0] - y[0])) console.log(`  ${String(a).padStart(5)} -> ${String(b).padStart(5)} ms ${String(n).padStart(7)} B  ${name.slice(0, 110)}`);
  console.log(`  domContentLoaded ${Math.round((await page.evaluate(`performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd`)) as number)} ms, mark ${reload[reload.length - 1]!.toFixed(0)} ms`);
}

// The same reload without the start-up lists: the tablet's offline copy of the flock list removed
// first, so the shell asks for the lists only once the session is known (as before this change).
const unprimed: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  await page.evaluate(`localStorage.removeItem('cabinet.c./api/v1/poultry-flock/list?limit=200&status=active')`);
  await page.reload();
  unprimed.push(await waitMark(page));
  await page.waitForTimeout(300);
}

const cookies = await context.cookies();
const cold: number[] = [];
let coldBytes = 0;
for (let i = 0; i < ROUNDS; i++) {
  const c = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await c.addCookies(cookies);
  const p = await c.newPage();
  await p.goto(server.url);
  cold.push(await waitMark(p));
  await p.waitForTimeout(300);
  coldBytes = (await p.evaluate(bytes)) as number;
  await c.close();
}

// The house screen reached by a tap, from a loaded workspace: what the tap costs in bytes.
await page.reload();
await waitMark(page);
await page.waitForTimeout(300);
const before = (await page.evaluate(bytes)) as number;
const tapped = performance.now();
await page.locator('#houses li[data-house="1"] a').click();
await page.locator('[data-chart="climate-temp"] canvas').waitFor();
const houseMs = performance.now() - tapped;
await page.waitForTimeout(500);
const houseBytes = ((await page.evaluate(bytes)) as number) - before;
const houseRequests = (await page.evaluate(`performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/v1/poultry')).length`)) as number;

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`first house card after a reload        ${stats(reload)}`);
console.log(`  the same without the start-up lists  ${stats(unprimed)}`);
console.log(`first house card from cold             ${stats(cold)}`);
console.log(`baseline: the cards' raw API lists     ${stats(raw)} (${lists.length} lists in parallel, from the page)`);
console.log(`bytes: workspace from cold             ${kb(coldBytes)}`);
console.log(`bytes: workspace after a reload        ${kb(reloadBytes)}`);
console.log(`house screen by a tap                  ${houseMs.toFixed(0)} ms to the first chart, ${kb(houseBytes)} (poultry API requests on the page so far: ${houseRequests})`);
await browser.close();
await env.cleanup();
process.exit(0);
