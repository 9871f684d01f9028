// A small HTTP client for integration tests. Every JSON answer is checked against the
// server's own OpenAPI document, so the contract is tested by every test that calls the API.
import { Contract } from './contract.js';

export interface Answer<T = any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface Client {
  baseUrl: string;
  contract: Contract;
  seen: { method: string; path: string; status: number }[];
  request(method: string, path: string, opts?: { body?: unknown; raw?: string; headers?: Record<string, string>; skipContract?: boolean }): Promise<Answer>;
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  patch(path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  delete(path: string, headers?: Record<string, string>): Promise<Answer>;
  withHeaders(headers: Record<string, string>): Client;
}

/**
 * fetch, retrying once when the pooled keep-alive socket the request went out on had just been
 * closed by the server (its 5 s idle timeout racing the next request after a long pause in a test
 * on a loaded machine). Node's server closes a keep-alive socket only while no request is in
 * flight on it, so a reset there means the request never reached a handler: retrying it cannot
 * run a command twice (and if it ever did, the test would see the second answer, a 409 or a
 * duplicate, and fail).
 */
async function fetchOnce(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const code = ((err as { cause?: { code?: string } }).cause ?? {}).code;
    if (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET') throw err;
    return fetch(url, init);
  }
}

export async function createClient(baseUrl: string, defaults: Record<string, string> = {}, contract?: Contract): Promise<Client> {
  const c = contract ?? (await Contract.fetch(baseUrl));
  const seen: Client['seen'] = [];
  const client: Client = {
    baseUrl,
    contract: c,
    seen,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...defaults, ...(opts.headers ?? {}) };
      let body: string | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetchOnce(`${baseUrl}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('application/json') && text) parsed = JSON.parse(text);
      const pathname = new URL(`${baseUrl}${path}`).pathname;
      seen.push({ method, path: pathname, status: res.status });
      if (!opts.skipContract && typeof parsed === 'object') c.check(method, pathname, res.status, parsed);
      return { status: res.status, body: parsed, headers: res.headers, text };
    },
    get: (path, headers) => client.request('GET', path, { headers }),
    post: (path, body, headers) => client.request('POST', path, { body, headers }),
    patch: (path, body, headers) => client.request('PATCH', path, { body, headers }),
    delete: (path, headers) => client.request('DELETE', path, { headers }),
    withHeaders: (extra) => {
      const copy = { ...client };
      const inner = client.request;
      copy.request = (method, path, opts = {}) => inner(method, path, { ...opts, headers: { ...extra, ...(opts.headers ?? {}) } });
      copy.get = (path, headers) => copy.request('GET', path, { headers });
      copy.post = (path, body, headers) => copy.request('POST', path, { body, headers });
      copy.patch = (path, body, headers) => copy.request('PATCH', path, { body, headers });
      copy.delete = (path, headers) => copy.request('DELETE', path, { headers });
      return copy;
    },
  };
  return client;
}

/** A client that sends a bearer token for the given claims (default: admin, master scope). */
export async function clientAs(
  env: { token(server: { url: string }, claims?: Record<string, unknown>): Promise<string> },
  server: { url: string },
  claims: Record<string, unknown> = {},
  contract?: Contract,
): Promise<Client> {
  const token = await env.token(server as never, claims);
  return createClient(server.url, { authorization: `Bearer ${token}` }, contract);
}

/** A client signed in with a site's credential through the QR passkey flow, as a box's sync signs in to its master. */
export async function siteClient(masterUrl: string, credential: string, contract?: Contract): Promise<Client> {
  const c = await createClient(masterUrl, {}, contract);
  const start = await c.post('/api/v1/auth/passkey/commands/start', { method: 'qr' });
  const done = await c.post('/api/v1/auth/passkey/commands/complete', { challenge_id: start.body.item.challenge_id, credential });
  const session = /cabinet_session=([^;]+)/.exec(done.headers.get('set-cookie') ?? '')?.[1];
  if (!session) throw new Error(`the site's passkey sign-in failed: ${done.status} ${JSON.stringify(done.body)}`);
  return c.withHeaders({ authorization: `Bearer ${session}` });
}
