// Issues, verifies and revokes session tokens. Revocation is kept in SQL (the source of truth).
// PostgreSQL (several server processes may share it) checks it on every verification. SQLite has
// one server process, through whose revoke() every revocation goes: it keeps the revoked session
// ids in memory (its own revocations apply at once) and reads them again from SQL at most every
// `revokedRefreshMs`, so a revocation another process wrote to the file applies within that time.
// The lookup per request it replaces was about 6 % of the kit's CPU a request
// (bench/readings-pipeline.ts, kit floor profile).
import { createHmac, type KeyObject } from 'node:crypto';
import { lt } from 'drizzle-orm';
import { Store } from '../db/store.js';
import { columnOf, tableFor } from '../db/table.js';
import type { Database, SqliteStatement } from '../db/client.js';
import type { Caller, SessionService } from '../kernel/context.js';
import { sessionVerifier, signSession } from './tokens.js';
import { revokedSessions } from './tables.js';

interface RevokedRow extends Record<string, unknown> {
  sid: string;
  subject: string;
  revoked_at: string;
  expires_at: string;
}

/** How old the SQLite server's copy of the revoked session ids may get (see above). */
export const REVOKED_REFRESH_MS = 5000;

export function createSessionService(db: Database, key: KeyObject, defaultTtlMinutes: number, opts: { revokedRefreshMs?: number } = {}): SessionService {
  const revoked = new Store<RevokedRow>(db, revokedSessions);
  const expiry = new Map<string, Date>();
  // Expired sessions never verify again: their entries are dropped every ten minutes, so a box
  // that runs for years does not keep one per session it ever saw.
  let sweptAt = Date.now();
  const sweep = (now: number) => {
    if (now - sweptAt < 600_000) return;
    sweptAt = now;
    for (const [id, until] of expiry) if (until.getTime() <= now) expiry.delete(id);
  };
  const verifySession = sessionVerifier(key);
  const refreshMs = opts.revokedRefreshMs ?? REVOKED_REFRESH_MS;
  // SQLite: the unexpired revocations as read from SQL at `readAt`, and this process's own
  // (kept apart, so a read that ran before a revocation committed cannot drop it).
  let listStmt: SqliteStatement | undefined;
  let stored = new Set<string>();
  let readAt = -Infinity;
  const mine = new Map<string, number>();
  const isRevoked = (sid: string): boolean | Promise<boolean> => {
    if (!db.prepareSqlite) return revoked.find({ sid }).then(Boolean);
    if (mine.has(sid)) return true;
    const now = Date.now();
    if (now - readAt >= refreshMs) {
      listStmt ??= db.prepareSqlite(`select "sid" from "${revokedSessions.name}" where "expires_at" > ?`);
      const iso = new Date(now).toISOString();
      stored = new Set((listStmt.all(iso) as { sid: string }[]).map((r) => r.sid));
      readAt = now;
      for (const [id, until] of mine) if (until <= now) mine.delete(id);
    }
    return stored.has(sid);
  };
  let subjectActive: (subject: string) => boolean | Promise<boolean> = () => true;
  // The caller answered for a verified session, made once per session (not per request) and
  // frozen, since every request of that session gets the same object.
  const answered = new WeakMap<object, Caller>();
  const callerOf = (verified: object & { expires_at: Date }): Caller => {
    let caller = answered.get(verified);
    if (!caller) {
      const { expires_at: _expires, ...rest } = verified as Caller & { expires_at: Date };
      answered.set(verified, (caller = Object.freeze(rest)));
    }
    return caller;
  };
  return {
    digest(value) {
      return createHmac('sha256', key).update(value).digest('hex');
    },
    setSubjectCheck(check) {
      subjectActive = check;
    },
    async verify(token) {
      // Each step is awaited only when it has to wait (a token not seen before, PostgreSQL's
      // revocation read, a passkey's status): in the common case none does.
      const found = verifySession(token);
      const caller = found instanceof Promise ? await found : found;
      if (!caller) return undefined;
      const gone = isRevoked(caller.session_id);
      if (gone instanceof Promise ? await gone : gone) return undefined;
      const active = subjectActive(caller.subject);
      if (!(active instanceof Promise ? await active : active)) return undefined;
      sweep(Date.now());
      expiry.set(caller.session_id, caller.expires_at);
      return callerOf(caller);
    },
    async issue(input) {
      return signSession(key, { ...input, ttlMinutes: input.ttlMinutes ?? defaultTtlMinutes });
    },
    async revoke(caller: Caller) {
      const now = new Date().toISOString();
      const until = expiry.get(caller.session_id) ?? new Date(Date.now() + defaultTtlMinutes * 60_000);
      const expires = until.toISOString();
      expiry.delete(caller.session_id);
      // Before the write: a request verifying meanwhile is refused already.
      if (db.prepareSqlite) mine.set(caller.session_id, until.getTime());
      await revoked.insert({ sid: caller.session_id, subject: caller.subject, revoked_at: now, expires_at: expires });
      // Expired sessions can never verify again, so their revocation rows are no longer needed.
      const table = tableFor(revokedSessions, db.dialect);
      await db.transaction(async () => {
        await db.orm.delete(table).where(lt(columnOf(revokedSessions, db.dialect, 'expires_at'), now));
      });
    },
  };
}
