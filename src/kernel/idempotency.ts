// Idempotency-Key on POST: the first answer (status + body) is stored in SQL and replayed for a
// repeated key from the same principal; the same key with another route or body is refused.
// 5xx answers are not stored, so a retry after a crash runs again. Keys expire after 24 hours.
import { createHash } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import { ApiError } from './errors.js';
import { requestHeader } from './headers.js';
import { idempotencyKeys } from './tables.js';
import { columnOf, tableFor } from '../db/table.js';
import type { AppContext, Caller } from './context.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const inFlight = new Set<string>();

export async function idempotent(
  c: AppContext,
  caller: Caller | undefined,
  rawBody: unknown,
  run: () => Promise<Response>,
): Promise<Response> {
  const key = requestHeader(c, 'idempotency-key');
  if (key === undefined) return run();
  if (!/^[\x21-\x7e]{1,200}$/.test(key)) {
    throw new ApiError('validation_error', 'Idempotency-Key must be 1-200 visible ASCII characters', [{ field: 'Idempotency-Key', reason: 'invalid_format' }]);
  }
  const { db } = c.get('services');
  const principal = caller ? `${caller.scope_type}:${caller.tenant_id ?? '-'}:${caller.subject}` : 'anonymous';
  const fingerprint = createHash('sha256').update(`${c.req.method} ${new URL(c.req.url).pathname}\n${JSON.stringify(rawBody ?? null)}`).digest('hex');
  const t = idempotencyKeys;
  const cKey = columnOf(t, db.dialect, 'key');
  const cPrincipal = columnOf(t, db.dialect, 'principal');
  const table = tableFor(t, db.dialect);
  const cutoff = new Date(Date.now() - IDEMPOTENCY_TTL_MS).toISOString();
  const found = (await db.orm.select().from(table).where(and(eq(cKey, key), eq(cPrincipal, principal)))) as unknown as {
    fingerprint: string; status: number; body: string; created_at: string;
  }[];
  const prior = found[0];
  if (prior && prior.created_at >= cutoff) {
    if (prior.fingerprint !== fingerprint) {
      throw new ApiError('idempotency_key_reused', 'this Idempotency-Key was already used for a different request', [{ field: 'Idempotency-Key', reason: 'reused' }]);
    }
    return new Response(prior.body, { status: prior.status, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' } });
  }
  const slot = `${principal}\n${key}`;
  if (inFlight.has(slot)) throw new ApiError('idempotency_in_progress', 'a request with this Idempotency-Key is still being processed');
  inFlight.add(slot);
  try {
    const response = await run();
    if (response.status < 500) {
      const body = await response.clone().text();
      await db.transaction(async () => {
        await db.orm.delete(table).where(and(eq(cKey, key), eq(cPrincipal, principal)));
        await db.orm.insert(table).values({ key, principal, fingerprint, status: response.status, body, created_at: new Date().toISOString() } as never);
        await db.orm.delete(table).where(lt(columnOf(t, db.dialect, 'created_at'), cutoff));
      });
    }
    return response;
  } finally {
    inFlight.delete(slot);
  }
}

