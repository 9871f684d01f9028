// What the box reports as left behind a batch (engine/outbox.ts countAfter), read at the two ends
// of the outbox's key rather than counted along it, is the count of the rows after the seq: across
// appends, acknowledgements, an append rolled back with its record, and a renumbering (advanceTo).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { Outbox } from '../../src/modules/tenant-master-sync/engine/outbox.js';
import { migrateAll } from '../../src/modules/migrate-all.js';

describe('the count of the events left in the outbox', () => {
  let dir: string;
  let db: Database;
  let outbox: Outbox;
  const event = (i: number) => ({ kind: 'heartbeat' as const, payload: { at: new Date(Date.UTC(2026, 10, 29, 10, 0, i)).toISOString(), interval_ms: 60_000 } });
  const counted = async (after: number) => Number((await db.read<{ n: number }>(sql`select count(*) as n from sync_outbox where seq > ${after}`))[0]!.n);
  const check = async () => {
    const [top] = await db.read<{ m: number | null }>(sql`select max(seq) as m from sync_outbox`);
    for (let after = 0; after <= Number(top?.m ?? 0) + 2; after++) expect([after, await outbox.countAfter(after)]).toEqual([after, await counted(after)]);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cabinet-outbox-count-'));
    db = await openDatabase({ dataDir: dir });
    // The box's real schema, not a copy of the outbox's tables.
    await migrateAll(db);
    outbox = new Outbox(db);
    await outbox.init();
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is the number of rows after the seq, through appends, acks, a rollback and a renumbering', async () => {
    expect(await outbox.countAfter(0)).toBe(0);
    await outbox.append(Array.from({ length: 7 }, (_, i) => event(i)));
    await check();
    expect(await outbox.countAfter(2)).toBe(5);
    await outbox.ack(3);
    await check();
    expect(await outbox.countAfter(0)).toBe(4);
    // An append rolled back with the record it was staged with takes its numbers back.
    await expect(db.transaction(async () => {
      await outbox.append([event(20), event(21)]);
      throw new Error('the record failed');
    })).rejects.toThrow('the record failed');
    await outbox.append([event(8)]);
    await check();
    expect(await outbox.countAfter(3)).toBe(5);
    // A box whose database was replaced: the master holds up to 40, the box numbers on after it.
    await outbox.ack(40);
    await outbox.advanceTo(40);
    expect(await outbox.countAfter(0)).toBe(0);
    await outbox.append([event(41), event(42), event(43)]);
    await check();
    expect(await outbox.countAfter(39)).toBe(3);
    expect(await outbox.countAfter(42)).toBe(1);
    await outbox.ack(43);
    await check();
  });
});
