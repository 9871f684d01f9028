import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';
const TOTAL = Number(process.argv[2] ?? 60000);
const dir = mkdtempSync(join(tmpdir(), 'cabinet-prof-'));
const config = loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', log_level: 'error' }, {});
const server = await startServer(config, { log: createLogger('error') });
const { services } = server;
const token = (await services.sessions.issue({ subject: 'bench', role: 'operator', scope_type: 'tenant', tenant_id: 'bench' })).token;
const url = `mqtt://127.0.0.1:${services.mqtt!.port}`;
const clients = await Promise.all(Array.from({ length: 4 }, (_, p) => mqtt.connectAsync(url, { username: `dev-${p}`, password: token, reconnectPeriod: 0 })));
const t0 = performance.now();
await Promise.all(clients.map(async (c, p) => {
  const sends: Promise<unknown>[] = [];
  for (let i = p; i < TOTAL; i += 4) {
    sends.push(c.publishAsync(`cabinet/bench/site-1/telemetry/dev-${i % 500}`, JSON.stringify({ metric: process.env.METRIC ?? 'temperature', value: 20 + (i % 100) / 10, latency_ms: i % 50 }), { qos: 1 }));
    if (sends.length >= 1000) await Promise.all(sends.splice(0));
  }
  await Promise.all(sends);
}));
while (services.telemetry!.writer.stats.written < TOTAL) await new Promise((r) => setTimeout(r, 5));
console.log('points/s', Math.round(TOTAL / ((performance.now() - t0) / 1000)));
process.exit(0);
