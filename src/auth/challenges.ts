// Login challenges (contract 4.5). Methods:
// - rfid: at the panel only (panel_addresses). The card reader types RF-<uid>; complete with it.
// - qr, unauthenticated start: complete with a QR passkey credential (QR-...), e.g. a badge the
//   device scans.
// - qr, started by an authenticated session (the tablet at the panel): a hand-off to a phone.
//   The answer carries qr_payload (a URL with the challenge id and a one-time QR-... secret) and
//   a 4-digit code for phone browsers that cannot use the QR. The phone completes with the
//   secret, or with the code alone, and gets a session of the same holder.
// Every refusal is `login_refused`; the reason goes to the security log only.
import { isPasskeySubject } from './scope.js';
import { randomInt, randomUUID, randomBytes } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import { Store } from '../db/store.js';
import { columnOf, tableFor } from '../db/table.js';
import type { Database } from '../db/client.js';
import type { Caller } from '../kernel/context.js';
import { challenges } from './tables.js';

export const CHALLENGE_TTL_MS = 120_000;
export const MAX_ATTEMPTS = 5;

export interface ChallengeRow extends Record<string, unknown> {
  id: string;
  method: 'qr' | 'rfid';
  status: 'pending' | 'completed' | 'locked';
  nonce_hash: string | null;
  code_hash: string | null;
  bound_passkey_id: string | null;
  bound_subject: string | null;
  bound_role: string | null;
  bound_scope_type: string | null;
  bound_tenant_id: string | null;
  bound_site_id: string | null;
  attempts: number;
  client_address: string | null;
  created_at: string;
  expires_at: string;
  completed_at: string | null;
  passkey_id: string | null;
}

export const publicStatus = (row: ChallengeRow, now = new Date().toISOString()) =>
  row.status === 'pending' && row.expires_at <= now ? 'expired' : row.status;

export class Challenges {
  readonly store: Store<ChallengeRow>;
  constructor(private readonly db: Database, private readonly digest: (v: string) => string) {
    this.store = new Store<ChallengeRow>(db, challenges);
  }

  async start(method: 'qr' | 'rfid', address: string | undefined, by: Caller | undefined) {
    const now = new Date();
    const row: ChallengeRow = {
      id: `CH-${randomUUID()}`, method, status: 'pending', nonce_hash: null, code_hash: null,
      bound_passkey_id: null, bound_subject: null, bound_role: null, bound_scope_type: null, bound_tenant_id: null, bound_site_id: null,
      attempts: 0, client_address: address ?? null, created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CHALLENGE_TTL_MS).toISOString(), completed_at: null, passkey_id: null,
    };
    let secret: string | undefined;
    let code: string | undefined;
    if (method === 'qr' && by) {
      secret = `QR-${randomBytes(24).toString('base64url')}`;
      code = await this.freeCode();
      Object.assign(row, {
        nonce_hash: this.digest(secret), code_hash: this.digest(`code:${code}`),
        bound_passkey_id: isPasskeySubject(by.subject) ? by.subject : null, bound_subject: by.subject, bound_role: by.role,
        bound_scope_type: by.scope_type, bound_tenant_id: by.tenant_id ?? null, bound_site_id: by.site_id ?? null,
      });
    }
    await this.store.insert(row);
    return { row, secret, code };
  }

  /** A 4-digit code no other pending challenge uses. */
  private async freeCode(): Promise<string> {
    for (;;) {
      const code = String(randomInt(0, 10_000)).padStart(4, '0');
      if (!(await this.pendingByCode(code))) return code;
    }
  }

  private pending() {
    const t = tableFor(challenges, this.db.dialect);
    const col = (n: string) => columnOf(challenges, this.db.dialect, n);
    return { t, col, live: and(eq(col('status'), 'pending'), gt(col('expires_at'), new Date().toISOString())) };
  }

  async pendingByCode(code: string): Promise<ChallengeRow | undefined> {
    const { t, col, live } = this.pending();
    const rows = (await this.db.orm.select().from(t).where(and(live, eq(col('code_hash'), this.digest(`code:${code}`))))) as unknown as ChallengeRow[];
    return rows[0];
  }

  /** A wrong code counts against every pending code challenge: the code alone names none. */
  async failCodeAttempt(): Promise<void> {
    const { t, live } = this.pending();
    await this.db.transaction(async () => {
      const rows = (await this.db.orm.select().from(t).where(live)) as unknown as ChallengeRow[];
      for (const r of rows.filter((x) => x.code_hash)) await this.failAttempt(r);
    });
  }

  async failAttempt(row: ChallengeRow): Promise<void> {
    const attempts = row.attempts + 1;
    await this.store.update({ id: row.id }, { attempts, ...(attempts >= MAX_ATTEMPTS ? { status: 'locked' as const } : {}) });
  }

  /** Marks the challenge used, once: a second completion finds it no longer pending. */
  async complete(row: ChallengeRow, passkeyId: string | null): Promise<boolean> {
    return this.db.transaction(async () => {
      const current = await this.store.find({ id: row.id });
      if (!current || current.status !== 'pending') return false;
      await this.store.update({ id: row.id }, { status: 'completed', completed_at: new Date().toISOString(), passkey_id: passkeyId });
      return true;
    });
  }
}
