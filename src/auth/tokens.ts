// Session tokens: JWT HS256 (jose). Claims: iss "cabinet", aud "cabinet-api", sub (who),
// sid (session id, the revocation handle), role, scope_type, tenant_id and site_id (tenant
// scope), iat, exp. Only HS256 is accepted, so alg:none and key-confusion tokens fail.
import { randomUUID, webcrypto, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import * as v from 'valibot';
import type { Caller } from '../kernel/context.js';

export const ISSUER = 'cabinet';
export const AUDIENCE = 'cabinet-api';

const claimsSchema = v.object({
  sub: v.pipe(v.string(), v.minLength(1)),
  sid: v.pipe(v.string(), v.minLength(8)),
  role: v.picklist(['operator', 'admin', 'security']),
  scope_type: v.picklist(['master', 'tenant']),
  tenant_id: v.optional(v.pipe(v.string(), v.minLength(1))),
  site_id: v.optional(v.pipe(v.string(), v.minLength(1))),
  exp: v.number(),
});

export interface IssueInput {
  subject: string;
  role: Caller['role'];
  scope_type: Caller['scope_type'];
  tenant_id?: string;
  site_id?: string;
  ttlMinutes: number;
}

export async function signSession(key: KeyObject, input: IssueInput): Promise<{ token: string; sid: string; expiresAt: Date }> {
  if (input.scope_type === 'tenant' && !input.tenant_id) throw new Error('a tenant session needs a tenant_id');
  const sid = randomUUID();
  const expiresAt = new Date(Date.now() + input.ttlMinutes * 60_000);
  const claims: Record<string, string> = { sid, role: input.role, scope_type: input.scope_type };
  if (input.tenant_id) claims.tenant_id = input.tenant_id;
  if (input.site_id) claims.site_id = input.site_id;
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(input.subject)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(key);
  return { token, sid, expiresAt };
}

export type VerifiedSession = Caller & { expires_at: Date };

/**
 * A verifier of session tokens for one key. The key is imported into WebCrypto once, here,
 * instead of by jose on every call (a KeyObject is exported and re-imported per verification).
 * A token whose signature and claims verified is remembered (bounded, by the whole token text):
 * its signature is a pure function of the text and the key, which never changes while the
 * process runs, so only the time-dependent claim (exp) is checked again on a later call.
 * Revocation is not decided here: the session service checks it on every call. 4,096 tokens
 * (about 2 MB) cover a master's tablets, whose streams re-verify at every heartbeat.
 */
export function sessionVerifier(key: KeyObject, maxRemembered = 4096): (token: string) => Readonly<VerifiedSession> | undefined | Promise<Readonly<VerifiedSession> | undefined> {
  // Imported at the first token to verify, not when the service is made: at a restart that is
  // after /ready (webcrypto's key import was about 1 % of a restart's CPU).
  let cryptoKey: Promise<webcrypto.CryptoKey> | undefined;
  const remembered = new Map<string, VerifiedSession>();
  const fresh = (s: VerifiedSession) => s.expires_at.getTime() > Math.floor(Date.now() / 1000) * 1000;
  const verifyNew = async (token: string) => {
    const verified = await verifySession(await (cryptoKey ??= webcrypto.subtle.importKey('raw', key.export(), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])), token);
    if (!verified) return undefined;
    // Oldest first out: a Map iterates in insertion order.
    if (remembered.size >= maxRemembered) remembered.delete(remembered.keys().next().value as string);
    remembered.set(token, verified);
    return verified;
  };
  // A remembered token is answered at once, not through a promise: the session check of every
  // request runs without waiting a turn for it.
  return (token) => {
    const known = remembered.get(token);
    if (!known) return verifyNew(token);
    // The remembered object itself, read-only: the session service answers a copy of it.
    if (fresh(known)) return known;
    remembered.delete(token);
    return undefined;
  };
}

/** The caller a token names, or undefined for anything not valid (never throws). */
async function verifySession(key: webcrypto.CryptoKey, token: string): Promise<VerifiedSession | undefined> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
    const claims = v.parse(claimsSchema, payload);
    if (claims.scope_type === 'tenant' && !claims.tenant_id) return undefined;
    return {
      subject: claims.sub,
      session_id: claims.sid,
      role: claims.role,
      scope_type: claims.scope_type,
      ...(claims.tenant_id ? { tenant_id: claims.tenant_id } : {}),
      ...(claims.site_id ? { site_id: claims.site_id } : {}),
      expires_at: new Date(claims.exp * 1000),
    };
  } catch {
    return undefined;
  }
}
