// WAL checkpoints run in a worker of their own, never in a commit on the main thread
// (src/db/wal-checkpoint.ts): the log stays bounded while the writer's own checkpoint is off, and
// a worker that cannot checkpoint hands the job back to the writer.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { afterAll, expect, it } from 'vitest';
import { createLock, openDatabase } from '../../src/db/client.js';
import { offloadWalCheckpoints, WAL_CHECKPOINT_BYTES } from '../../src/db/wal-checkpoint.js';
import type { ReadWorker } from '../../src/db/read-worker.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'cabinet-wal-'));
  dirs.push(d);
  return d;
};
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('the worker checkpoints the log: 24 MiB written leave a WAL far smaller than that', async () => {
  const dir = tempDir();
  const db = await openDatabase({ dataDir: dir });
  try {
    await db.exec('create table blobs (id integer primary key, body blob not null)');
    const chunk = randomBytes(64 * 1024);
    // 24 MiB in 96 transactions of 256 KiB, over about 2.5 s: several checkpoint ticks.
    for (let t = 0; t < 96; t++) {
      await db.transaction(async () => {
        for (let i = 0; i < 4; i++) await db.run(sql`insert into blobs (body) values (${chunk})`);
      });
      await sleep(25);
    }
    await expect.poll(() => db.readPath?.().checkpoints ?? 0, { timeout: 5000 }).toBeGreaterThan(0);
    // Without checkpoints (the writer's own are off) the log would hold all 24 MiB.
    expect(statSync(join(dir, 'cabinet.sqlite-wal')).size).toBeLessThan(12 * 1024 * 1024);
    const [row] = await db.rows<{ n: number }>(sql`select count(*) as n from blobs`);
    expect(row?.n).toBe(384);
  } finally {
    await db.close();
  }
});

it('a worker that cannot checkpoint gives the job back to the writer', async () => {
  const dir = tempDir();
  const file = join(dir, 'x.sqlite');
  const writer = new BetterSqlite3(file);
  writer.pragma('journal_mode = WAL');
  writer.exec('create table t (body blob)');
  const failing = {
    reads: 0,
    checkpoints: 0,
    all: async () => [],
    checkpoint: async (): Promise<{ busy: number; log: number; checkpointed: number }> => { throw new Error('the read worker stopped'); },
    close: async () => undefined,
  } satisfies ReadWorker;
  let fallback: Error | undefined;
  const handle = offloadWalCheckpoints(file, writer, failing, { everyMs: 20, bytes: 64 * 1024, onFallback: (err) => { fallback = err; } });
  try {
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    writer.prepare('insert into t values (?)').run(randomBytes(WAL_CHECKPOINT_BYTES / 32));
    await expect.poll(() => fallback?.message, { timeout: 3000 }).toBe('the read worker stopped');
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  } finally {
    handle.stop();
    writer.close();
  }
});

it('a worker kept only for checkpoints is closed once none was needed for idleCloseMs', async () => {
  const dir = tempDir();
  const file = join(dir, 'y.sqlite');
  const writer = new BetterSqlite3(file);
  writer.pragma('journal_mode = WAL');
  writer.exec('create table t (body blob)');
  let checkpoints = 0;
  let closes = 0;
  const worker = {
    reads: 0,
    get checkpoints() { return checkpoints; },
    all: async () => [],
    checkpoint: async () => {
      checkpoints++;
      writer.pragma('wal_checkpoint(TRUNCATE)');
      return { busy: 0, log: 0, checkpointed: 0 };
    },
    close: async () => { closes++; },
  } satisfies ReadWorker;
  const handle = offloadWalCheckpoints(file, writer, worker, { everyMs: 20, bytes: 64 * 1024, idleCloseMs: 150 });
  try {
    writer.prepare('insert into t values (?)').run(randomBytes(256 * 1024));
    await expect.poll(() => checkpoints, { timeout: 3000 }).toBeGreaterThan(0);
    expect(closes).toBe(0);
    await expect.poll(() => closes, { timeout: 3000 }).toBe(1);
    // The next log past the threshold is checkpointed again (the real worker starts again on use).
    writer.prepare('insert into t values (?)').run(randomBytes(256 * 1024));
    await expect.poll(() => checkpoints, { timeout: 3000 }).toBeGreaterThan(1);
  } finally {
    handle.stop();
    writer.close();
  }
});

it('the checkpoint that holds the write lock runs inside the writer lock: a transaction waits as a promise, not asleep in BEGIN', async () => {
  const dir = tempDir();
  const file = join(dir, 'z.sqlite');
  const writer = new BetterSqlite3(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('busy_timeout = 5000');
  writer.exec('create table t (body blob)');
  // The writer's transaction lock, the one src/db/client.ts keeps.
  const exclusive = createLock();
  // A worker whose RESTART holds the write lock for 300 ms, as a sync of a large database file can.
  const other = new BetterSqlite3(file);
  const modes: string[] = [];
  let holding = false;
  const worker = {
    reads: 0,
    checkpoints: 0,
    all: async () => [],
    checkpoint: async (mode: 'passive' | 'restart') => {
      modes.push(mode);
      if (mode === 'restart') {
        other.exec('BEGIN IMMEDIATE');
        holding = true;
        await sleep(300);
        other.exec('COMMIT');
        holding = false;
      }
      return { busy: 0, log: 0, checkpointed: 0 };
    },
    close: async () => undefined,
  } satisfies ReadWorker;
  const handle = offloadWalCheckpoints(file, writer, worker, { everyMs: 10, bytes: 1024, exclusive });
  try {
    writer.prepare('insert into t values (?)').run(randomBytes(64 * 1024));
    await expect.poll(() => holding, { timeout: 3000, interval: 2 }).toBe(true);
    // A write transaction asked for while the lock is held: it waits its turn, the event loop goes on.
    let ticks = 0;
    const ticker = setInterval(() => { ticks++; }, 10);
    let begunWhileHeld: boolean | undefined;
    const tx = exclusive(async () => {
      begunWhileHeld = holding;
      writer.exec('BEGIN IMMEDIATE');
      writer.prepare('insert into t values (?)').run(randomBytes(16));
      writer.exec('COMMIT');
    });
    const before = ticks;
    await tx;
    clearInterval(ticker);
    expect(modes.slice(0, 2)).toEqual(['passive', 'restart']);
    expect(begunWhileHeld).toBe(false);
    // About 30 ticks of 10 ms pass while it waits; asleep in BEGIN, none would.
    expect(ticks - before).toBeGreaterThan(5);
  } finally {
    handle.stop();
    other.close();
    writer.close();
  }
});

it('the writer is not idle while a transaction owns its lock, and idle again after', async () => {
  const dir = tempDir();
  const db = await openDatabase({ dataDir: dir });
  try {
    expect(db.writerIdle?.()).toBe(true);
    let release!: () => void;
    const holding = db.transaction(() => new Promise<void>((resolve) => { release = resolve; }));
    await sleep(5);
    // The checkpoint's RESTART owns the same lock (src/db/wal-checkpoint.ts) without a transaction
    // open on the writer; writerIdle() counts the lock for that case too (not reached by this test).
    expect(db.writerIdle?.()).toBe(false);
    release();
    await holding;
    expect(db.writerIdle?.()).toBe(true);
  } finally {
    await db.close();
  }
});

it('a RESTART still waiting for the writer lock when the database closes is not sent to the worker', async () => {
  const dir = tempDir();
  const file = join(dir, 'c.sqlite');
  const writer = new BetterSqlite3(file);
  writer.pragma('journal_mode = WAL');
  writer.exec('create table t (body blob)');
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  // The writer lock (src/db/client.ts), held by a transaction until release().
  const exclusive = createLock();
  const holding = exclusive(() => held);
  const modes: string[] = [];
  const worker = {
    reads: 0,
    checkpoints: 0,
    all: async () => [],
    checkpoint: async (mode: 'passive' | 'restart') => { modes.push(mode); return { busy: 0, log: 0, checkpointed: 0 }; },
    close: async () => undefined,
  } satisfies ReadWorker;
  const handle = offloadWalCheckpoints(file, writer, worker, { everyMs: 10, bytes: 1024, exclusive });
  try {
    writer.prepare('insert into t values (?)').run(randomBytes(64 * 1024));
    await expect.poll(() => modes.length, { timeout: 3000, interval: 5 }).toBeGreaterThan(0);
    handle.stop();
    release();
    await holding;
    await sleep(30);
    expect(modes).toEqual(['passive']);
  } finally {
    handle.stop();
    writer.close();
  }
});
