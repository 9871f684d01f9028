// Reading pipeline benchmark: `npx tsx bench/readings-pipeline.ts [points] [units] [concurrency] [rounds]`.
// Not a test: prints figures only. A real server (SQLite file, or PostgreSQL with
// CABINET_TEST_PG_URL; cloud-multi, so both industries are served) holds `units` broiler flocks
// and `units` swine rooms; `points` readings of each industry go through HTTP
// (poultry-climate/commands/telemetry, swine-climate/commands/telemetry: auth, validation, what
// is in force, judgement by band and rules, the rule engine, the INSERT), every 50th reading out
// of norm so rules go pending/raised and clear. Beside them, the raw INSERT of the same number of
// rows of each table, one per transaction, through the same database handle: the floor a reading
// costs. The ratio is the figure. Also the poultry pipeline called in process, one reading at a
// time (its cost without the HTTP kit), and the HTTP floor: the same client against a bare Node
// server that answers the same envelope at once (what the transport alone costs on this machine).
//
// The phases run interleaved in `rounds` slices (HTTP, raw, ... per slice), so a change of load on
// a shared machine during the run weighs on every figure alike instead of on one phase.
// The client: BENCH_CLIENT=http (default; node:http with a keep-alive agent, the lighter client)
// or fetch (undici, as the first version of this benchmark used; it costs about twice as much per
// request in this process). Where it runs: BENCH_CLIENT_PLACE=process (default since 2026-11-27: a
// child process, bench/lib/reading-client.ts, so the server's process spends its CPU on the server
// alone, as with real senders) or inprocess (the client shares the server's event loop and CPU,
// as all figures before 2026-11-27 did). The HTTP floor uses the same client in the same place.
// BENCH_PROFILE=dir writes a CPU profile of the server process for each HTTP phase (poultry,
// swine and the kit floor, each round) into dir: the server's work alone, without start-up or the raw INSERT.
import { randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { createTestEnv } from '../test/helpers/server.js';
import { tableOf } from '../src/db/sql.js';
import { readingRecord, type ReadingRow } from '../src/modules/poultry/climate-schema.js';
import { ingestClimate } from '../src/modules/poultry/climate.js';
import { climateRecord as swineRecord, type ClimateRow as SwineRow } from '../src/modules/swine/climate.js';
import { groupCommits } from '../src/db/group-commit.js';
import { readBodyText } from '../src/kernel/body.js';
import { timeId } from '../src/kernel/ids.js';
import { createApp } from '../src/app.js';
import { createAccessGuards } from '../src/auth/guard.js';
import { MODULES } from '../src/modules/index.js';
import type { Services } from '../src/kernel/context.js';
import { readingClient, type Kind, type Setup } from './lib/reading-client.js';

const POINTS = Number(process.argv[2] ?? 3000);
const UNITS = Number(process.argv[3] ?? 8);
const CONCURRENCY = Number(process.argv[4] ?? 8);
const ROUNDS = Number(process.argv[5] ?? 10);
const CLIENT = process.env.BENCH_CLIENT === 'fetch' ? 'fetch' : 'http';
const PLACE = process.env.BENCH_CLIENT_PLACE === 'inprocess' ? 'inprocess' : 'process';
const dialect = process.env.CABINET_TEST_PG_URL ? 'postgres' : 'sqlite';
const PROFILE = process.env.BENCH_PROFILE;

const perSec = (n: number, ms: number) => (n / (ms / 1000)).toFixed(0);

type Drive = (base: string, kind: Kind, from: number, to: number) => Promise<{ ms: number; notOk: number }>;

/** The load client, in this process or in a child process of its own. */
async function loadClient(setup: Setup): Promise<{ drive: Drive; close(): void }> {
  if (PLACE === 'inprocess') return readingClient(setup);
  const child = fork(join(import.meta.dirname, 'lib', 'reading-client.ts'), [JSON.stringify(setup)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`load client exited with ${code}`)));
  });
  let id = 0;
  const waiting = new Map<number, (m: { ms: number; notOk: number; error?: string }) => void>();
  child.on('message', (m: { id: number; ms: number; notOk: number; error?: string }) => waiting.get(m.id)?.(m));
  return {
    drive: (base, kind, from, to) => new Promise((resolve, reject) => {
      const n = ++id;
      waiting.set(n, (m) => {
        waiting.delete(n);
        if (m.error) reject(new Error(m.error));
        else resolve({ ms: m.ms, notOk: m.notOk });
      });
      child.send({ id: n, base, kind, from, to });
    }),
    close: () => child.send('stop'),
  };
}

/** A Node server that reads the body and answers a telemetry-sized envelope at once: the transport's floor. */
async function bareServer() {
  const answer = JSON.stringify({ item: { house_id: 'H0', batch_id: 'B1', site_id: 's1', ts: new Date().toISOString(), current_age_days: 10, age_phase_id: 'd08-14', profile_id: randomUUID(), version_id: 1, target_temp_c: 29, temp: 28, humidity: 62, co2: 1500, nh3: 8, ventilation: 30, status: 'ok', out_of_norm_flags: [], alarms: [] }, meta: { request_id: randomUUID() } });
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => { body += chunk; });
    req.on('end', () => {
      JSON.parse(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * The same answer from a Hono app on @hono/node-server (what the kit is built on), the body read
 * from the Node request as the kit reads it (c.req.json() would build a web Request and stream
 * around it, which the kit avoids): the framework's floor.
 */
async function bareHono() {
  const app = new Hono();
  app.post('/api/v1/poultry-climate/commands/telemetry', async (c) => {
    JSON.parse(await readBodyText(c, 1 << 20));
    return c.json({ item: { house_id: 'H0', batch_id: 'B1', site_id: 's1', ts: new Date().toISOString(), current_age_days: 10, age_phase_id: 'd08-14', profile_id: randomUUID(), version_id: 1, target_temp_c: 29, temp: 28, humidity: 62, co2: 1500, nh3: 8, ventilation: 30, status: 'ok', out_of_norm_flags: [], alarms: [] }, meta: { request_id: randomUUID() } });
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * The kit's floor: the poultry telemetry route as the server mounts it (the same app middleware,
 * module gate, session check, security log entry, body reading and validation, envelope), on the
 * server's services, with a handler that answers the same item at once instead of running the
 * pipeline. What the kit and auth cost a reading is this less the Hono floor.
 */
async function kitFloor(services: Services) {
  const path = '/api/v1/poultry-climate/commands/telemetry';
  const real = MODULES.flatMap((m) => m.routes).find((r) => r.method === 'post' && r.path === path);
  if (!real) throw new Error(`no route ${path}`);
  const item = { house_id: 'H0', batch_id: 'B1', site_id: 's1', ts: new Date().toISOString(), current_age_days: 10, age_phase_id: 'd08-14', profile_id: randomUUID(), version_id: 1, target_temp_c: 29, temp: 28, humidity: 62, co2: 1500, nh3: 8, ventilation: 30, status: 'ok', out_of_norm_flags: [], alarms: [] };
  const poultry = MODULES.find((m) => m.id === 'poultry')!;
  const app = createApp(services, [{ ...poultry, routes: [{ ...real, handler: async () => item }] }], createAccessGuards(services, () => services.security));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function main() {
  const env = await createTestEnv(dialect);
  const server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', log_level: 'warn', alarm_escalation_interval_ms: '3600000' });
  const token = await env.token(server, { subject: 'bench', role: 'admin', scope_type: 'tenant', tenant_id: 't1', site_id: 's1' });
  const t0 = Date.now() - 2 * POINTS * 1000;
  const http = await loadClient({ token, concurrency: CONCURRENCY, units: UNITS, t0, client: CLIENT });
  // The same series of readings for the raw rows and the in-process pipeline.
  const series = readingClient({ token, concurrency: 1, units: UNITS, t0, client: CLIENT });
  const { ts, hot } = series;
  const bare = await bareServer();
  const hono = await bareHono();
  const kit = await kitFloor(server.services);
  const db = server.services.db;
  const raw = async <R>(table: Parameters<typeof tableOf>[0], rows: R[]) => {
    const began = performance.now();
    for (const row of rows) await db.transaction(async () => db.orm.insert(tableOf(table, db)).values(row as never));
    return performance.now() - began;
  };
  try {
    const start = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    for (let h = 0; h < UNITS; h++) {
      const res = await fetch(`${server.url}/api/v1/poultry-flock/commands/place`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ house_id: `H${h}`, batch_id: 'B1', subtype: 'broiler', start_date: start }) });
      if (res.status >= 300) throw new Error(`place: ${res.status} ${await res.text()}`);
    }
    const now = new Date().toISOString();
    // Ids as the pipelines make them (time-ordered, src/kernel/ids.ts), so the raw rows are the same rows.
    const poultryRow = (i: number): ReadingRow => ({
      id: timeId(), tenant_id: 't1', site_id: 's1', house_id: `H${i % UNITS}`, batch_id: 'B1', ts: ts(i),
      age_days: 10, age_phase_id: 'd08-14', profile_id: null, temp: 28, humidity: 62, co2: 1500, nh3: 8, ventilation: 30, status: 'ok', out_of_norm_flags: [], source: 'api',
    });
    const swineRow = (i: number): SwineRow => ({
      id: timeId(), tenant_id: 't1', site_id: 's1', room_id: `R${i % UNITS}`, pen_id: null, batch_id: null, category: null, phase_id: 'weaner-early',
      avg_weight_kg: 8, age_days: null, temp_c: 27, humidity_pct: 60, nh3_ppm: 8, co2_ppm: 1800, ventilation_pct: null,
      targets: { temp_min_c: 26, temp_max_c: 28 }, targets_source: 'default', status: 'ok', out_of_norm_flags: [], alarm_ids: [], source: 'api', ts: ts(i), received_at: now,
    });
    // The pipeline alone, in process (no HTTP, auth or validation), on readings of its own time range.
    const who = { tenant: 't1', actor: 'bench', correlation_id: 'bench' };
    const inProcess = async (from: number, to: number) => {
      const began = performance.now();
      for (let i = from; i < to; i++) await ingestClimate(server.services, who, { house_id: `H${i % UNITS}`, ts: ts(POINTS + i), temp: hot(i) ? 33 : 28, humidity: 62, co2: 1500, nh3: 8, ventilation: 30 }, 'api');
      return performance.now() - began;
    };

    const commitsBefore = groupCommits(db);
    const sum = { poultry: 0, poultryNotOk: 0, poultryRaw: 0, swine: 0, swineNotOk: 0, swineRaw: 0, floor: 0, hono: 0, kit: 0, inProc: 0 };
    // The server process's CPU time per phase as well: with the client in a child process it is
    // the server's alone, a figure the load of a shared machine moves less than the throughput.
    const cpu = { poultry: 0, poultryRaw: 0, swine: 0, swineRaw: 0, floor: 0, hono: 0, kit: 0 };
    const inspector = PROFILE ? new Session() : undefined;
    if (inspector) {
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
    }
    let round = 0;
    const timed = async <T>(k: keyof typeof cpu, f: () => Promise<T>) => {
      const profiled = inspector && (k === 'poultry' || k === 'swine' || k === 'kit');
      if (profiled) await inspector.post('Profiler.start');
      const c0 = process.cpuUsage();
      const out = await f();
      const c = process.cpuUsage(c0);
      if (profiled) writeFileSync(join(PROFILE!, `${k}-${round}.cpuprofile`), JSON.stringify((await inspector.post('Profiler.stop')).profile));
      cpu[k] += (c.user + c.system) / 1000;
      return out;
    };
    for (let r = 0; r < ROUNDS; r++, round++) {
      const from = Math.floor((r * POINTS) / ROUNDS);
      const to = Math.floor(((r + 1) * POINTS) / ROUNDS);
      const p = await timed('poultry', () => http.drive(server.url, 'poultry', from, to));
      sum.poultry += p.ms;
      sum.poultryNotOk += p.notOk;
      sum.poultryRaw += await timed('poultryRaw', () => raw(readingRecord.table, Array.from({ length: to - from }, (_, k) => poultryRow(from + k))));
      const s = await timed('swine', () => http.drive(server.url, 'swine', from, to));
      sum.swine += s.ms;
      sum.swineNotOk += s.notOk;
      sum.swineRaw += await timed('swineRaw', () => raw(swineRecord.table, Array.from({ length: to - from }, (_, k) => swineRow(from + k))));
      sum.floor += (await timed('floor', () => http.drive(bare.url, 'poultry', from, to))).ms;
      sum.hono += (await timed('hono', () => http.drive(hono.url, 'poultry', from, to))).ms;
      sum.kit += (await timed('kit', () => http.drive(kit.url, 'poultry', from, to))).ms;
      sum.inProc += await inProcess(from, to);
    }
    const rawBoth = (sum.poultryRaw + sum.swineRaw) / 2;
    const commits = groupCommits(db) - commitsBefore;
    console.log(`reading pipeline on ${dialect}${dialect === 'postgres' ? '' : ' (file)'}; ${POINTS} readings per industry over ${UNITS} units, ${CONCURRENCY} concurrent ${CLIENT} clients (${PLACE === 'process' ? 'in a child process' : 'in the server\'s process'}), ${ROUNDS} interleaved rounds, Node ${process.version}`);
    console.log(`  readings stored in ${commits} commits (${(3 * POINTS / Math.max(1, commits)).toFixed(2)} readings per commit, HTTP and in process)`);
    console.log(`  HTTP floor (bare Node server, same client and bodies): ${perSec(POINTS, sum.floor)} requests/s; ratio to the raw INSERT ${(rawBoth / sum.floor).toFixed(2)}x`);
    console.log(`  Hono floor (a Hono app on @hono/node-server, same answer, body read as the kit reads it): ${perSec(POINTS, sum.hono)} requests/s; ratio to the raw INSERT ${(rawBoth / sum.hono).toFixed(2)}x`);
    console.log(`  kit floor (the poultry route, kit and auth, answering at once without the pipeline): ${perSec(POINTS, sum.kit)} requests/s; ratio to the raw INSERT ${(rawBoth / sum.kit).toFixed(2)}x`);
    console.log(`  poultry pipeline in process, one at a time (no HTTP): ${perSec(POINTS, sum.inProc)} readings/s; ratio to the raw INSERT ${(sum.poultryRaw / sum.inProc).toFixed(2)}x`);
    for (const [name, ms, notOk, rawMs] of [['poultry', sum.poultry, sum.poultryNotOk, sum.poultryRaw], ['swine', sum.swine, sum.swineNotOk, sum.swineRaw]] as const) {
      console.log(`  ${name}: through HTTP ${perSec(POINTS, ms)} readings/s (${notOk} not ok); raw INSERT of the same rows ${perSec(POINTS, rawMs)} rows/s; ratio ${(rawMs / ms).toFixed(2)}x`);
    }
    const perRow = (ms: number) => `${(ms / POINTS).toFixed(3)} ms`;
    const every = Number(process.env.BENCH_OUT_OF_NORM_EVERY ?? 50);
    console.log(`  swine / poultry, server CPU per reading: ${(cpu.swine / cpu.poultry).toFixed(2)}x (${every > 0 ? `every ${every}th reading out of norm` : 'no reading out of norm'}, BENCH_OUT_OF_NORM_EVERY)`);
    console.log(`  server process CPU per reading${PLACE === 'inprocess' ? ' (the client\'s included: it runs in this process)' : ''}: poultry ${perRow(cpu.poultry)} against ${perRow(cpu.poultryRaw)} per raw INSERT (${(cpu.poultryRaw / cpu.poultry).toFixed(2)}x), swine ${perRow(cpu.swine)} against ${perRow(cpu.swineRaw)} (${(cpu.swineRaw / cpu.swine).toFixed(2)}x); the bare server (HTTP floor) ${perRow(cpu.floor)}, the Hono floor ${perRow(cpu.hono)}, the kit floor ${perRow(cpu.kit)}`);
  } finally {
    http.close();
    series.close();
    await bare.close();
    await hono.close();
    await kit.close();
    await env.cleanup();
  }
}

await main();
