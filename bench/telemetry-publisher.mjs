// Publisher process of bench/telemetry.ts: devices are not in the box's process, so their
// mqtt.js clients run here. Connects `clients` clients, waits for 'go' from the parent, publishes
// `messages` QoS 1 messages of `perMessage` points round-robin over 500 device topics, and
// reports 'done' once every PUBACK arrived.
import mqtt from 'mqtt';

// An optional sixth argument paces the publishers to that many messages per second in all
// (bench/soak-reads.ts: a site's steady rate); without it they publish as fast as PUBACKs return.
const [url, token, clientsArg, messagesArg, perMessageArg, rateArg] = process.argv.slice(2);
const RATE = Number(rateArg ?? 0);
const CLIENTS = Number(clientsArg);
const MESSAGES = Number(messagesArg);
const PER_MESSAGE = Number(perMessageArg);
const value = (i) => 20 + (i % 100) / 10;
const payload = (i) => {
  const pts = Array.from({ length: PER_MESSAGE }, (_, k) => ({ metric: 'temperature', value: value(i + k), latency_ms: (i + k) % 50 }));
  return JSON.stringify(PER_MESSAGE === 1 ? pts[0] : pts);
};
const clients = await Promise.all(Array.from({ length: CLIENTS }, (_, p) => mqtt.connectAsync(url, { username: `dev-${p}`, password: token, reconnectPeriod: 0 })));
process.send('ready');
process.once('message', async () => {
  await Promise.all(clients.map(async (c, p) => {
    const sends = [];
    for (let i = p; i < MESSAGES; i += CLIENTS) {
      sends.push(c.publishAsync(`cabinet/bench/site-1/telemetry/dev-${i % 500}`, payload(i), { qos: 1 }));
      if (RATE > 0) await new Promise((resolve) => setTimeout(resolve, (1000 * CLIENTS) / RATE));
      if (sends.length >= 1000) await Promise.all(sends.splice(0));
    }
    await Promise.all(sends);
  }));
  await Promise.all(clients.map((c) => c.endAsync()));
  process.send('done');
});
