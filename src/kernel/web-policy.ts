// What the box tells browsers about itself, and which browser requests it refuses, decided in
// one place for every answer (src/app.ts) and every WebSocket upgrade (src/realtime/upgrade.ts).
// Nothing on the site LAN is trusted on its word (issue 33): a page of another origin must not
// write with the box's cookie, frame the shell, or run script in it; a tablet that reached HTTPS
// once must not be talked back to plain HTTP.
import { isLoopback } from '../runtime/tls-http.js';

/**
 * The shell's policy: its own files only, no inline script or style (the build ships none), data:
 * images for the QR codes it draws, and no framing by anyone. connect-src 'self' covers ws:/wss:
 * of the same host in the browsers the tablets run (CSP level 3).
 */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * The API documentation page (/docs, Swagger UI) adds inline styles: its bundle injects <style>
 * elements. Script stays 'self': its start-up is a file of its own (/docs/init.js).
 */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const cspFor = (path: string): string => (path === '/docs' || path.startsWith('/docs/') ? DOCS_CSP : CSP);

/**
 * One year, without includeSubDomains: a box's host name may share its domain with other devices
 * of the site that have no certificate. Browsers ignore HSTS for IP addresses, so it binds tablets
 * that use a name (box.local).
 */
export const HSTS = 'max-age=31536000';

/** HSTS goes on HTTPS answers to anyone but loopback: the panel's kiosk browser stays on plain http://localhost:8080. */
export const wantsHsts = (encrypted: boolean, remote: string | undefined): boolean => encrypted && !isLoopback(remote);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const changesState = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase());

/** host and port of a URL authority ("box.local:8443", "[fd00::2]", "10.0.0.5"); port "" when it names none. */
function authority(hostPort: string): { host: string; port: string } | undefined {
  try {
    const u = new URL(`http://${hostPort}`);
    if (u.pathname !== '/' || u.username || u.password || u.search || u.hash) return undefined;
    // URL drops :80 for http; the Host header named it, so it is explicit.
    const port = u.port || (/:80$/.test(hostPort) ? '80' : '');
    return { host: u.hostname.toLowerCase(), port };
  } catch {
    return undefined;
  }
}

export interface BrowserHeaders {
  origin: string | undefined;
  secFetchSite: string | undefined;
  host: string | undefined;
}

/**
 * Why a request that a browser sent from a page of another origin is refused, or undefined when it
 * came from the box's own pages or from no browser at all.
 *
 * Sec-Fetch-Site, which the browser computes itself, decides when present: only `same-origin` (and
 * `none`, a request the person typed) pass; `same-site` is refused too, since another service on the
 * same address (another port) is same-site. Without it (Safari before 16.4), the Origin header must
 * name the host and port the request was sent to (its Host header; a Host without a port was sent to
 * a default port, 80 or 443). The scheme is not compared: behind the master's TLS proxy the request
 * arrives as plain HTTP, and the box's own HTTP and HTTPS listeners differ by port anyway. A client
 * that sends neither header is no browser (curl, a device, the sync): it holds no ambient
 * credential a page could borrow.
 */
export function crossSiteReason(h: BrowserHeaders): string | undefined {
  const site = h.secFetchSite?.trim().toLowerCase();
  if (site) return site === 'same-origin' || site === 'none' ? undefined : `Sec-Fetch-Site is ${site}`;
  if (h.origin === undefined) return undefined;
  const origin = h.origin.trim();
  const refused = `Origin ${origin.slice(0, 100)} is not this box`;
  const m = /^(https?):\/\/([^/]+)$/i.exec(origin);
  const from = m ? authority(m[2]!) : undefined;
  const to = h.host ? authority(h.host.trim()) : undefined;
  if (!m || !from || !to || from.host !== to.host) return refused;
  const fromPort = from.port || (m[1]!.toLowerCase() === 'https' ? '443' : '80');
  if (to.port ? fromPort !== to.port : fromPort !== '80' && fromPort !== '443') return refused;
  return undefined;
}
