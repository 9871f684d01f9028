// The login exchange (contract 4.5, 5.12): start a challenge, complete it with a credential (or
// the 4-digit code of a hand-off), read its status. All three are public routes.
import * as v from 'valibot';
import { setCookie } from 'hono/cookie';
import { ApiError } from '../../kernel/errors.js';
import { defineRoute, type AnyRoute, type HandlerContext } from '../../kernel/route.js';
import type { Caller, Services } from '../../kernel/context.js';
import { Store } from '../../db/store.js';
import { atPanel, clientAddress, SESSION_COOKIE } from '../../auth/guard.js';
import { scopeString, isPasskeySubject } from '../../auth/scope.js';
import { Challenges, publicStatus, type ChallengeRow } from '../../auth/challenges.js';
import { Throttle } from '../../auth/throttle.js';
import { passkeys, type PasskeyRow } from '../passkeys/schema.js';
import { setupCommand, setupRequired } from '../../runtime/first-run.js';
import { phoneOrigin } from '../../runtime/tls-routes.js';

/** Failed logins per client address before it must wait (sliding 10-minute window). */
export const ADDRESS_FAILURE_LIMIT = 20;
const perService = new WeakMap<Services, { challenges: Challenges; throttle: Throttle }>();
const stateOf = (s: Services) => {
  let state = perService.get(s);
  if (!state) {
    state = { challenges: new Challenges(s.db, (x) => s.sessions.digest(x)), throttle: new Throttle(ADDRESS_FAILURE_LIMIT, 10 * 60_000) };
    perService.set(s, state);
  }
  return state;
};
const challengesOf = (s: Services) => stateOf(s).challenges;

const challengeItem = {
  type: 'object', required: ['challenge_id', 'method', 'status', 'expires_at'],
  properties: {
    challenge_id: { type: 'string' }, method: { enum: ['qr', 'rfid'] }, status: { enum: ['pending', 'completed', 'locked', 'expired'] },
    expires_at: { type: 'string', format: 'date-time' }, qr_payload: { type: 'string' }, code: { type: 'string', pattern: '^\\d{4}$' },
    qr_svg: { type: 'string', description: 'The hand-off QR code as an SVG image (hand-off challenges only).' },
    qr_missing: { enum: ['no_lan_address'], description: 'A hand-off without a link: the box has no network address a phone can reach (qr_payload and qr_svg are absent; the 4-digit code still works).' },
  },
};
const sessionItem = {
  type: 'object', required: ['authenticated'],
  properties: { authenticated: { type: 'boolean' }, expires_at: { type: 'string', format: 'date-time' }, user: { type: 'object' }, challenge: challengeItem },
};

const statusItem = {
  ...sessionItem,
  required: [...sessionItem.required, 'setup_required'],
  properties: {
    ...sessionItem.properties,
    setup_required: { type: 'boolean', description: 'True while no active admin passkey exists: the first admin card must be issued on the box before anyone can log in.' },
    setup_hint: { type: 'string', description: 'Only while setup_required, and only to the panel (panel_addresses): the exact command that issues the first admin card on this box (run it in a shell on the box).' },
  },
};

const view = (row: ChallengeRow) => ({ challenge_id: row.id, method: row.method, status: publicStatus(row), expires_at: row.expires_at });

function refuse(ctx: HandlerContext<unknown>, reason: string, subject?: string): never {
  const address = clientAddress(ctx.c) ?? 'unknown';
  stateOf(ctx.services).throttle.fail(address);
  ctx.services.security.record({
    category: 'auth', result: 'deny', event: 'login', method: 'POST', path: new URL(ctx.c.req.url).pathname, subject, reason,
    client_address: address, request_id: ctx.requestId, route_context: ctx.c.get('routeContext'),
  });
  throw new ApiError('login_refused', 'login refused');
}

function checkThrottle(ctx: HandlerContext<unknown>): void {
  const wait = stateOf(ctx.services).throttle.blockedFor(clientAddress(ctx.c) ?? 'unknown');
  if (wait > 0) throw new ApiError('rate_limited', 'too many failed login attempts from this address', [], { 'retry-after': String(Math.ceil(wait / 1000)) });
}

async function openSession(ctx: HandlerContext<unknown>, who: Omit<Caller, 'session_id'>, capAt?: string) {
  const { services, c } = ctx;
  const ttlByPasskey = capAt ? Math.floor((Date.parse(capAt) - Date.now()) / 60_000) : Infinity;
  const ttlMinutes = Math.max(1, Math.min(services.config.session_ttl_minutes, ttlByPasskey));
  const session = await services.sessions.issue({ ...who, ttlMinutes });
  setCookie(c, SESSION_COOKIE, session.token, {
    httpOnly: true, sameSite: 'Lax', path: '/', secure: new URL(c.req.url).protocol === 'https:', maxAge: ttlMinutes * 60,
  });
  services.security.record({
    category: 'auth', result: 'allow', event: 'login', method: 'POST', path: new URL(c.req.url).pathname, subject: who.subject,
    role: who.role, tenant_id: who.tenant_id, client_address: clientAddress(c), request_id: ctx.requestId, route_context: c.get('routeContext'),
  });
  return {
    authenticated: true, expires_at: session.expiresAt.toISOString(),
    user: { role: who.role, scope: scopeString(who), scope_type: who.scope_type, subject: who.subject, ...(who.tenant_id ? { tenant_id: who.tenant_id } : {}), ...(who.site_id ? { site_id: who.site_id } : {}) },
  };
}

async function activePasskey(services: Services, credential: string, type: 'qr' | 'rfid'): Promise<PasskeyRow | undefined> {
  const row = await new Store<PasskeyRow>(services.db, passkeys).find({ credential_digest: services.sessions.digest(credential) });
  if (!row || row.type !== type || row.status !== 'active' || row.expires_at <= new Date().toISOString()) return undefined;
  return row;
}

const startBody = v.strictObject({ method: v.picklist(['qr', 'rfid']) });
const completeBody = v.union([
  v.strictObject({ challenge_id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)), credential: v.pipe(v.string(), v.minLength(1), v.maxLength(300)) }),
  v.strictObject({ code: v.pipe(v.string(), v.regex(/^\d{4}$/)) }),
]);

export const loginRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post', path: '/api/v1/auth/passkey/commands/start', module: 'auth', tags: ['auth'], access: { public: true }, idempotent: false,
    summary: 'Start a login challenge (qr or rfid)',
    description: 'rfid: only from panel_addresses. qr without a session: complete with a QR passkey credential. qr with a session (the tablet at the panel): a hand-off to a phone; the answer carries qr_payload (URL with the challenge id and a one-time secret, on the box\'s LAN host as /ca.json names it, never loopback) and a 4-digit code; when the box has no LAN address, qr_missing no_lan_address instead of qr_payload and qr_svg. Challenges live 120 s.',
    body: startBody, status: 201, errors: ['login_method_forbidden', 'rate_limited'], response: { kind: 'single', item: challengeItem },
    handler: async (ctx) => {
      checkThrottle(ctx);
      const address = clientAddress(ctx.c);
      if (ctx.body.method === 'rfid' && !atPanel(ctx.services.config, address)) {
        ctx.services.security.record({ category: 'auth', result: 'deny', event: 'login_start', method: 'POST', path: '/api/v1/auth/passkey/commands/start', client_address: address, reason: 'rfid_outside_panel', request_id: ctx.requestId });
        throw new ApiError('login_method_forbidden', 'RFID login is accepted only at the panel');
      }
      const { row, secret, code } = await challengesOf(ctx.services).start(ctx.body.method, address, ctx.caller);
      // A hand-off link is for a phone: the box's LAN host (as /ca.json names it), never the loopback
      // address the panel used; without one there is no link, and the code is the way.
      const origin = secret ? phoneOrigin(ctx.services, ctx.c.req.header('host'), ctx.c.req.url) : new URL(ctx.c.req.url).origin;
      const payload = origin === undefined ? undefined : secret ? `${origin}/#/login?challenge=${row.id}&secret=${secret}` : `${origin}/#/login?challenge=${row.id}`;
      return {
        ...view(row),
        ...(ctx.body.method === 'qr' && payload ? { qr_payload: payload } : {}),
        ...(secret && !payload ? { qr_missing: 'no_lan_address' } : {}),
        // The secret is stored only as a digest, so its QR image can only be drawn now.
        ...(secret && payload ? { qr_svg: await (await import('qrcode')).default.toString(payload, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }) } : {}),
        ...(code ? { code } : {}),
      };
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/auth/passkey/commands/complete', module: 'auth', tags: ['auth'], access: { public: true }, idempotent: false,
    summary: 'Complete a challenge; sets the session cookie',
    description: 'Body {challenge_id, credential} with credential RF-... (rfid, only from panel_addresses like its start), QR-... (a QR passkey, or the hand-off secret from qr_payload); or {code} with the 4-digit hand-off code. Passkey ids (PK-...) are identifiers and never log in. Every failure is 401 login_refused; 5 failures lock a challenge; 20 failures in 10 minutes from one address answer 429 rate_limited.',
    body: completeBody, errors: ['login_refused', 'rate_limited'], response: { kind: 'single', item: sessionItem },
    handler: async (ctx) => {
      checkThrottle(ctx);
      const challenges = challengesOf(ctx.services);
      const now = new Date().toISOString();
      if ('code' in ctx.body) {
        const row = await challenges.pendingByCode(ctx.body.code);
        if (!row) {
          await challenges.failCodeAttempt();
          return refuse(ctx, 'wrong_code');
        }
        return handOff(ctx, challenges, row);
      }
      const { challenge_id, credential } = ctx.body;
      const row = await challenges.store.find({ id: challenge_id });
      if (!row) return refuse(ctx, 'unknown_challenge');
      if (row.status !== 'pending') return refuse(ctx, `challenge_${row.status}`);
      if (row.expires_at <= now) return refuse(ctx, 'challenge_expired');
      // A card challenge is completed where it was started, at the panel: a card UID copied on the
      // LAN must not finish one the panel opened. Checked before the credential, so a refusal here
      // says nothing about it; it counts against the challenge like a wrong credential.
      if (row.method === 'rfid' && !atPanel(ctx.services.config, clientAddress(ctx.c))) {
        await challenges.failAttempt(row);
        return refuse(ctx, 'rfid_outside_panel');
      }
      if (isPasskeySubject(credential)) {
        await challenges.failAttempt(row);
        return refuse(ctx, 'passkey_id_is_not_a_credential');
      }
      if (row.nonce_hash) {
        if (ctx.services.sessions.digest(credential) !== row.nonce_hash) {
          await challenges.failAttempt(row);
          return refuse(ctx, 'wrong_handoff_secret');
        }
        return handOff(ctx, challenges, row);
      }
      if (!ctx.services.modules.isInstalled('passkeys')) return refuse(ctx, 'passkeys_module_not_installed');
      const type = row.method;
      const prefix = type === 'rfid' ? 'RF-' : 'QR-';
      const passkey = credential.startsWith(prefix) ? await activePasskey(ctx.services, credential, type) : undefined;
      if (!passkey) {
        await challenges.failAttempt(row);
        return refuse(ctx, 'unknown_revoked_or_expired_credential');
      }
      if (!(await challenges.complete(row, passkey.id))) return refuse(ctx, 'challenge_reused', passkey.id);
      await new Store<PasskeyRow>(ctx.services.db, passkeys).update({ id: passkey.id }, { last_used_at: now });
      const who = { subject: passkey.id, role: passkey.role, scope_type: passkey.scope_type, ...(passkey.tenant_id ? { tenant_id: passkey.tenant_id } : {}), ...(passkey.site_id ? { site_id: passkey.site_id } : {}) };
      return { ...(await openSession(ctx, who, passkey.expires_at)), challenge: { ...view(row), status: 'completed' } };
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/auth/passkey/status', module: 'auth', tags: ['auth'], access: { public: true },
    summary: 'Login status: the current session, a challenge by id, and whether the first admin card is still to be made',
    description: 'setup_required is true while no active admin passkey exists (a fresh box): nobody can log in until one is issued, and setup_hint is the exact command, for this box, that issues it (answered at the panel only: panel_addresses, loopback by default).',
    query: { challenge_id: { type: 'string', description: 'A challenge to report on.' } },
    response: { kind: 'single', item: statusItem },
    handler: async ({ c, services, caller, query }) => {
      const challenge = typeof query.challenge_id === 'string' ? await challengesOf(services).store.find({ id: query.challenge_id }) : undefined;
      const setup = await setupRequired(services.db);
      return {
        authenticated: Boolean(caller),
        setup_required: setup,
        // The command names the executable's and the data directory's paths: told at the panel
        // only (and in the box's log), never to the LAN.
        ...(setup && atPanel(services.config, clientAddress(c)) ? { setup_hint: setupCommand(services.config) } : {}),
        ...(caller ? { user: { role: caller.role, scope: scopeString(caller), scope_type: caller.scope_type, subject: caller.subject } } : {}),
        ...(challenge ? { challenge: view(challenge) } : {}),
      };
    },
  }),
];

/** The phone takes over the session of whoever started the hand-off (its passkey must still be active). */
async function handOff(ctx: HandlerContext<unknown>, challenges: Challenges, row: ChallengeRow) {
  if (row.bound_passkey_id) {
    const p = await new Store<PasskeyRow>(ctx.services.db, passkeys).find({ id: row.bound_passkey_id });
    if (!p || p.status !== 'active' || p.expires_at <= new Date().toISOString()) return refuse(ctx, 'handoff_passkey_revoked', row.bound_passkey_id);
  }
  if (!(await challenges.complete(row, row.bound_passkey_id))) return refuse(ctx, 'challenge_reused');
  const who = {
    subject: row.bound_subject as string, role: row.bound_role as Caller['role'], scope_type: row.bound_scope_type as Caller['scope_type'],
    ...(row.bound_tenant_id ? { tenant_id: row.bound_tenant_id } : {}), ...(row.bound_site_id ? { site_id: row.bound_site_id } : {}),
  };
  return { ...(await openSession(ctx, who)), challenge: { ...view(row), status: 'completed' } };
}
