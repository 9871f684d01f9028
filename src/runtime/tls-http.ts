// The two listeners' rules: plain HTTP answers loopback clients (the panel's kiosk browser), the
// probes and the CA download as before, and sends every other LAN client to HTTPS with a 308 (the
// method and body are kept). The redirect names one of the box's own names, never a host the
// request made up. WebSocket upgrades on plain HTTP are taken from loopback only once HTTPS
// listens: a session token (cookie, header or query) would cross the LAN in clear.
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Http2Bindings, HttpBindings } from '@hono/node-server';
import type { BoxNames } from './tls-names.js';

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

/** An IPv4-mapped IPv6 address (a listener on ::) as the IPv4 address it is. */
const unmapped = (address: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address);

/** The Host header's host when it is one of the box's own names other than loopback ones ("box.local", "[fd00::2]"), else undefined. */
export function boxNameAsked(hostHeader: string | undefined, names: BoxNames | undefined): string | undefined {
  const asked = hostOf(hostHeader)?.toLowerCase();
  const bare = asked?.replace(/^\[|\]$/g, '');
  if (!asked || !bare || !names || bare === 'localhost' || isLoopback(bare)) return undefined;
  return names.dns.includes(bare) || names.ips.includes(bare) ? asked : undefined;
}

/**
 * The host a redirect (or a link the box hands out) names: the host the client asked for only when
 * it is one of the box's own names (those its certificate carries) other than loopback ones, else
 * the address the request arrived on. A Host header is the client's word: reflected, it would send
 * a tablet to any site (issue 33).
 */
export function ownHost(hostHeader: string | undefined, local: string | undefined, names: BoxNames | undefined): string {
  const own = boxNameAsked(hostHeader, names);
  if (own) return own;
  const address = unmapped(local ?? '127.0.0.1');
  return isIP(address) === 6 ? `[${address}]` : address;
}

/** Where a plain HTTP request goes instead, or undefined when it is answered here. */
export function redirectTarget(req: { url?: string; headers: { host?: string | undefined }; socket: { remoteAddress?: string | undefined; localAddress?: string | undefined } }, httpsPort: number | undefined, names?: BoxNames): string | undefined {
  if (httpsPort === undefined || isLoopback(req.socket.remoteAddress)) return undefined;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  if (PLAIN_PATHS.has(q < 0 ? url : url.slice(0, q))) return undefined;
  const host = ownHost(req.headers.host, req.socket.localAddress, names);
  return `https://${host}${httpsPort === 443 ? '' : `:${httpsPort}`}${url.startsWith('/') ? url : `/${url}`}`;
}

/** What the plain listener knows of HTTPS: its port and the box's names, once it listens. */
export type HttpsInfo = () => { port: number; names: BoxNames } | undefined;

/** The plain HTTP listener's handler: redirects LAN clients once HTTPS listens. */
export function plainHttpFetch(fetch: NodeFetch, https: HttpsInfo): NodeFetch {
  return (request, env) => {
    const info = https();
    const target = env?.incoming && info ? redirectTarget(env.incoming, info.port, info.names) : undefined;
    if (!target) return fetch(request, env);
    return new Response(`Moved to ${target}\n`, { status: 308, headers: { location: target, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
  };
}

export type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * The plain HTTP listener's 'upgrade' handler: once HTTPS listens, a WebSocket from anyone but
 * loopback is refused (403 https_required, naming the wss:// address): its cookie or token would
 * cross the LAN in clear. Without HTTPS everything is plain anyway and the upgrade is taken.
 */
export function plainUpgrade(handle: UpgradeListener, https: HttpsInfo, refuse: (socket: Duplex, message: string) => void): UpgradeListener {
  return (req, socket, head) => {
    const info = https();
    if (!info || isLoopback(req.socket.remoteAddress)) return handle(req, socket, head);
    socket.on('error', () => socket.destroy());
    const host = ownHost(req.headers.host, req.socket.localAddress, info.names);
    refuse(socket, `refused: a WebSocket on plain HTTP from the LAN carries its session in clear; use wss://${host}${info.port === 443 ? '' : `:${info.port}`}${req.url?.split('?')[0] ?? '/'}`);
  };
}
