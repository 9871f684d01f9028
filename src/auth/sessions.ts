// Issues, verifies and revokes session tokens. Revocation is kept in SQL (the source of truth)
// and checked on every verification with a prepared statement.
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

export function createSessionService(db: Database, key: KeyObject, defaultTtlMinutes: number): SessionService {
  const revoked = new Store<RevokedRow>(db, revokedSessions);
  const expiry = new Map<string, Date>();
  const verifySession = sessionVerifier(key);
  // SQLite: one prepared lookup, prepared at first use (after migrations); it runs on every
  // authenticated request, so it skips the store's generic key lookup.
  let revokedStmt: SqliteStatement | undefined;
  const isRevoked = async (sid: string): Promise<boolean> => {
    if (!db.prepareSqlite) return Boolean(await revoked.find({ sid }));
    revokedStmt ??= db.prepareSqlite(`select 1 from "${revokedSessions.name}" where "sid" = ? limit 1`);
    return revokedStmt.get(sid) !== undefined;
  };
  let subjectActive: (subject: string) => Promise<boolean> = async () => true;
  return {
    digest(value) {
      return createHmac('sha256', key).update(value).digest('hex');
    },
    setSubjectCheck(check) {
      subjectActive = check;
    },
    async verify(token) {
      const caller = await verifySession(token);
      if (!caller) return undefined;
      if (await isRevoked(caller.session_id)) return undefined;
      if (!(await subjectActive(caller.subject))) return undefined;
      const { expires_at, ...rest } = caller;
      expiry.set(caller.session_id, expires_at);
      return rest;
    },
    async issue(input) {
      return signSession(key, { ...input, ttlMinutes: input.ttlMinutes ?? defaultTtlMinutes });
    },
    async revoke(caller: Caller) {
      const now = new Date().toISOString();
      const expires = (expiry.get(caller.session_id) ?? new Date(Date.now() + defaultTtlMinutes * 60_000)).toISOString();
      expiry.delete(caller.session_id);
      await revoked.insert({ sid: caller.session_id, subject: caller.subject, revoked_at: now, expires_at: expires });
      // Expired sessions can never verify again, so their revocation rows are no longer needed.
      const table = tableFor(revokedSessions, db.dialect);
      await db.transaction(async () => {
        await db.orm.delete(table).where(lt(columnOf(revokedSessions, db.dialect, 'expires_at'), now));
      });
    },
  };
}
