// Fleet benchmark: `npx tsx bench/fleet.ts [--sites 100,1000] [--masters 1,2,4] [--live-s 15]
// [--outage-min 60,5]`. Not a test: prints figures only. Needs a PostgreSQL server
// (CABINET_TEST_PG_URL, default the local one); each --sites value gets a fresh database.
// N simulated site boxes (test/sync/fleet.ts: protocol clients with their own site credentials,
// a typical site day of telemetry aggregates, status, alarms, audit and heartbeats) sync with K
// `serve --mode cloud-multi` processes on that database, through a round-robin this script does
// (every request to the next process, no stickiness). For each K:
//  1. live: the boxes generate their day in real time and sync every 5 s (sync_interval_ms's
//     default, each at its own phase) for --live-s seconds: push latency at the fleet's real rate;
//  2. catch-up: every site was cut off for --outage-min simulated minutes (its backlog is queued
//     at once), then all reconnect in the same second, the worst case: time until every outbox is
//     empty, events/s, push latency, CPU and I/O of the PostgreSQL processes serving it.
// Baseline, same run, same database: a raw multi-row INSERT of the same catch-up rows into the
// master's inbox (no HTTP, validation or projections), from one connection and from four.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { api, proc, killAll, type Proc } from '../test/sync/procs.js';
import { Recorder, RoundRobin, SimBox, TYPICAL_SITE_DAY, eventsPerDay } from '../test/sync/fleet.js';
import type { WireEvent } from '../src/modules/tenant-master-sync/engine/protocol.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const list = (s: string) => s.split(',').map(Number);
const SITES = list(arg('sites', '100,1000'));
const MASTERS = list(arg('masters', '1,2,4'));
const LIVE_S = Number(arg('live-s', '15'));
// A whole hour for 100 sites; for 1,000 sites a shorter cut (the catch-up is throughput-bound,
// so its time scales with the backlog: the hour is extrapolated from it and labelled so).
const OUTAGE_MIN = list(arg('outage-min', '60,5'));
const PG_URL = process.env.CABINET_TEST_PG_URL && process.env.CABINET_TEST_PG_URL !== 'pglite' ? process.env.CABINET_TEST_PG_URL : 'postgres://postgres@127.0.0.1:5432/test';
const INTERVAL_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- PostgreSQL processes' CPU and I/O

const TICK = 100; // USER_HZ on Linux
function procStat(pid: number): { cpu: number; read: number; write: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpu = (Number(f[11]) + Number(f[12])) / TICK;
    let read = 0;
    let write = 0;
    try {
      const io = readFileSync(`/proc/${pid}/io`, 'utf8');
      read = Number(/read_bytes: (\d+)/.exec(io)?.[1] ?? 0);
      write = Number(/write_bytes: (\d+)/.exec(io)?.[1] ?? 0);
    } catch { /* not readable: CPU only */ }
    return { cpu, read, write };
  } catch {
    return undefined;
  }
}

/**
 * Samples, twice a second, the backends of the benchmark's database and the server's shared
 * writers (WAL writer, checkpointer, background writer; shared with anything else on the
 * server), keeping each process's first and last reading: a backend that ends mid-phase still
 * counts up to its last sample.
 */
class PgSampler {
  private first = new Map<number, { cpu: number; read: number; write: number }>();
  private last = new Map<number, { cpu: number; read: number; write: number }>();
  private shared = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private stats0: Record<string, number> = {};
  constructor(private readonly admin: pg.Client, private readonly dbName: string) {}

  private async pids(): Promise<number[]> {
    const r = await this.admin.query<{ pid: number; datname: string | null }>("select pid, datname from pg_stat_activity where datname = $1 or backend_type in ('walwriter', 'checkpointer', 'background writer')", [this.dbName]);
    for (const x of r.rows) if (x.datname !== this.dbName) this.shared.add(x.pid);
    return r.rows.map((x) => x.pid);
  }

  private async sample(initial: boolean): Promise<void> {
    for (const pid of await this.pids()) {
      const s = procStat(pid);
      if (!s) continue;
      if (!this.first.has(pid)) this.first.set(pid, initial ? s : { cpu: 0, read: 0, write: 0 });
      this.last.set(pid, s);
    }
  }

  private async dbStats(): Promise<Record<string, number>> {
    const d = (await this.admin.query('select xact_commit, blks_read, blks_hit, tup_inserted, tup_updated from pg_stat_database where datname = $1', [this.dbName])).rows[0] as Record<string, string>;
    const w = (await this.admin.query('select wal_bytes from pg_stat_wal')).rows[0] as Record<string, string>;
    return Object.fromEntries([...Object.entries(d), ...Object.entries(w)].map(([k, v]) => [k, Number(v)]));
  }

  async start(): Promise<void> {
    this.first.clear();
    this.last.clear();
    this.stats0 = await this.dbStats();
    await this.sample(true);
    this.timer = setInterval(() => void this.sample(false).catch(() => undefined), 500);
  }

  async stop(): Promise<{ cpu: number; read: number; write: number; sharedCpu: number; sharedWrite: number; db: Record<string, number> }> {
    clearInterval(this.timer);
    await this.sample(false);
    let cpu = 0;
    let read = 0;
    let write = 0;
    let sharedCpu = 0;
    let sharedWrite = 0;
    for (const [pid, end] of this.last) {
      const start = this.first.get(pid)!;
      if (this.shared.has(pid)) {
        sharedCpu += end.cpu - start.cpu;
        sharedWrite += end.write - start.write;
        continue;
      }
      cpu += end.cpu - start.cpu;
      read += end.read - start.read;
      write += end.write - start.write;
    }
    const now = await this.dbStats();
    return { cpu, read, write, sharedCpu, sharedWrite, db: Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - (this.stats0[k] ?? 0)])) };
  }
}

const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + (procStat(p)?.cpu ?? 0), 0);
const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;

// ---------------------------------------------------------------- one fleet size

interface Phase { events: number; seconds: number; rec: Recorder; pg: Awaited<ReturnType<PgSampler['stop']>>; mastersCpu: number; clientCpu: number; load: number }

async function phase(sampler: PgSampler, masters: Proc[], rec: Recorder, run: () => Promise<number>): Promise<Phase> {
  rec.reset();
  const pids = masters.map((m) => m.child!.pid!);
  const m0 = cpuOf(pids);
  const c0 = process.cpuUsage();
  await sampler.start();
  const t0 = performance.now();
  const events = await run();
  const seconds = (performance.now() - t0) / 1000;
  const pgUse = await sampler.stop();
  const c = process.cpuUsage(c0);
  const copy = Object.assign(new Recorder(), { ...rec, pushMs: [...rec.pushMs] });
  return { events, seconds, rec: copy, pg: pgUse, mastersCpu: cpuOf(pids) - m0, clientCpu: (c.user + c.system) / 1e6, load: loadavg()[0]! };
}

function line(label: string, p: Phase): string {
  const cores = (s: number) => (s / p.seconds).toFixed(2);
  const perK = (s: number) => (p.events ? ((s * 1000) / p.events).toFixed(3) : '-');
  return `${label}: ${p.events} events in ${p.seconds.toFixed(1)} s = ${(p.events / p.seconds).toFixed(0)} events/s; push p50 ${p.rec.p(0.5).toFixed(0)} ms, p99 ${p.rec.p(0.99).toFixed(0)} ms `
    + `(${p.rec.pushes} pushes, ${p.rec.failures} requests sent again to the next master, ${p.rec.cycleErrors} cycles failed and retried, ${p.rec.duplicates} duplicates); CPU cores busy: PostgreSQL backends ${cores(p.pg.cpu)}, masters ${cores(p.mastersCpu)}, `
    + `simulated boxes ${cores(p.clientCpu)} (CPU s per 1,000 events: PostgreSQL ${perK(p.pg.cpu)}, masters ${perK(p.mastersCpu)}); PostgreSQL backends read ${mb(p.pg.read)}, wrote ${mb(p.pg.write)}; `
    + `server-wide WAL ${mb(p.pg.db.wal_bytes ?? 0)}, shared writers ${cores(p.pg.sharedCpu)} cores, wrote ${mb(p.pg.sharedWrite)} (shared with other databases); `
    + `${p.pg.db.xact_commit ?? 0} commits, ${p.pg.db.blks_read ?? 0} blocks read / ${p.pg.db.blks_hit ?? 0} hit; load average ${p.load.toFixed(1)}`;
}

async function fleet(n: number, outageMin: number, admin: pg.Client): Promise<void> {
  const dbName = `cabinet_fleet_${randomBytes(5).toString('hex')}`;
  await admin.query(`create database ${dbName}`);
  const url = new URL(PG_URL);
  url.pathname = `/${dbName}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'cabinet-fleet-'));
  const secret = randomBytes(32).toString('hex');
  const db = new pg.Client({ connectionString: url.toString() });
  const sampler = new PgSampler(admin, dbName);
  const lb = new RoundRobin([]);
  const rec = new Recorder();
  const boxes: SimBox[] = [];
  const results: { k: number; live: Phase; catchUp: Phase }[] = [];
  let lastBacklog: WireEvent[] = [];
  let ahead = 0;
  try {
    for (const k of MASTERS) {
      const flags = { mode: 'cloud-multi', data_dir: dataDir, database_url: url.toString() };
      const masters: Proc[] = [];
      for (let i = 0; i < k; i++) masters.push(await proc(`master-${i}`, flags, { secret }));
      await Promise.all(masters.map((m) => m.start()));
      lb.urls = masters.map((m) => m.url);
      if (!boxes.length) {
        await db.connect();
        const token = await masters[0]!.token();
        for (let i = 0; i < n; i += 10) {
          boxes.push(...await Promise.all(Array.from({ length: Math.min(10, n - i) }, async (_, j) => {
            const site = i + j;
            const reg = await api(masters[site % k]!, token, 'POST', '/api/v1/tenant-master-sync/commands/register-site', { tenant_id: `farm-${site % 50}`, site_id: `site-${site}`, industry_code: 'poultry' });
            if (reg.status !== 201) throw new Error(`register-site answered ${reg.status}`);
            return new SimBox(`farm-${site % 50}`, `site-${site}`, reg.body.item.credential as string, lb, rec);
          })));
        }
      } else {
        // Each K starts from empty fleet tables (the sites stay registered, their seq goes on).
        await db.query('truncate sync_inbox, sync_telemetry, sync_heartbeats, sync_alarms');
        await db.query('vacuum analyze');
      }
      // Warm-up: every box logs in (start at one master, complete at the next) and pulls once,
      // 50 at a time: a fleet's first logins are spread over its installation; afterwards a
      // session outlives a master's restart. (A thousand logins at once from one address time
      // out, and a completion retried after a timeout is a failed login: after 20 of them the
      // per-address throttle refuses every login from that address for 10 minutes.)
      for (let i = 0; i < boxes.length; i += 50) {
        await Promise.all(boxes.slice(i, i + 50).map(async (b) => { while (!(await b.cycle().then(() => true, () => false))) await sleep(1_000); }));
      }

      // 1. Live: each box generates in real time and syncs every INTERVAL_MS at its own phase.
      // The simulated clock runs ahead of the real one by the outages simulated so far.
      // Between two K the boxes were not running: their day resumes now, with no backlog.
      let clock = Date.now() + ahead;
      for (const b of boxes) b.skipTo(clock);
      const live = await phase(sampler, masters, rec, async () => {
        const end = Date.now() + LIVE_S * 1000;
        const before = rec.acked;
        await Promise.all(boxes.map(async (b) => {
          await sleep(Math.random() * INTERVAL_MS);
          let from = clock;
          while (Date.now() < end) {
            const now = Date.now() + ahead;
            b.generate(from, now);
            from = now;
            await b.cycleOrBackOff();
            await sleep(Math.max(0, Math.min(end - Date.now(), INTERVAL_MS * (0.8 + Math.random() * 0.4))));
          }
        }));
        return rec.acked - before;
      });
      clock = Date.now() + ahead;

      // 2. Catch-up after every site was cut off for outageMin minutes.
      lastBacklog = [];
      for (const b of boxes) {
        b.generate(clock, clock + outageMin * 60_000);
        lastBacklog.push(...b.outbox);
      }
      ahead += outageMin * 60_000;
      const catchUp = await phase(sampler, masters, rec, async () => {
        const before = rec.acked;
        await Promise.all(boxes.map(async (b) => { while (b.outbox.length) await b.cycleOrBackOff(); }));
        return rec.acked - before;
      });
      results.push({ k, live, catchUp });
      console.log(line(`N=${n} K=${k} live (real-time rate, ${LIVE_S} s)`, live));
      console.log(line(`N=${n} K=${k} catch-up of ${outageMin} min of outage`, catchUp));
      for (const m of masters) await m.stop();
    }

    // Baseline: the last catch-up's rows straight into the inbox, batches of 500, one
    // transaction each; from one connection, then four at once.
    const raw = async (conns: number) => {
      const clients = await Promise.all(Array.from({ length: conns }, async () => { const c = new pg.Client({ connectionString: url.toString() }); await c.connect(); return c; }));
      const now = new Date().toISOString();
      const batches: WireEvent[][] = [];
      for (let i = 0; i < lastBacklog.length; i += 500) batches.push(lastBacklog.slice(i, i + 500));
      const tenant = `raw-${conns}`;
      const t0 = performance.now();
      await Promise.all(clients.map(async (c, ci) => {
        for (let bi = ci; bi < batches.length; bi += conns) {
          const b = batches[bi]!;
          const values: unknown[] = [];
          const rows = b.map((e, i) => {
            values.push(tenant, String(bi), i + 1, e.kind, e.created_at, now, JSON.stringify(e.payload));
            const o = i * 7;
            return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}, $${o + 7})`;
          });
          await c.query('begin');
          await c.query(`insert into sync_inbox (tenant_id, site_id, seq, kind, created_at, received_at, payload) values ${rows.join(', ')}`, values);
          await c.query('commit');
        }
      }));
      const s = (performance.now() - t0) / 1000;
      await Promise.all(clients.map((c) => c.end()));
      return s;
    };
    const one = await raw(1);
    const four = await raw(4);
    const rate = (s: number) => (lastBacklog.length / s).toFixed(0);
    console.log(`N=${n} baseline, raw INSERT of the ${lastBacklog.length} catch-up rows into the inbox: ${rate(one)} rows/s from 1 connection, ${rate(four)} rows/s from 4`);
    const base = results[0]!.catchUp;
    const perEvent = base.events / base.seconds;
    for (const r of results) {
      const eps = r.catchUp.events / r.catchUp.seconds;
      const hour = (r.catchUp.seconds * 60) / outageMin;
      console.log(`N=${n} K=${r.k}: catch-up ${eps.toFixed(0)} events/s = ${(eps / perEvent).toFixed(2)}x K=1, ${(eps / Number(rate(one))).toFixed(2)}x the raw insert from 1 connection; `
        + `an hour's outage of all ${n} sites (${Math.round((n * eventsPerDay(TYPICAL_SITE_DAY)) / 24)} events) catches up in ${hour.toFixed(0)} s${outageMin === 60 ? '' : ` (extrapolated from ${outageMin} min)`}; `
        + `live p99 push ${r.live.rec.p(0.99).toFixed(0)} ms`);
    }
  } finally {
    killAll();
    await db.end().catch(() => undefined);
    await admin.query(`drop database if exists ${dbName} with (force)`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const version = (await admin.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]!.v;
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB; node ${process.version}; PostgreSQL ${version} on the same machine`);
  console.log(`site day: ${eventsPerDay(TYPICAL_SITE_DAY)} events (${Object.entries(TYPICAL_SITE_DAY).filter(([k]) => k !== 'metrics').map(([k, v]) => `${v} ${k}`).join(', ')}; ${TYPICAL_SITE_DAY.metrics} aggregates per telemetry event)`);
  try {
    for (const [i, n] of SITES.entries()) await fleet(n, OUTAGE_MIN[i] ?? OUTAGE_MIN.at(-1)!, admin);
  } finally {
    await admin.end();
  }
}

await main();
process.exit(0);
