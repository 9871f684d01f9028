// The embedded broker's intake budget (src/modules/status/intake-budget.ts) with a real Aedes
// broker and a real mqtt.js client over TCP: a flood is parsed a budget's worth per event-loop
// turn, every message still arrives once and in order, and a packet larger than the whole
// budget (which no single turn's slice can hold) arrives too instead of stalling the client.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { intakeBudget } from '../../src/modules/status/intake-budget.js';

const BUDGET = 1024;

describe('MQTT intake budget', () => {
  let server: Server | undefined;
  let broker: Aedes | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await new Promise<void>((r) => (broker ? broker.close(() => r()) : r()));
  });

  it('parses a budget per turn, delivers every message once and in order, and a packet larger than the budget as well', async () => {
    const budget = intakeBudget(BUDGET);
    let turn = 0;
    const turns = new Set<number>();
    let counting = true;
    const count = () => { turn++; if (counting) setImmediate(count); };
    setImmediate(count);
    const received: string[] = [];
    broker = await Aedes.createBroker({
      authorizePublish: (_client, packet, done) => {
        received.push(packet.payload.toString().slice(0, 12));
        turns.add(turn);
        // Answered later, as the real intake answers after its commit.
        setTimeout(() => done(null), 0);
      },
    });
    server = createServer((socket) => budget.limit(socket, broker!.handle(socket)));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`, { reconnectPeriod: 0 });
    const sent: string[] = [];
    const publishes: Promise<unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      const body = `msg-${String(i).padStart(7, '0')}${'x'.repeat(200)}`;
      sent.push(body.slice(0, 12));
      publishes.push(client.publishAsync('t/a', body, { qos: 1 }));
    }
    const big = `big-${'y'.repeat(5 * BUDGET)}`;
    sent.push(big.slice(0, 12));
    publishes.push(client.publishAsync('t/a', big, { qos: 1 }));
    await Promise.all(publishes);
    await client.endAsync();
    counting = false;
    expect(received).toEqual(sent);
    expect(budget.stats.maxTurnBytes).toBeLessThanOrEqual(BUDGET);
    expect(budget.stats.deferredTurns).toBeGreaterThan(0);
    // About 70 KB of packets at 1 KB a turn cannot have been parsed in a handful of turns.
    expect(turns.size).toBeGreaterThan(40);
  }, 30_000);
});
