// Benchmark (not a test): what a longer log costs the reads and a start after a power cut, for
// sqlite_checkpoint_bytes. Run: `npx tsx bench/flash-wal-reads.ts [sizes MiB] [rounds]` (defaults
// 0,16,32,64 and 3). For each size, alternated round by round: a table of 150,000 rows of 180 B
// checkpointed into the file, then that many MiB of another table's rows left in the log (1 KiB
// pages, commits of 50 rows, no checkpoint); a second connection (a 64 KiB cache, so most pages
// come from the file: SQLite looks each one up in the log's index first, one hash table per 4,096
// frames) then makes 200,000 key lookups on the first table. And the log's replay: a child
// process writes the log and is killed (SIGKILL, a power cut for the file), then the time to open
// the file and make a first read, which rebuilds the log's index from the whole log (this
// kernel's page cache holds the log, so a box's flash reads it slower).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';

const SIZES = (process.argv[2] ?? '0,16,32,64').split(',').map(Number);
const ROUNDS = Number(process.argv[3] ?? 3);
const ROW = 'x'.repeat(180);

function fill(file: string, logMiB: number): BetterSqlite3.Database {
  const db = new BetterSqlite3(file);
  db.pragma('page_size = 1024');
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table if not exists a (id integer primary key, s text); create table if not exists t (id integer primary key, s text)');
  const insA = db.prepare('insert into a (s) values (?)');
  if (!Number((db.prepare('select count(*) as n from a').get() as { n: number }).n)) {
    db.transaction(() => { for (let i = 0; i < 150_000; i++) insA.run(ROW); })();
    db.pragma('wal_checkpoint(truncate)');
  }
  const ins = db.prepare('insert into t (s) values (?)');
  const log = () => { try { return statSync(`${file}-wal`).size; } catch { return 0; } };
  while (log() < logMiB * 2 ** 20) db.transaction(() => { for (let j = 0; j < 50; j++) ins.run(ROW); })();
  return db;
}

if (process.argv[2] === 'child') {
  fill(process.argv[3]!, Number(process.argv[4]));
  process.kill(process.pid, 'SIGKILL');
}

const lookups: Record<number, number[]> = {};
const replay: Record<number, number[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const mib of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-wal-reads-'));
    const file = join(dir, 'x.sqlite');
    const db = fill(file, mib);
    const reader = new BetterSqlite3(file, { readonly: true });
    reader.pragma('cache_size = -64');
    const q = reader.prepare('select s from a where id = ?');
    let t = performance.now();
    for (let i = 0; i < 200_000; i++) q.get(1 + ((i * 7919) % 150_000));
    (lookups[mib] ??= []).push(performance.now() - t);
    reader.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
    const crashed = mkdtempSync(join(tmpdir(), 'cabinet-wal-reads-'));
    const f2 = join(crashed, 'x.sqlite');
    try { execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, 'child', f2, String(mib)], { stdio: 'ignore' }); } catch { /* killed, as meant */ }
    t = performance.now();
    const opened = new BetterSqlite3(f2);
    opened.prepare('select count(*) from a').get();
    (replay[mib] ??= []).push(performance.now() - t);
    opened.close();
    rmSync(crashed, { recursive: true, force: true });
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${ROUNDS} rounds; load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
for (const mib of SIZES) {
  console.log(`${String(mib).padStart(3)} MiB of log: 200,000 key lookups ${median(lookups[mib]!).toFixed(0)} ms (${lookups[mib]!.map((x) => x.toFixed(0)).join(', ')}); open and first read after a kill ${median(replay[mib]!).toFixed(0)} ms (${replay[mib]!.map((x) => x.toFixed(0)).join(', ')})`);
}
