// When the security log writes its entries (src/auth/security-log.ts), on a real SQLite file read
// by another connection, under a stepped clock: an allowed request waits for the whole minute's
// commit of what nobody waits for (telemetry_hold_ms); a refusal or an authentication event is
// written within 2 s and takes the held entries along; without a hold (0) every entry is written
// within 2 s, as before; 500 waiting entries are written at once; flush() (a reader, a clean stop)
// writes everything at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { bundledMigrations, migrate } from '../../src/db/migrate.js';
import { configureGroupCommit } from '../../src/db/group-commit.js';
import { SecurityLog, type SecurityEvent } from '../../src/auth/security-log.js';
import { createLogger } from '../../src/kernel/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'cabinet-seclog-'));
let db: Database;
let other: BetterSqlite3.Database;
const stored = () => (other.prepare('select event, result from auth_security_log order by id').all() as { event: string; result: string }[]).map((r) => `${r.event}:${r.result}`);

const allow: SecurityEvent = { category: 'access', result: 'allow', event: 'access', method: 'GET', path: '/api/v1/tables/list', subject: 'tablet' };
const deny: SecurityEvent = { category: 'access', result: 'deny', event: 'rbac_check', method: 'GET', path: '/api/v1/audit/list', subject: 'op', reason: 'rbac_forbidden' };
const login: SecurityEvent = { category: 'auth', result: 'allow', event: 'login', method: 'POST', path: '/api/v1/auth/passkey/commands/finish', subject: 'op' };

/** Steps the clock to `iso` (timers due meanwhile run, their commits settle). */
const stepTo = async (iso: string) => {
  await vi.advanceTimersByTimeAsync(Date.parse(iso) - Date.now());
  await vi.advanceTimersByTimeAsync(0);
};

beforeAll(async () => {
  db = await openDatabase({ dataDir: dir });
  await migrate(db, bundledMigrations('sqlite', ['auth']));
  other = new BetterSqlite3(join(dir, 'cabinet.sqlite'), { readonly: true });
});
beforeEach(async () => {
  await db.exec('delete from auth_security_log');
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => { vi.useRealTimers(); });
afterAll(async () => {
  other.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('security log: when entries are written', () => {
  it('holds allowed requests for the minute; a refusal is written within 2 s and takes them along', async () => {
    configureGroupCommit(db, { holdMs: 60_000 });
    const log = new SecurityLog(db, createLogger('error'));
    vi.setSystemTime(new Date('2026-12-01T10:00:05Z'));
    log.record(allow);
    await stepTo('2026-12-01T10:00:30Z');
    expect(stored()).toEqual([]); // 25 s on: still held
    log.record(deny);
    await stepTo('2026-12-01T10:00:31.900Z');
    expect(stored()).toEqual([]);
    await stepTo('2026-12-01T10:00:32.100Z');
    expect(stored()).toEqual(['access:allow', 'rbac_check:deny']);

    // The next allowed request waits for the minute's commit (the whole minute plus 2 s).
    log.record(allow);
    await stepTo('2026-12-01T10:01:01.900Z');
    expect(stored()).toHaveLength(2);
    await stepTo('2026-12-01T10:01:02.100Z');
    expect(stored()).toHaveLength(3);

    // A login is an authentication event: within 2 s, not on the minute.
    log.record(allow);
    log.record(login);
    await stepTo('2026-12-01T10:01:04.200Z');
    expect(stored().slice(3)).toEqual(['access:allow', 'login:allow']);
  });

  it('writes held entries once 500 wait, without waiting for the minute (memory and one long commit under load)', async () => {
    configureGroupCommit(db, { holdMs: 60_000 });
    const log = new SecurityLog(db, createLogger('error'));
    vi.setSystemTime(new Date('2026-12-01T10:00:05Z'));
    for (let i = 0; i < 499; i++) log.record(allow);
    await stepTo('2026-12-01T10:00:06Z');
    expect(stored()).toEqual([]);
    log.record(allow);
    log.record(allow);
    await stepTo('2026-12-01T10:00:06.010Z');
    expect(stored()).toHaveLength(501);
  });

  it('writes every entry within 2 s when nothing is held (telemetry_hold_ms 0)', async () => {
    configureGroupCommit(db, { holdMs: 0 });
    const log = new SecurityLog(db, createLogger('error'));
    vi.setSystemTime(new Date('2026-12-01T10:00:05Z'));
    log.record(allow);
    await stepTo('2026-12-01T10:00:07.100Z');
    expect(stored()).toEqual(['access:allow']);
  });

  it('flush() writes what is held at once (a reader, a clean stop)', async () => {
    configureGroupCommit(db, { holdMs: 60_000 });
    const log = new SecurityLog(db, createLogger('error'));
    vi.setSystemTime(new Date('2026-12-01T10:00:05Z'));
    log.record(allow);
    log.record(allow);
    await log.flush();
    expect(stored()).toEqual(['access:allow', 'access:allow']);
    // Nothing is written twice when the timer it armed fires later.
    await stepTo('2026-12-01T10:01:03Z');
    expect(stored()).toHaveLength(2);
  });
});
