// What the hour's settle and the storage run write (the box's flash): the settle moves every row
// once, whatever its slices, and deletes a recent table it emptied by freeing its pages (no leaf of
// it written to the log); an ordinary storage run keeps a few free pages for the next hour's rows
// instead of moving the newest pages into them (and leaves the log to its own checkpoint), a run
// that thins gives every one back. The settle
// is SQLite's alone (PostgreSQL writes in place); the give-back is a no-op there.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { settleRows, settledAll } from '../../src/db/settle.js';
import { SETTLE_SLICE, SETTLE_WHOLE_MAX, settleRecent } from '../../src/modules/devices/recent.js';
import { FREE_KEEP_SHARE, giveBack } from '../../src/modules/storage/space.js';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';

let dir: string | undefined;
let db: Database | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function scratch(): Promise<Database> {
  dir = mkdtempSync(join(tmpdir(), 'cabinet-flash-settle-'));
  // 1 KiB pages, sqlite_page_size's default on a box.
  db = await openDatabase({ dataDir: dir, sqlite: { pageSize: 1024 } });
  return db;
}

const n = async (d: Database, q: string) => Number((await d.rows<{ n: number }>(sql.raw(q)))[0]!.n);

/** The log's frames now (the current generation): how many, how many distinct pages, how many commits. */
function logFrames(file: string): { frames: number; pages: number; commits: number } {
  const buf = readFileSync(`${file}-wal`);
  const pages = new Set<number>();
  let frames = 0;
  let commits = 0;
  if (buf.length < 32) return { frames, pages: 0, commits };
  const size = buf.readUInt32BE(8);
  const [s1, s2] = [buf.readUInt32BE(16), buf.readUInt32BE(20)];
  for (let at = 32; at + 24 + size <= buf.length; at += 24 + size) {
    if (buf.readUInt32BE(at + 8) !== s1 || buf.readUInt32BE(at + 12) !== s2) break;
    pages.add(buf.readUInt32BE(at));
    frames++;
    if (buf.readUInt32BE(at + 4) !== 0) commits++;
  }
  return { frames, pages: pages.size, commits };
}

/** Page numbers of the frames in the log now (the current generation). */
function logPages(file: string): Set<number> {
  const buf = readFileSync(`${file}-wal`);
  const pages = new Set<number>();
  if (buf.length < 32) return pages;
  const size = buf.readUInt32BE(8);
  const [s1, s2] = [buf.readUInt32BE(16), buf.readUInt32BE(20)];
  for (let at = 32; at + 24 + size <= buf.length; at += 24 + size) {
    if (buf.readUInt32BE(at + 8) !== s1 || buf.readUInt32BE(at + 12) !== s2) break;
    pages.add(buf.readUInt32BE(at));
  }
  return pages;
}

const leaves = async (d: Database, table: string) =>
  new Set((await d.rows<{ pageno: number }>(sql.raw(`select pageno from dbstat where name = '${table}' and pagetype = 'leaf'`))).map((r) => Number(r.pageno)));

async function readingsLike(d: Database, rows: number): Promise<void> {
  await d.exec(`create table r_recent (id text not null, house text not null, ts text not null, note text not null);
    create table r (id text primary key not null, house text not null, ts text not null, note text not null);
    create index r_house_ts on r (house, ts);`);
  await d.transaction(async () => {
    for (let i = 0; i < rows; i++) await d.run(sql`insert into r_recent values (${`id-${String(i).padStart(6, '0')}`}, ${`h${i % 10}`}, ${String(1_000_000 + i)}, ${'x'.repeat(150)})`);
  });
}

const TABLES = { from: 'r_recent', into: 'r', columns: ['id', 'house', 'ts', 'note'] };

describe('the settle (SQLite)', () => {
  it('deletes a recent table it emptied by freeing its pages: its leaves are not written to the log', async () => {
    const d = await scratch();
    await readingsLike(d, 3_000);
    const recentLeaves = await leaves(d, 'r_recent');
    expect(recentLeaves.size).toBeGreaterThan(300);
    await d.exec('pragma wal_checkpoint(truncate)');
    expect(await settleRows(d, TABLES)).toBe(3_000);
    const written = logPages(d.location);
    // Only the free list's trunk pages (each lists about 250 freed pages on 1 KiB pages) are written.
    expect([...recentLeaves].filter((p) => written.has(p)).length).toBeLessThanOrEqual(Math.ceil(recentLeaves.size / 250) + 1);
    expect(await n(d, 'select count(*) as n from r')).toBe(3_000);
    expect(await n(d, 'select count(distinct id) as n from r')).toBe(3_000);
    expect(await n(d, 'select count(*) as n from r_recent')).toBe(0);
  });

  it('moves every row once over several slices, and keeps rows appended while it runs for the next settle', async () => {
    const d = await scratch();
    await readingsLike(d, 1_050);
    let appended = 0;
    // Before each slice a minute's commit appends two rows: the slice that reaches the end is then not the whole table.
    const moved = await settleRows(d, TABLES, { slice: 400, stopped: () => {
      if (appended < 6) {
        for (const k of [0, 1]) d.prepareSqlite!('insert into r_recent values (?, ?, ?, ?)').run(`late-${appended}-${k}`, 'h1', String(2_000_000 + appended), 'late');
        appended++;
      }
      return false;
    } });
    expect(moved).toBe(1_050 + 2 * appended);
    expect(await n(d, 'select count(*) as n from r')).toBe(1_050 + 2 * appended);
    expect(await n(d, 'select count(distinct id) as n from r')).toBe(1_050 + 2 * appended);
    expect(await n(d, 'select count(*) as n from r_recent')).toBe(0);
    // A table with a row past the slice is not the whole.
    await d.run(sql`insert into r_recent values ('a', 'h1', '1', 'x'), ('b', 'h1', '2', 'x')`);
    const [first] = await d.rows<{ r: number }>(sql`select min(rowid) as r from r_recent`);
    expect(await settledAll(d, 'r_recent', 'rowid', Number(first!.r))).toBe(false);
    expect(await settledAll(d, 'r_recent', 'rowid', Number(first!.r) + 1)).toBe(true);
  });
});

describe('the points settle (SQLite)', () => {
  let env: TestEnv | undefined;
  afterEach(async () => { await env?.cleanup(); env = undefined; });

  it('moves the waiting points with their ids, and frees the recent table without writing its leaves', { timeout: 60_000 }, async () => {
    env = await createTestEnv('sqlite');
    const server = await env.start({ mqtt_broker: 'off' });
    const d = server.services.db;
    await d.run(sql`insert into telemetry_series (id, tenant_id, site_id, device_id, metric, unit) values (901, 't', '', 'd1', 'temp', ''), (902, 't', '', 'd2', 'temp', '')`);
    await d.transaction(async () => {
      for (let i = 1; i <= 4_000; i++) await d.run(sql`insert into telemetry_points_recent (id, series_id, ts, value, status, latency_ms, received_at) values (${100_000 + i}, ${901 + (i % 2)}, ${1_700_000_000_000 + i * 1000}, ${i / 10}, 0, null, ${1_700_000_000_000 + i * 1000})`);
    });
    const recentLeaves = await leaves(d, 'telemetry_points_recent');
    expect(recentLeaves.size).toBeGreaterThan(10);
    await d.exec('pragma wal_checkpoint(truncate)');
    expect(await settleRecent(d)).toBe(4_000);
    const written = logPages(d.location);
    expect([...recentLeaves].filter((p) => written.has(p)).length).toBeLessThanOrEqual(Math.ceil(recentLeaves.size / 250) + 1);
    expect(await n(d, 'select count(*) as n from telemetry_points_recent')).toBe(0);
    expect(await n(d, 'select count(*) as n from telemetry_points where id > 100000 and id <= 104000')).toBe(4_000);
    expect(await n(d, 'select count(*) as n from device_telemetry where device_id in (\'d1\', \'d2\')')).toBe(4_000);
    await server.close();
  });

  it('settles an hour of points in one transaction (each page written to the log once), a flood in slices', { timeout: 60_000 }, async () => {
    env = await createTestEnv('sqlite');
    const server = await env.start({ mqtt_broker: 'off' });
    const d = server.services.db;
    const SERIES = 30;
    await d.transaction(async () => {
      for (let s = 0; s < SERIES; s++) await d.run(sql`insert into telemetry_series (id, tenant_id, site_id, device_id, metric, unit) values (${1000 + s}, 't', '', ${`d${s}`}, 'temp', '')`);
    });
    let id = 200_000;
    let ts = 1_700_000_000_000;
    const wait = (points: number) => d.transaction(async () => {
      for (let i = 0; i < points; i++, ts += 1000 / SERIES) await d.run(sql`insert into telemetry_points_recent (id, series_id, ts, value, status, latency_ms, received_at) values (${++id}, ${1000 + (i % SERIES)}, ${Math.floor(ts)}, ${i / 10}, 0, null, ${Math.floor(ts)})`);
    });
    const settle = async () => {
      await d.exec('pragma wal_checkpoint(truncate)');
      const moved = await settleRecent(d);
      return { moved, ...logFrames(d.location) };
    };
    // A first hour, so that the series' newest entries sit inside the index, not at its end.
    await wait(10_800);
    expect((await settle()).moved).toBe(10_800);
    // An hour of a 10-house site: one commit; no page of it is written to the log twice.
    await wait(10_800);
    const hour = await settle();
    expect(hour.moved).toBe(10_800);
    expect(hour.commits).toBe(1);
    expect(hour.frames).toBe(hour.pages);
    // A flood (more than SETTLE_WHOLE_MAX waiting): slices of SETTLE_SLICE, a commit each.
    await wait(SETTLE_WHOLE_MAX + 1_000);
    const flood = await settle();
    expect(flood.moved).toBe(SETTLE_WHOLE_MAX + 1_000);
    expect(flood.commits).toBe(Math.ceil((SETTLE_WHOLE_MAX + 1_000) / SETTLE_SLICE));
    expect(flood.frames).toBeGreaterThan(flood.pages);
    expect(await n(d, 'select count(*) as n from telemetry_points where id > 200000')).toBe(2 * 10_800 + SETTLE_WHOLE_MAX + 1_000);
    expect(await n(d, 'select count(*) as n from telemetry_points_recent')).toBe(0);
    await server.close();
  });
});

describe('a new SQLite file (no auto-vacuum)', () => {
  it('a new file has no auto-vacuum: nothing is given back, and the next rows take the freed pages', { timeout: 60_000 }, async () => {
    const d = await scratch();
    const pragma = (name: string) => Number(Object.values(d.prepareSqlite!(`pragma ${name}`).get() as Record<string, number>)[0]);
    // No pointer map: auto_vacuum 0 (none) on a file openDatabase made.
    expect(pragma('auto_vacuum')).toBe(0);
    await d.exec('create table big (id integer primary key, note text not null); create index big_note on big (note)');
    const fill = (from: number, rows: number) => d.transaction(async () => {
      for (let i = from; i < from + rows; i++) await d.run(sql`insert into big (id, note) values (${i}, ${`${i % 97}-${'y'.repeat(200)}`})`);
    });
    await fill(0, 4_000);
    const high = pragma('page_count');
    // Thinning: the oldest three quarters go; their pages stay in the file, free.
    await d.run(sql`delete from big where id < 3_000`);
    const free = pragma('freelist_count');
    expect(free).toBeGreaterThan(high / 2);
    expect(await giveBack(d)).toBe(0);
    expect(await giveBack(d, { keep: true })).toBe(0);
    expect(pragma('freelist_count')).toBe(free);
    // As many rows again: they take the freed pages, the file does not grow.
    await fill(4_000, 3_000);
    expect(pragma('page_count')).toBeLessThanOrEqual(high);
    expect(pragma('freelist_count')).toBeLessThan(free / 4);
    expect(await n(d, 'select count(*) as n from big')).toBe(4_000);
    expect(d.prepareSqlite!('pragma integrity_check').get()).toEqual({ integrity_check: 'ok' });
  });
});

describe.each(DIALECTS)('the storage run\'s give-back (%s)', (dialect) => {
  let env: TestEnv | undefined;
  afterEach(async () => { await env?.cleanup(); env = undefined; });

  it('keeps a few free pages on an ordinary run and gives every one back when asked to', { timeout: 60_000 }, async () => {
    if (dialect === 'postgres') {
      env = await createTestEnv('postgres');
      const server = await env.start({ mqtt_broker: 'off' });
      expect(await giveBack(server.services.db, { keep: true })).toBe(0);
      expect(await giveBack(server.services.db)).toBe(0);
      await server.close();
      return;
    }
    const d = await scratch();
    const pragma = (name: string) => Number(Object.values(d.prepareSqlite!(`pragma ${name}`).get() as Record<string, number>)[0]);
    // A file made with incremental auto-vacuum and not yet converted (an older box's, larger than
    // the conversion at start takes): it gives free pages back as before.
    await d.exec('pragma auto_vacuum = INCREMENTAL; vacuum');
    expect(pragma('auto_vacuum')).toBe(2);
    await d.exec('create table big (id integer primary key, note text not null)');
    await d.transaction(async () => {
      for (let i = 0; i < 4_000; i++) await d.run(sql`insert into big (note) values (${'y'.repeat(200)})`);
    });
    // A few free pages (under FREE_KEEP_SHARE of the file): an ordinary run leaves them.
    await d.run(sql`delete from big where id > 3_800`);
    const few = pragma('freelist_count');
    expect(few).toBeGreaterThan(20);
    expect(few).toBeLessThan(pragma('page_count') * FREE_KEEP_SHARE);
    expect(statSync(`${d.location}-wal`).size).toBeGreaterThan(0);
    expect(await giveBack(d, { keep: true })).toBe(0);
    expect(pragma('freelist_count')).toBe(few);
    // Nothing went back: the log is left to its own checkpoint (sqlite_checkpoint_bytes), not copied and cut every hour.
    expect(statSync(`${d.location}-wal`).size).toBeGreaterThan(0);
    // Many free pages: an ordinary run gives back all but FREE_KEEP_SHARE of the file.
    await d.run(sql`delete from big where id > 1_000`);
    // The file holds its pages (as a box's does), so that what goes back shows in its size.
    await d.exec('pragma wal_checkpoint(truncate)');
    const sizeBefore = pragma('page_count');
    expect(await giveBack(d, { keep: true })).toBeGreaterThan(0);
    expect(pragma('freelist_count')).toBeLessThanOrEqual(Math.floor(sizeBefore * FREE_KEEP_SHARE));
    expect(pragma('freelist_count')).toBeGreaterThan(0);
    // A run that thins gives every one back.
    expect(await giveBack(d)).toBeGreaterThan(0);
    expect(pragma('freelist_count')).toBe(0);
  });
});
