// A unique-key violation is the database saying "that id is taken": two concurrent creates of the
// same id both pass a handler's existence check and the second insert fails. The route pipeline
// turns it into the contract's 409 `already_exists` here, once, for SQLite and PostgreSQL alike,
// instead of every handler catching it (or the caller getting a 500).
import { ApiError } from './errors.js';

interface DbError { code?: unknown; message?: unknown; detail?: unknown; cause?: unknown }

/** The key columns of a unique-key violation anywhere in the error's cause chain, or undefined when it is not one. */
export function uniqueViolation(err: unknown): { columns: string[] } | undefined {
  for (let e = err as DbError | undefined, depth = 0; e && typeof e === 'object' && depth < 5; e = e.cause as DbError | undefined, depth++) {
    // PostgreSQL: SQLSTATE 23505, detail "Key (tenant_id, id)=(t1, p1) already exists."
    if (e.code === '23505') {
      const m = typeof e.detail === 'string' ? /^Key \(([^)]*)\)=/.exec(e.detail) : null;
      return { columns: m ? (m[1] as string).split(',').map((c) => c.trim().replace(/^"|"$/g, '')) : [] };
    }
    // SQLite: "UNIQUE constraint failed: version_policies.id, version_policies.tenant_id"
    if (e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e.code === 'SQLITE_CONSTRAINT_UNIQUE') {
      const m = typeof e.message === 'string' ? /constraint failed: (.*)$/.exec(e.message) : null;
      return { columns: m ? (m[1] as string).split(',').map((c) => c.trim().split('.').pop() as string) : [] };
    }
  }
  return undefined;
}

/** The 409 a unique-key violation answers, or undefined for any other error. */
export function conflictError(err: unknown): ApiError | undefined {
  const hit = uniqueViolation(err);
  if (!hit) return undefined;
  const named = hit.columns.length ? hit.columns.join(', ') : 'key';
  return new ApiError('already_exists', `a record with the same ${named} already exists`, hit.columns.map((field) => ({ field, reason: 'already_exists' })));
}
