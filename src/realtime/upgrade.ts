// The one seam between the HTTP server and WebSocket endpoints: server.ts hands every HTTP
// 'upgrade' request to this router; modules register a handler for a path in their runtime.
// The router tracks upgraded sockets so a stopping service can close them at once (an upgraded
// socket is no longer an HTTP connection, so server.close() alone would wait for it).
// Before any handler it applies the box's rules for every WebSocket: none opened from a page of
// another origin, and no session token in a query string over plain HTTP from the LAN.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { ERROR_CODES, type ErrorCode } from '../kernel/errors.js';
import { crossSiteReason } from '../kernel/web-policy.js';
import { isLoopback } from '../runtime/tls-http.js';

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void | Promise<void>;

export interface UpgradeRouter {
  /**
   * Registers the handler for an exact path (query ignored); returns an unregister function.
   * `close` is called when the service stops, before remaining sockets are destroyed.
   */
  register(path: string, handler: UpgradeHandler, close?: () => void): () => void;
  /** The server's 'upgrade' listener. */
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends every upgraded socket (service stopping). */
  closeAll(): void;
}

declare module '../kernel/context.js' {
  interface Services {
    upgrades: UpgradeRouter;
  }
}

/** Writes a plain HTTP answer on a socket that was not upgraded, then closes it. */
export function refuseUpgrade(socket: Duplex, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const reason = ({ 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' } as Record<number, string>)[status] ?? 'Error';
  const head = [`HTTP/1.1 ${status} ${reason}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`, 'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (socket.writable) socket.end(`${head.join('\r\n')}\r\n\r\n${text}`);
  else socket.destroy();
}

/** Refuses an upgrade with the API's error envelope. */
export function refuseUpgradeWith(socket: Duplex, code: ErrorCode, message: string): void {
  refuseUpgrade(socket, ERROR_CODES[code].status, { error: { code, message, details: [] }, meta: { request_id: 'upgrade', timestamp: new Date().toISOString() } });
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

/** Why the box refuses this upgrade whatever its path, or undefined. */
export function upgradeRefusal(req: IncomingMessage, url: URL): { code: ErrorCode; message: string } | undefined {
  const crossSite = crossSiteReason({ origin: header(req, 'origin'), secFetchSite: header(req, 'sec-fetch-site'), host: header(req, 'host') });
  if (crossSite) return { code: 'cross_site_request', message: `refused: a page of another origin cannot open this box's WebSocket (${crossSite})` };
  if (url.searchParams.has('access_token') && (req.socket as TLSSocket).encrypted !== true && !isLoopback(req.socket.remoteAddress)) {
    return { code: 'https_required', message: 'refused: a session token in the query string crosses the LAN in clear; connect with wss:// to the HTTPS port' };
  }
  return undefined;
}

export function createUpgradeRouter(onError: (err: Error) => void = () => undefined): UpgradeRouter {
  const handlers = new Map<string, UpgradeHandler>();
  const closers = new Map<string, () => void>();
  const sockets = new Set<Duplex>();
  return {
    register(path, handler, close) {
      handlers.set(path, handler);
      if (close) closers.set(path, close);
      return () => {
        if (handlers.get(path) === handler) {
          handlers.delete(path);
          closers.delete(path);
        }
      };
    },
    handle(req, socket, head) {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      const handler = handlers.get(path);
      socket.on('error', () => socket.destroy());
      const refusal = upgradeRefusal(req, url);
      if (refusal) {
        refuseUpgradeWith(socket, refusal.code, refusal.message);
        return;
      }
      if (!handler) {
        refuseUpgrade(socket, 404, { error: { code: 'not_found', message: `no WebSocket endpoint at ${path}`, details: [] }, meta: { request_id: 'upgrade', timestamp: new Date().toISOString() } });
        return;
      }
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      Promise.resolve()
        .then(() => handler(req, socket, head))
        .catch((err: Error) => {
          onError(err);
          socket.destroy();
        });
    },
    closeAll() {
      for (const close of closers.values()) {
        try { close(); } catch (err) { onError(err as Error); }
      }
      // end() flushes what the closers wrote (close frames); destroy() follows if the peer lingers.
      for (const s of sockets) {
        s.end();
        setTimeout(() => s.destroy(), 500).unref();
      }
      sockets.clear();
    },
  };
}
