// Benchmark (not a test): run with `npx tsx bench/telemetry.ts [points] [points_per_message]`.
// 1. Telemetry points/s published by mqtt.js clients into the embedded broker and stored in
//    SQLite by the batch writer, beside raw better-sqlite3 batched inserts of the same rows into
//    a fresh file with the same schema and pragmas, in the same run.
// 2. Status-event fan-out latency to 200 WebSocket clients (store + bus + WebSocket send),
//    measured from just before publish() to each client's 'message' (same process, same clock).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import mqtt from 'mqtt';
import WebSocket from 'ws';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';
import { toPoint } from '../src/modules/devices/points.js';

const TOTAL = Number(process.argv[2] ?? 100_000);
const PER_MESSAGE = Number(process.argv[3] ?? 1);
const PUBLISHERS = 4;
const WS_CLIENTS = 200;
const FANOUT_EVENTS = 50;

const dir = mkdtempSync(join(tmpdir(), 'cabinet-bench-'));
const config = loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', log_level: 'error' }, {});
const server = await startServer(config, { log: createLogger('error') });
const { services } = server;
const token = (await services.sessions.issue({ subject: 'bench', role: 'operator', scope_type: 'tenant', tenant_id: 'bench' })).token;
const url = `mqtt://127.0.0.1:${services.mqtt!.port}`;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`);

// --- 1a. MQTT -> batch writer -> SQLite -------------------------------------------------------
const payload = (i: number) => {
  const pts = Array.from({ length: PER_MESSAGE }, (_, k) => ({ metric: 'temperature', value: 20 + ((i + k) % 100) / 10, latency_ms: (i + k) % 50 }));
  return JSON.stringify(PER_MESSAGE === 1 ? pts[0] : pts);
};
const clients = await Promise.all(Array.from({ length: PUBLISHERS }, (_, p) => mqtt.connectAsync(url, { username: `dev-${p}`, password: token, reconnectPeriod: 0 })));
const messages = Math.ceil(TOTAL / PER_MESSAGE);
const before = services.telemetry!.writer.stats.written;
const batchesBefore = services.telemetry!.writer.stats.batches;
const t0 = performance.now();
await Promise.all(clients.map(async (c, p) => {
  const sends: Promise<unknown>[] = [];
  for (let i = p; i < messages; i += PUBLISHERS) {
    sends.push(c.publishAsync(`cabinet/bench/site-1/telemetry/dev-${i % 500}`, payload(i), { qos: 1 }));
    if (sends.length >= 1000) await Promise.all(sends.splice(0));
  }
  await Promise.all(sends);
}));
const expected = before + messages * PER_MESSAGE;
while (services.telemetry!.writer.stats.written < expected) await new Promise((r) => setTimeout(r, 5));
const mqttMs = performance.now() - t0;
const mqttBatches = services.telemetry!.writer.stats.batches - batchesBefore;
await Promise.all(clients.map((c) => c.endAsync()));

// --- 1b. raw better-sqlite3, same rows, batched ------------------------------------------------
const now = new Date().toISOString();
const rows = Array.from({ length: messages * PER_MESSAGE }, (_, i) =>
  toPoint({ metric: 'temperature', value: 20 + (i % 100) / 10, latency_ms: i % 50 }, { tenant_id: 'bench', site_id: 'site-1', device_id: `dev-${i % 500}` }, now));
const rawFile = join(dir, 'raw.sqlite');
const raw = new BetterSqlite3(rawFile);
raw.pragma('journal_mode = WAL');
raw.pragma('synchronous = NORMAL');
for (const stmt of readFileSync('drizzle/sqlite/devices/0000_init.sql', 'utf8').split('--> statement-breakpoint')) if (stmt.trim()) raw.exec(stmt);
const cols = ['id', 'tenant_id', 'site_id', 'device_id', 'metric', 'value', 'unit', 'status', 'latency_ms', 'ts', 'received_at'] as const;
const BATCH = config.telemetry_batch_max;
const PER_STMT = Math.floor(30_000 / cols.length);
const insertMany = (n: number) => raw.prepare(`insert into device_telemetry (${cols.join(',')}) values ${Array.from({ length: n }, () => `(${cols.map(() => '?').join(',')})`).join(',')}`);
const full = insertMany(PER_STMT);
const t1 = performance.now();
const write = raw.transaction((batch: typeof rows) => {
  for (let i = 0; i < batch.length; i += PER_STMT) {
    const chunk = batch.slice(i, i + PER_STMT);
    const args = chunk.flatMap((r) => cols.map((c) => r[c]));
    (chunk.length === PER_STMT ? full : insertMany(chunk.length)).run(...args);
  }
});
for (let i = 0; i < rows.length; i += BATCH) write(rows.slice(i, i + BATCH));
const rawMs = performance.now() - t1;
raw.close();

// --- 2. status fan-out to 200 WebSocket clients -------------------------------------------------
const wsToken = (await services.sessions.issue({ subject: 'bench-ws', role: 'operator', scope_type: 'tenant', tenant_id: 'bench' })).token;
const sent = new Map<number, number>();
const latencies: number[] = [];
let received = 0;
const sockets = await Promise.all(Array.from({ length: WS_CLIENTS }, () => new Promise<WebSocket>((resolve, reject) => {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/v1/status/stream?access_token=${wsToken}`);
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { type: string; data?: { id: number } };
    if (msg.type === 'ready') resolve(ws);
    if (msg.type === 'event') {
      const at = sent.get(msg.data!.id);
      if (at !== undefined) latencies.push(performance.now() - at);
      received++;
    }
  });
  ws.on('error', reject);
})));
for (let i = 0; i < FANOUT_EVENTS; i++) {
  const start = performance.now();
  const target = received + WS_CLIENTS;
  const ev = await services.status!.publish({ tenant_id: 'bench', site_id: 'site-1', source: 'bench', event: `e${i}`, status: 'ok' });
  sent.set(ev.id, start);
  while (received < target) await new Promise((r) => setImmediate(r));
}
for (const ws of sockets) ws.close();
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;

await server.close();
rmSync(dir, { recursive: true, force: true });

console.log(`cabinet telemetry benchmark (node ${process.version}, ${process.platform}-${process.arch})`);
line(`MQTT -> batch writer -> SQLite (${fmt(messages * PER_MESSAGE)} points, ${PER_MESSAGE}/message, ${PUBLISHERS} clients, QoS 1)`, `${fmt((messages * PER_MESSAGE) / (mqttMs / 1000))} points/s  (${fmt(mqttMs)} ms, ${mqttBatches} transactions)`);
line(`raw better-sqlite3 batched inserts, same rows (${BATCH}/transaction)`, `${fmt(rows.length / (rawMs / 1000))} points/s  (${fmt(rawMs)} ms)`);
line('MQTT path vs raw inserts', `${((rows.length / (rawMs / 1000)) / ((messages * PER_MESSAGE) / (mqttMs / 1000))).toFixed(1)}x slower`);
line(`status fan-out to ${WS_CLIENTS} WebSocket clients (${FANOUT_EVENTS} events, ${latencies.length} deliveries)`, `p50 ${pct(50).toFixed(2)} ms, p95 ${pct(95).toFixed(2)} ms, max ${pct(100).toFixed(2)} ms`);
process.exit(0);
