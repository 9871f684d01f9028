// The two listeners' rules: plain HTTP answers loopback clients (the panel's kiosk browser), the
// probes and the CA download as before, and sends every other LAN client to HTTPS with a 308 (the
// method and body are kept). WebSocket upgrades are not requests here: both listeners take them.
import { isIP } from 'node:net';
import type { Http2Bindings, HttpBindings } from '@hono/node-server';

export type NodeFetch = (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>;

/** Answered on plain HTTP to anyone: the probes, and the CA a tablet must fetch before it trusts HTTPS. */
export const PLAIN_PATHS = new Set(['/health', '/live', '/ready', '/ca.crt', '/ca.pem', '/ca.json']);

export const isLoopback = (address: string | undefined): boolean =>
  !!address && (address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.'));

/** The host part of a Host header ("10.0.0.5:8080", "[fe80::1]:80", "box.local"), or undefined when it is not a plain name or address. */
export function hostOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/.exec(header.trim());
  if (!m) return undefined;
  const host = m[1]!;
  if (host.startsWith('[') && isIP(host.slice(1, -1)) !== 6) return undefined;
  return host;
}

/** Where a plain HTTP request goes instead, or undefined when it is answered here. */
export function redirectTarget(req: { url?: string; headers: { host?: string | undefined }; socket: { remoteAddress?: string | undefined; localAddress?: string | undefined } }, httpsPort: number | undefined): string | undefined {
  if (httpsPort === undefined || isLoopback(req.socket.remoteAddress)) return undefined;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  if (PLAIN_PATHS.has(q < 0 ? url : url.slice(0, q))) return undefined;
  const local = req.socket.localAddress ?? '127.0.0.1';
  const host = hostOf(req.headers.host) ?? (isIP(local) === 6 ? `[${local}]` : local);
  return `https://${host}${httpsPort === 443 ? '' : `:${httpsPort}`}${url.startsWith('/') ? url : `/${url}`}`;
}

/** The plain HTTP listener's handler: redirects LAN clients once HTTPS listens (httpsPort() defined). */
export function plainHttpFetch(fetch: NodeFetch, httpsPort: () => number | undefined): NodeFetch {
  return (request, env) => {
    const target = env?.incoming ? redirectTarget(env.incoming, httpsPort()) : undefined;
    if (!target) return fetch(request, env);
    return new Response(`Moved to ${target}\n`, { status: 308, headers: { location: target, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
  };
}
