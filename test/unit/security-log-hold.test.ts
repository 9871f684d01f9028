// When the security log writes its entries (src/auth/security-log.ts), on a real SQLite file read
// by another connection, under a stepped clock: an allowed request waits for the whole minute's
// commit of what nobody waits for (telemetry_hold_ms); a refusal or an authentication event is
// written within 2 s and takes the held entries along; without a hold (0) every entry is written
// within 2 s, as before; 500 waiting entries are written at once; flush() (a reader, a clean stop)
// writes everything at once; the held entries share the readings' minute commit when there is one,
// and are not taken along by a commit of rows gathered for 2 s; a read after that commit is not
// merged into the entry it took (merging: test/unit/security-log-merge.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { bundledMigrations, migrate } from '../../src/db/migrate.js';
import { appendGrouped, configureGroupCommit, groupCommits, holdRowsOf } from '../../src/db/group-commit.js';
import { Store } from '../../src/db/store.js';
import { revokedSessions, uiAccess } from '../../src/auth/tables.js';
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

    // The next allowed request waits for the minute's commit (the whole minute plus 2 s; with no
    // readings held the log commits it itself a moment later).
    log.record(allow);
    await stepTo('2026-12-01T10:01:01.900Z');
    expect(stored()).toHaveLength(2);
    await stepTo('2026-12-01T10:01:02.400Z');
    expect(stored()).toHaveLength(3);

    // A login is an authentication event: within 2 s, not on the minute.
    log.record(allow);
    log.record(login);
    await stepTo('2026-12-01T10:01:04.500Z');
    expect(stored().slice(3)).toEqual(['access:allow', 'login:allow']);
  });

  it('joins the held readings\' commit on the minute: one commit, not one each', async () => {
    // Any table whose rows are held stands for the readings (its reads would add held rows).
    holdRowsOf(revokedSessions.name);
    const held = new Store<Record<string, unknown>>(db, revokedSessions);
    configureGroupCommit(db, { holdMs: 60_000 });
    const log = new SecurityLog(db, createLogger('error'));
    vi.setSystemTime(new Date('2026-12-01T10:00:05Z'));
    const row = appendGrouped(db, held, { sid: 's-held', subject: 'x', revoked_at: '2026-12-01T10:00:05Z', expires_at: '2026-12-02T10:00:05Z' }, { gatherMs: 2000 });
    log.record(allow);
    const commits = groupCommits(db);
    await stepTo('2026-12-01T10:01:01.900Z');
    expect(stored()).toEqual([]);
    // 10:01:02: the group's commit takes the entry along, before the log's own timer (.250).
    await stepTo('2026-12-01T10:01:02.100Z');
    await row;
    expect(stored()).toEqual(['access:allow']);
    expect(groupCommits(db) - commits).toBe(1);
    await stepTo('2026-12-01T10:01:03Z');
    expect(stored()).toHaveLength(1);
    await db.exec('delete from auth_revoked_sessions');
  });

  it('merges no read into an entry the minute\'s commit took along: the next is an entry of its own', async () => {
    holdRowsOf(revokedSessions.name);
    const held = new Store<Record<string, unknown>>(db, revokedSessions);
    configureGroupCommit(db, { holdMs: 60_000 });
    const log = new SecurityLog(db, createLogger('error'));
    vi.setSystemTime(new Date('2026-12-01T10:00:05Z'));
    const row = appendGrouped(db, held, { sid: 's-held-2', subject: 'x', revoked_at: '2026-12-01T10:00:05Z', expires_at: '2026-12-02T10:00:05Z' }, { gatherMs: 2000 });
    log.record(allow);
    log.record(allow);
    await stepTo('2026-12-01T10:01:02.100Z');
    await row;
    const counts = () => other.prepare('select count from auth_security_log order by id').all().map((r) => (r as { count: number }).count);
    expect(counts()).toEqual([2]);
    log.record(allow);
    await log.flush();
    expect(counts()).toEqual([2, 1]);
    await db.exec('delete from auth_revoked_sessions');
  });

  it('is not taken along by a commit of rows gathered for 2 s (the minute\'s entries stay for the minute)', async () => {
    configureGroupCommit(db, { holdMs: 60_000 });
    const plain = new Store<Record<string, unknown>>(db, uiAccess); // a table whose rows are not held
    const log = new SecurityLog(db, createLogger('error'));
    vi.setSystemTime(new Date('2026-12-01T10:00:05Z'));
    log.record(allow);
    const row = appendGrouped(db, plain, { id: 'r', tenant_id: 't', rules: {}, updated_at: '2026-12-01T10:00:05Z', updated_by: 'x' }, { gatherMs: 2000 });
    await stepTo('2026-12-01T10:00:08Z');
    await row;
    expect(groupCommits(db)).toBeGreaterThan(0);
    expect(stored()).toEqual([]);
    await stepTo('2026-12-01T10:01:02.400Z');
    expect(stored()).toEqual(['access:allow']);
    await db.exec('delete from auth_ui_access');
  });

  it('writes held entries once 500 wait, without waiting for the minute (memory and one long commit under load)', async () => {
    configureGroupCommit(db, { holdMs: 60_000 });
    const log = new SecurityLog(db, createLogger('error'));
    vi.setSystemTime(new Date('2026-12-01T10:00:05Z'));
    // Distinct paths: repeats of one read would be one entry (merged while they wait).
    for (let i = 0; i < 498; i++) log.record({ ...allow, path: `/api/v1/x/${i}` });
    await stepTo('2026-12-01T10:00:06Z');
    expect(stored()).toEqual([]);
    log.record(allow);
    log.record(allow); // merged with the one before: 499 entries wait, not 500
    await stepTo('2026-12-01T10:00:06.010Z');
    expect(stored()).toEqual([]);
    log.record({ ...allow, path: '/api/v1/y' });
    await stepTo('2026-12-01T10:00:06.020Z');
    expect(stored()).toHaveLength(500);
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
    log.record({ ...allow, subject: 'another' });
    await log.flush();
    expect(stored()).toEqual(['access:allow', 'access:allow']);
    // Nothing is written twice when the timer it armed fires later.
    await stepTo('2026-12-01T10:01:03Z');
    expect(stored()).toHaveLength(2);
  });
});
