// The box's push carries each event's payload as the outbox stores it (engine/outbox.ts
// peekWire): the JSON text of the events array means what peek() answers, the batch keeps to its
// bounds (events and bytes, always at least one), and the oldest event left behind is read in the
// same query.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { Outbox } from '../../src/modules/tenant-master-sync/engine/outbox.js';
import { migrateAll } from '../../src/modules/migrate-all.js';

describe('the outbox as the push sends it', () => {
  let dir: string;
  let db: Database;
  let outbox: Outbox;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cabinet-outbox-wire-'));
    db = await openDatabase({ dataDir: dir });
    // The box's real schema, not a copy of the outbox's tables.
    await migrateAll(db);
    outbox = new Outbox(db);
    await outbox.init();
    await outbox.append(Array.from({ length: 12 }, (_, i) => ({
      kind: i % 4 === 0 ? 'alarm' as const : 'telemetry' as const,
      created_at: new Date(Date.UTC(2026, 10, 29, 10, 0, i)).toISOString(),
      payload: i % 4 === 0
        ? { kind: 'raised', alarm: { id: `A-${i}`, title: 'Haus 3 «heiß» \u2013 "quoted" \\ back', severity: 'high' } }
        : { aggregates: [{ device_id: `dev-${i}`, metric: 'temp', bucket: '2026-11-29T10:00:00.000Z', points: 3, sum: 64.5, min: -0.25, max: 1e21, last_status: 'online' }] },
    })));
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the JSON text of what peek answers, with the oldest event left behind', async () => {
    const { events, nextAt } = await outbox.peekWire(5, 512 * 1024, 2);
    expect(JSON.parse(`[${events.map((e) => e.text).join(',')}]`)).toEqual(await outbox.peek(5, 512 * 1024, 2));
    expect(events.map((e) => e.seq)).toEqual([3, 4, 5, 6, 7]);
    expect(nextAt).toBe((await outbox.peek(1, 512 * 1024, 7))[0]!.created_at);
    // The last events: nothing left behind.
    const tail = await outbox.peekWire(5, 512 * 1024, 9);
    expect([tail.events.map((e) => e.seq), tail.nextAt]).toEqual([[10, 11, 12], null]);
  });

  it('keeps to the byte bound, always taking one event', async () => {
    const one = (await outbox.peekWire(100, 1, 0));
    expect(one.events.map((e) => e.seq)).toEqual([1]);
    expect(one.nextAt).not.toBeNull();
    const size = one.events[0]!.text.length;
    const two = await outbox.peekWire(100, size + (await outbox.peekWire(1, 1, 1)).events[0]!.text.length, 0);
    expect(two.events.map((e) => e.seq)).toEqual([1, 2]);
  });
});
