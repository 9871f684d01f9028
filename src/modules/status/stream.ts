// GET /api/v1/status/stream as a WebSocket. The upgrade is authenticated like any route
// (cookie, bearer header, or ?access_token=), gated by the module install state and the role's
// `status read` permission. A client resuming with ?since=N receives every stored event with
// id > N, then live events, each exactly once: the bus is subscribed BEFORE the backlog is read,
// live events arriving meanwhile are held, and everything is sent in id order with ids <= the
// last sent dropped.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { SESSION_COOKIE } from '../../auth/guard.js';
import { ERROR_CODES, type ErrorCode } from '../../kernel/errors.js';
import type { Caller, Services } from '../../kernel/context.js';
import { need } from '../../kernel/context.js';
import type { StatusEvent } from '../../realtime/bus.js';
import { refuseUpgrade } from '../../realtime/upgrade.js';
import { inScope, scopeOf, type StatusScope } from './service.js';

export const STREAM_PATH = '/api/v1/status/stream';
const BACKLOG_PAGE = 500;
/** A client whose unsent buffer grows beyond this is closed with 1013 and resumes with since. */
const MAX_BUFFERED = 4 * 1024 * 1024;
/** Clients handled per turn of the event loop by a heartbeat round. */
const HEARTBEAT_SLICE = 100;

export type StreamMessage =
  | { type: 'event'; data: StatusEvent }
  | { type: 'ready'; last_id: number; replayed: number }
  | { type: 'heartbeat'; timestamp: string; last_id: number }
  | { type: 'pong' };

function tokenOf(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization;
  if (header) return /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return url.searchParams.get('access_token') ?? undefined;
}

interface Client {
  ws: WebSocket;
  caller: Caller;
  /** Re-verified at every heartbeat, so a logout or a revoked passkey ends an open stream. */
  token: string;
  alive: boolean;
  lastSent: number;
  /** False while the catch-up runs; live events meanwhile are held, then sent in id order. */
  live: boolean;
  held: StatusEvent[];
}

/**
 * Clients grouped by the scope they may see, so a published event is matched against at most
 * four groups (any or its tenant, times any or its site) instead of every client, and turned
 * into JSON once for all of them.
 */
class Audience {
  private readonly groups = new Map<string, { scope: StatusScope; clients: Set<Client> }>();

  private static key(tenant: string | null | undefined, site: string | null | undefined): string {
    // "*" is "any"; a value is prefixed, so no tenant or site id can collide with "any".
    return `${tenant === undefined ? '*' : `=${tenant}`}\u0000${site === undefined ? '*' : `=${site}`}`;
  }

  add(client: Client, scope: StatusScope): () => void {
    const key = Audience.key(scope.tenant_id, scope.site_id);
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { scope, clients: new Set() }));
    const g = group;
    g.clients.add(client);
    return () => {
      g.clients.delete(client);
      if (!g.clients.size && this.groups.get(key) === g) this.groups.delete(key);
    };
  }

  /** Each client in the event's scope, once. */
  *of(e: StatusEvent): Generator<Client> {
    for (const tenant of [undefined, e.tenant_id]) {
      for (const site of [undefined, e.site_id]) {
        const group = this.groups.get(Audience.key(tenant, site));
        // The key lookup selects the groups; inScope is the rule itself, checked once per group.
        if (group && inScope(e, group.scope)) yield* group.clients;
        if (e.site_id === null) break;
      }
      if (e.tenant_id === null) break;
    }
  }
}

/** Close codes of this stream beyond the standard ones (4000-4999 are the application's). */
export const CLOSE_SESSION_ENDED = 4401;
export const CLOSE_UNINSTALLED = 4404;

export function startStatusStream(services: Services): { stop(): void; clients(): number } {
  // ws (and the zlib it loads) is loaded by the first stream opened, not by every start.
  let wss: WebSocketServer | undefined;
  const server = async () => (wss ??= new (await import('ws')).WebSocketServer({ noServer: true, maxPayload: 64 * 1024 }));
  const clients = new Set<Client>();
  const heartbeatMs = services.config.status_heartbeat_ms;

  const refuse = (socket: Duplex, code: ErrorCode, message: string, details: { field: string; reason: string }[] = []) => {
    const error = code === 'auth_required' ? { code, message } : { code, message, details };
    refuseUpgrade(socket, ERROR_CODES[code].status, { error, meta: { request_id: 'ws-upgrade', timestamp: new Date().toISOString() } });
  };

  const securityLog = (req: IncomingMessage, caller: Caller | undefined, result: 'allow' | 'deny', reason?: string) => {
    try {
      services.security.record({
        category: caller ? 'access' : 'auth', result, event: 'status_stream', method: 'GET', path: STREAM_PATH,
        tenant_id: caller?.tenant_id, subject: caller?.subject, role: caller?.role, client_address: req.socket.remoteAddress, reason,
        request_id: 'ws-upgrade', route_context: {},
      });
    } catch {
      // the security log is best effort here; the refusal itself is what matters
    }
  };

  const send = (client: Client, msg: StreamMessage | Buffer) => {
    if (client.ws.readyState !== client.ws.OPEN) return;
    // A Buffer is an event already serialised for every client it goes to; it is sent as text.
    if (Buffer.isBuffer(msg)) client.ws.send(msg, { binary: false });
    else client.ws.send(JSON.stringify(msg));
    if (client.ws.bufferedAmount > MAX_BUFFERED) client.ws.close(1013, 'too slow: reconnect with since=<last id>');
  };

  const sendEvent = (client: Client, e: StatusEvent) => {
    if (e.id <= client.lastSent) return;
    client.lastSent = e.id;
    send(client, { type: 'event', data: e });
  };

  // One bus subscription for the whole stream, made when the first client joins.
  const audience = new Audience();
  let offBus: (() => void) | undefined;
  const deliver = (e: StatusEvent) => {
    let frame: Buffer | undefined;
    for (const client of audience.of(e)) {
      if (!client.live) { client.held.push(e); continue; }
      if (e.id <= client.lastSent) continue;
      client.lastSent = e.id;
      frame ??= Buffer.from(JSON.stringify({ type: 'event', data: e } satisfies StreamMessage));
      send(client, frame);
    }
  };
  const subscribe = () => {
    if (offBus) return;
    const bus = need(services, 'bus');
    const offLocal = bus.on('status', deliver);
    // Events stored by other processes of a multi-process master (src/modules/tenant-master-sync/engine/cluster.ts).
    const offRemote = bus.on('remote_status', deliver);
    offBus = () => { offLocal(); offRemote(); };
  };

  async function serve(ws: WebSocket, caller: Caller, token: string, since: number | undefined, scope: StatusScope) {
    const client: Client = { ws, caller, token, alive: true, lastSent: 0, live: false, held: [] };
    clients.add(client);
    subscribe();
    const leave = audience.add(client, scope);
    ws.on('pong', () => { client.alive = true; });
    ws.on('message', (data) => {
      client.alive = true;
      try {
        if ((JSON.parse(String(data)) as { type?: string }).type === 'ping') send(client, { type: 'pong' });
      } catch {
        // not JSON: ignored
      }
    });
    ws.on('close', () => { leave(); clients.delete(client); });
    ws.on('error', () => ws.terminate());
    let replayed = 0;
    try {
      if (since === undefined) {
        client.lastSent = await need(services, 'status').lastId(scope);
      } else {
        client.lastSent = since;
        for (;;) {
          const page = await need(services, 'status').after(client.lastSent, scope, BACKLOG_PAGE);
          for (const e of page) { sendEvent(client, e); replayed++; }
          if (page.length < BACKLOG_PAGE || ws.readyState !== ws.OPEN) break;
        }
      }
    } catch (err) {
      services.log.error('status stream catch-up failed', { error: (err as Error).message });
      ws.close(1011, 'catch-up failed');
      return;
    }
    // No await from here on: held events and the switch to live happen in one turn.
    const held = client.held.sort((a, b) => a.id - b.id);
    client.held = [];
    for (const e of held) sendEvent(client, e);
    client.live = true;
    send(client, { type: 'ready', last_id: client.lastSent, replayed });
  }

  // A heartbeat is a ping, a message and a session check per client: for thousands of clients
  // that is tens of milliseconds, so it runs in slices with a turn of the event loop between
  // them, and a published event waits for one slice at most, not for the whole round.
  let beating = false;
  const heartbeat = async () => {
    if (beating) return;
    beating = true;
    try {
      const round = [...clients];
      for (let i = 0; i < round.length; i += HEARTBEAT_SLICE) {
        if (i) await new Promise((r) => setImmediate(r));
        for (const client of round.slice(i, i + HEARTBEAT_SLICE)) {
          if (!clients.has(client)) continue;
          if (!client.alive) { client.ws.terminate(); continue; }
          if (!services.modules.isInstalled('status')) { client.ws.close(CLOSE_UNINSTALLED, 'module status is not installed'); continue; }
          client.alive = false;
          client.ws.ping();
          send(client, { type: 'heartbeat', timestamp: new Date().toISOString(), last_id: client.lastSent });
          void services.sessions.verify(client.token).then((still) => {
            if (!still) client.ws.close(CLOSE_SESSION_ENDED, 'session ended: log in again');
          }, () => undefined);
        }
      }
    } finally {
      beating = false;
    }
  };
  const timer = setInterval(() => void heartbeat(), heartbeatMs);
  timer.unref();

  const unregister = services.upgrades.register(STREAM_PATH, async (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (services.lifecycle.state !== 'ready') return refuse(socket, 'service_unavailable', `service is ${services.lifecycle.state}`);
    if (!services.modules.isInstalled('status')) return refuse(socket, 'module_not_installed', 'module status is not installed');
    const details: { field: string; reason: string }[] = [];
    for (const name of new Set(url.searchParams.keys())) {
      if (!['since', 'site_id', 'access_token'].includes(name)) details.push({ field: name, reason: 'unknown_parameter' });
    }
    const sinceRaw = url.searchParams.get('since');
    if (sinceRaw !== null && !/^\d{1,15}$/.test(sinceRaw)) details.push({ field: 'since', reason: 'invalid_type' });
    const token = tokenOf(req, url);
    const caller = token ? await services.sessions.verify(token) : undefined;
    if (!caller) {
      securityLog(req, undefined, 'deny', 'auth_required');
      return refuse(socket, 'auth_required', 'a valid session token is required (cookie, bearer header or access_token)');
    }
    if (details.length) return refuse(socket, 'validation_error', `invalid query: ${details.map((d) => `${d.field} (${d.reason})`).join(', ')}`, details);
    if (!services.modules.allows(caller.role, 'status', 'read')) {
      securityLog(req, caller, 'deny', 'rbac_forbidden');
      return refuse(socket, 'rbac_forbidden', `role ${caller.role} may not read status`);
    }
    const site = url.searchParams.get('site_id') ?? undefined;
    if (site && caller.site_id && site !== caller.site_id) {
      securityLog(req, caller, 'deny', 'tenant_boundary_denied');
      return refuse(socket, 'tenant_boundary_denied', `this session is bound to site ${caller.site_id}`);
    }
    securityLog(req, caller, 'allow');
    (await server()).handleUpgrade(req, socket, head, (ws) => {
      void serve(ws, caller, token as string, sinceRaw === null ? undefined : Number(sinceRaw), scopeOf(caller, site));
    });
  }, () => {
    for (const c of clients) c.ws.close(1001, 'server stopping');
  });

  return {
    stop() {
      clearInterval(timer);
      offBus?.();
      unregister();
      for (const c of clients) c.ws.close(1001, 'server stopping');
      wss?.close();
    },
    clients: () => clients.size,
  };
}
