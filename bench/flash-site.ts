// Benchmark (not a test): what a whole poultry site hands to the box's storage in a day. Run:
// `npx tsx bench/flash-site.ts [houses] [seconds] [requests_per_s]` (defaults 10 60 2).
// The real server (SQLite file, embedded MQTT broker) with `houses` houses, each placed with a
// flock and polled every 10 s from the simulated house controller (`cabinet simulate`'s Modbus TCP
// server, its own adapter profile), while a tablet asks `requests_per_s` API reads a second.
// Measured from /proc/self/io over `seconds` after a warm-up: `write_bytes`, what the kernel sent
// (or will send) to the block device for the process: the WAL, the checkpoints into the database
// file; as bytes per second and GiB a day; beside `wchar`, every write(2) including sockets (the
// HTTP answers, Modbus requests); and the commits of the readings' group commit and of the
// telemetry writer. The
// simulator runs in this process too, but writes nothing. Baseline, same run: the same process
// idle (no houses polled, no tablet) for the same time.
import { createTestEnv } from '../test/helpers/server.js';
import { clientAs } from '../test/helpers/client.js';
import { adapterProfile } from '../src/simulate/profile.js';
import { startTcpServer } from '../src/simulate/server.js';
import { Simulation } from '../src/simulate/simulation.js';
import { groupCommits as groupCommitCount } from '../src/db/group-commit.js';
import { procIo as io, type ProcIo } from './lib/proc-io.js';

const HOUSES = Number(process.argv[2] ?? 10);
const SECONDS = Number(process.argv[3] ?? 60);
const REQUESTS_PER_S = Number(process.argv[4] ?? 2);
const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`);
const minus = (a: ProcIo, b: ProcIo) => ({ disk: a.writeBytes - b.writeBytes, all: a.wchar - b.wchar });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const day = (bytes: number, s: number) => `${((bytes / s) / 1024).toFixed(1)} KiB/s, ${((bytes / s) * 86_400 / 1024 ** 3).toFixed(2)} GiB/day`;

const sim = new Simulation({ houses: HOUSES, age_days: 12, birds: 20_000, speed: 1, seed: 7, noise: 1 });
const simServer = await startTcpServer(sim, '127.0.0.1', 0);
const env = await createTestEnv('sqlite');
const server = await env.start({ mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', rpc_port: 'off', log_level: 'error' });
const master = await clientAs(env, server);
const admin = await clientAs(env, server, { subject: 'site-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tS', site_id: 'farm-s' }, master.contract);
const start = new Date(Date.now() - 12 * 86_400_000).toISOString().slice(0, 10);

// Baseline first: the box with its flocks but nothing polled and nobody reading.
for (let h = 1; h <= HOUSES; h++) {
  const placed = await admin.post('/api/v1/poultry-flock/commands/place', { house_id: `house-${h}`, batch_id: `B${h}`, subtype: 'broiler', start_date: start, birds_placed: 20_000 });
  if (placed.status !== 201) throw new Error(`place house-${h}: ${placed.status} ${JSON.stringify(placed.body)}`);
}
await sleep(10_000); // the placements' commits and checkpoints done
let w0 = io();
await sleep(SECONDS * 1000);
const idleBytes = minus(io(), w0);

for (let h = 1; h <= HOUSES; h++) {
  const created = await admin.post('/api/v1/poultry-adapters', adapterProfile({ house: h, port: simServer.where as number, unit_id: `house-${h}`, poll_period_s: 10 }));
  if (created.status !== 201) throw new Error(`adapter house-${h}: ${created.status} ${JSON.stringify(created.body)}`);
}
let requests = 0;
const tablet = REQUESTS_PER_S > 0 ? setInterval(() => {
  requests++;
  void admin.get('/api/v1/poultry-climate-readings/list?limit=20');
}, 1000 / REQUESTS_PER_S) : undefined;
await sleep(12_000); // every house polled at least once, the first series and states created
const writer = server.services.telemetry!.writer;
const c0 = { group: groupCommitCount(server.services.db), telemetry: writer.stats.batches, points: writer.stats.written };
const readings0 = (await admin.get('/api/v1/poultry-climate-readings/list?limit=1')).body.total as number;
w0 = io();
await sleep(SECONDS * 1000);
const siteBytes = minus(io(), w0);
const readings = ((await admin.get('/api/v1/poultry-climate-readings/list?limit=1')).body.total as number) - readings0;
const commits = { group: groupCommitCount(server.services.db) - c0.group, telemetry: writer.stats.batches - c0.telemetry, points: writer.stats.written - c0.points };
clearInterval(tablet);

line('site', `${HOUSES} houses polled every 10 s, a tablet at ${REQUESTS_PER_S} reads/s (${requests} reads), ${SECONDS} s`);
line('climate readings stored; readings group commits', `${readings}; ${commits.group}`);
line('telemetry points (other polled values); telemetry commits', `${commits.points}; ${commits.telemetry}`);
line('site: to storage (write_bytes)', day(siteBytes.disk, SECONDS));
line('site: to storage per climate reading', `${(siteBytes.disk / Math.max(1, readings) / 1024).toFixed(1)} KiB`);
line('site: every write(2), sockets included (wchar)', day(siteBytes.all, SECONDS));
line('baseline: the same box idle (flocks placed, nothing polled)', `${day(idleBytes.disk, SECONDS)} to storage; ${day(idleBytes.all, SECONDS)} wchar`);
await env.cleanup();
await simServer.close();
process.exit(0);
