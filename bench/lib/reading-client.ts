// The load client of bench/readings-pipeline.ts: `concurrency` clients POST climate readings
// (poultry or swine, reading i of a fixed series) and count the answers that are not `ok`. Used in
// the benchmark's own process, or forked as a child process (this file as its entry) so that the
// client's CPU is not the server's: started with fork(), argv[2] is JSON Setup; each message
// { id, base, kind, from, to } is answered { id, ms, notOk }.
import { Agent, request } from 'node:http';

export interface Setup {
  token: string;
  concurrency: number;
  units: number;
  /** Epoch ms of reading 0 (readings are one second apart). */
  t0: number;
  client: 'http' | 'fetch';
}

export type Kind = 'poultry' | 'swine';

/**
 * Every 50th reading, three in a row, is out of norm, so rules go pending or raised and clear.
 * BENCH_OUT_OF_NORM_EVERY=0: none is (the pipelines' own cost, without alarms); another number: every n-th.
 */
const OUT_EVERY = Number(process.env.BENCH_OUT_OF_NORM_EVERY ?? 50);
const hot = (i: number) => OUT_EVERY > 0 && i % OUT_EVERY < 3;

export function readingClient(setup: Setup) {
  const { token, concurrency, units, t0 } = setup;
  const ts = (i: number) => new Date(t0 + i * 1000).toISOString();
  const bodies: Record<Kind, (i: number) => [string, unknown]> = {
    poultry: (i) => ['/api/v1/poultry-climate/commands/telemetry', { house_id: `H${i % units}`, ts: ts(i), temp: hot(i) ? 33 : 28 + (i % 7) / 10, humidity: 62, co2: 1500 + (i % 300), nh3: 8, ventilation: 30 }],
    swine: (i) => ['/api/v1/swine-climate/commands/telemetry', { room_id: `R${i % units}`, avg_weight_kg: 8, ts: ts(i), temp_c: hot(i) ? 32 : 27, humidity_pct: 60, nh3_ppm: 8, co2_ppm: 1800 }],
  };
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const post = setup.client === 'fetch'
    ? async (url: string, body: unknown) => {
      const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, text: await res.text() };
    }
    : (url: string, body: unknown) => new Promise<{ status: number; text: string }>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(url, { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => { out += chunk; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: out }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(text);
    });
  return {
    ts,
    hot,
    /** Readings [from, to) of `kind` to `base`; answers the elapsed ms and how many were not ok. */
    async drive(base: string, kind: Kind, from: number, to: number) {
      let next = from;
      let notOk = 0;
      const began = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < to; i = next++) {
          const [path, body] = bodies[kind](i);
          const res = await post(`${base}${path}`, body);
          if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
          if ((JSON.parse(res.text) as { item: { status: string } }).item.status !== 'ok') notOk++;
        }
      }));
      return { ms: performance.now() - began, notOk };
    },
    close: () => agent.destroy(),
  };
}

// As a child process: drive what the parent asks, one request at a time.
if (process.send && process.argv[2]) {
  const client = readingClient(JSON.parse(process.argv[2]) as Setup);
  process.on('message', (m: { id: number; base: string; kind: Kind; from: number; to: number } | 'stop') => {
    if (m === 'stop') {
      client.close();
      process.exit(0);
    }
    void client.drive(m.base, m.kind, m.from, m.to).then(
      (r) => process.send!({ id: m.id, ...r }),
      (err: Error) => process.send!({ id: m.id, error: err.message }),
    );
  });
  process.send({ ready: true });
}
