// The kit's HTTP listeners: a Hono app's fetch on a Node http or https server, in place of
// @hono/node-server, whose module makes undici's Request and Response (and loads node:http2) the
// moment it is imported. Here a request is a light object over the Node request (method, url,
// headers made on first read) and an answer of text, bytes or a stream built by Hono's
// `new Response()` is written to the Node response without a web Response or Headers
// (src/runtime/web-classes.ts): a restart reaches /ready without loading undici or http2. The
// rest follows @hono/node-server 1.19's listener (its request URL and Host checks, body draining,
// the abort signal, error answers), without HTTP/2, which the box never serves.
import { createServer as createHttpServer, type IncomingMessage, type OutgoingHttpHeaders, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { Readable } from 'node:stream';
import { listenOn } from './listen.js';
import { LightResponse, realClasses, registerLightRequest, replaceGlobals, type LightRequestLike, type Simple } from './web-classes.js';

/** What the app's fetch gets beside the request (c.env): the Node request and response. */
export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}
export type FetchCallback = (request: Request, env: NodeBindings) => Response | Promise<Response>;

export interface ServeOptions {
  fetch: FetchCallback;
  port: number;
  hostname?: string;
  /** https.createServer for HTTPS; http.createServer by default. */
  createServer?: (options: object, listener: RequestListener) => Server | HttpsServer;
  serverOptions?: object;
  /** A failure while writing an answer (its status may be out already): the caller's log. A client gone mid-answer is not one. */
  onError?: (err: unknown) => void;
}

const toStderr = (err: unknown) => void process.stderr.write(`answer failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);

class RequestError extends Error {}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

const refuseBackslash = (target: string) => {
  const backslash = target.indexOf('\\');
  if (backslash === -1) return;
  const query = target.indexOf('?');
  if (query === -1 || backslash < query) throw new RequestError('Backslash in request path');
};

/** The request the app sees: what Hono reads of it (method, url) costs no web object. */
class NodeRequest implements LightRequestLike {
  #headers: Headers | undefined;
  #real: Request | undefined;
  /** Made with the real Request; aborted when the client goes before the answer is written. */
  abort: AbortController | undefined;

  constructor(
    readonly incoming: IncomingMessage,
    readonly url: string,
  ) {}

  get method(): string {
    return this.incoming.method || 'GET';
  }

  get headers(): Headers {
    if (!this.#headers) {
      const raw = this.incoming.rawHeaders;
      const pairs: [string, string][] = [];
      for (let i = 0; i < raw.length; i += 2) if (raw[i]!.charCodeAt(0) !== 58 /* : */) pairs.push([raw[i]!, raw[i + 1]!]);
      this.#headers = new globalThis.Headers(pairs);
    }
    return this.#headers;
  }

  toReal(): Request {
    if (this.#real) return this.#real;
    this.abort ??= new AbortController();
    const method = this.method;
    const init: RequestInit & { duplex?: 'half' } = { method, headers: this.headers, signal: this.abort.signal };
    const Real = realClasses().Request;
    if (method === 'TRACE') {
      init.method = 'GET';
      const req = new Real(this.url, init);
      Object.defineProperty(req, 'method', { get: () => 'TRACE' });
      return (this.#real = req);
    }
    if (method !== 'GET' && method !== 'HEAD') {
      // Read from the Node request only when the body is read (an answer sent first drains it).
      const incoming = this.incoming;
      let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
      init.body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            reader ??= (Readable.toWeb(incoming) as ReadableStream<Uint8Array>).getReader();
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          } catch (err) {
            controller.error(err);
          }
        },
      });
      init.duplex = 'half';
    }
    return (this.#real = new Real(this.url, init));
  }

  get body(): ReadableStream | null { return this.toReal().body; }
  get bodyUsed(): boolean { return this.toReal().bodyUsed; }
  get cache(): Request['cache'] { return this.toReal().cache; }
  get credentials(): Request['credentials'] { return this.toReal().credentials; }
  get destination(): Request['destination'] { return this.toReal().destination; }
  get integrity(): string { return this.toReal().integrity; }
  get keepalive(): boolean { return this.toReal().keepalive; }
  get mode(): Request['mode'] { return this.toReal().mode; }
  get redirect(): Request['redirect'] { return this.toReal().redirect; }
  get referrer(): string { return this.toReal().referrer; }
  get referrerPolicy(): Request['referrerPolicy'] { return this.toReal().referrerPolicy; }
  get signal(): AbortSignal { return this.toReal().signal; }
  arrayBuffer(): Promise<ArrayBuffer> { return this.toReal().arrayBuffer(); }
  blob(): Promise<Blob> { return this.toReal().blob(); }
  bytes(): Promise<Uint8Array> { return this.toReal().bytes(); }
  clone(): Request { return this.toReal().clone(); }
  formData(): Promise<FormData> { return this.toReal().formData(); }
  json(): Promise<unknown> { return this.toReal().json(); }
  text(): Promise<string> { return this.toReal().text(); }
}
registerLightRequest(NodeRequest.prototype);

/** The request's absolute URL, with @hono/node-server's checks: a Host header must be a host, no backslash before the query. */
function newRequest(incoming: IncomingMessage, defaultHostname: string | undefined): NodeRequest {
  const target = incoming.url || '';
  if (target[0] !== '/' && (target.startsWith('http://') || target.startsWith('https://'))) {
    try {
      refuseBackslash(target);
      return new NodeRequest(incoming, new URL(target).href);
    } catch (err) {
      throw new RequestError('Invalid absolute URL', { cause: err });
    }
  }
  const host = incoming.headers.host || defaultHostname;
  if (!host) throw new RequestError('Missing host header');
  const scheme = (incoming.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http';
  refuseBackslash(target);
  const url = new URL(`${scheme}://${host}${target}`);
  if (url.hostname.length !== host.length && url.hostname !== host.replace(/:\d+$/, '')) throw new RequestError('Invalid host header');
  return new NodeRequest(incoming, url.href);
}

const DRAIN_IDLE_MS = 2000;

/**
 * A body the client sent and nobody read: read and dropped, so the connection can be reused, for as
 * long as it keeps coming (at most 64 MiB, and never 2 s without a byte). Not a fixed 500 ms from
 * the answer (Hono's adapter's): a client slowed by load still sending a refused upload then had
 * the connection closed under it and lost the answer ("other side closed").
 */
function drainIncoming(incoming: IncomingMessage & { cabinetDraining?: boolean }): void {
  if (incoming.destroyed || incoming.cabinetDraining) return;
  incoming.cabinetDraining = true;
  let bytes = 0;
  const cleanup = () => {
    clearTimeout(timer);
    incoming.off('data', onData);
    incoming.off('end', cleanup);
    incoming.off('error', cleanup);
  };
  const forceClose = () => {
    cleanup();
    if (!incoming.socket.destroyed) incoming.socket.destroySoon();
  };
  const timer = setTimeout(forceClose, DRAIN_IDLE_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > 64 * 1024 * 1024) return forceClose();
    timer.refresh();
  };
  incoming.on('data', onData);
  incoming.on('end', cleanup);
  incoming.on('error', cleanup);
  incoming.resume();
}

/** A web Headers as Node's header object (Set-Cookie kept apart); a default content type as Hono's adapter gives. */
function nodeHeaders(headers: Headers): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const cookies: string[] = [];
  for (const [k, v] of headers) {
    if (k === 'set-cookie') cookies.push(v);
    else out[k] = v;
  }
  if (cookies.length) out['set-cookie'] = cookies;
  out['content-type'] ??= 'text/plain; charset=UTF-8';
  return out;
}

function writeStream(stream: ReadableStream<Uint8Array>, outgoing: ServerResponse, reader = stream.getReader(), pending?: Promise<ReadResult>): Promise<void> {
  const cancel = (err?: unknown) => void reader.cancel(err).catch(() => undefined);
  outgoing.on('close', cancel);
  outgoing.on('error', cancel);
  const failed = (err: unknown) => {
    if (err) outgoing.destroy(err as Error);
  };
  const flow = ({ done, value }: ReadResult): unknown => {
    try {
      if (done) outgoing.end();
      else if (!outgoing.write(value)) outgoing.once('drain', () => reader.read().then(flow, failed));
      else return reader.read().then(flow, failed);
    } catch (err) {
      failed(err);
    }
    return undefined;
  };
  void (pending ?? reader.read()).then(flow, failed);
  return reader.closed.finally(() => {
    outgoing.off('close', cancel);
    outgoing.off('error', cancel);
  });
}

const isRecord = (h: object) => {
  const proto = Object.getPrototypeOf(h);
  return proto === Object.prototype || proto === null;
};

/** A body-less answer (204, 304, a redirect) as a web Response would be written: no length, a content type by default. */
function writeEmpty(status: number, given: Simple[2], outgoing: ServerResponse): void {
  let headers: OutgoingHttpHeaders;
  if (given && isRecord(given) && !Array.isArray(given)) {
    headers = { ...(given as OutgoingHttpHeaders) };
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = 'text/plain; charset=UTF-8';
  } else if (!given) headers = { 'content-type': 'text/plain; charset=UTF-8' };
  else headers = nodeHeaders(Array.isArray(given) ? new globalThis.Headers(given) : (given as Headers));
  if (Object.keys(headers).some((k) => k.toLowerCase() === 'x-hono-already-sent')) return;
  outgoing.writeHead(status, headers);
  outgoing.end();
}

/** An answer Hono built of text, bytes, a blob or a stream, or of nothing: written without a web Response. */
async function writeSimple([status, body, given]: Simple, outgoing: ServerResponse, onError: (err: unknown) => void): Promise<void> {
  if (body === null) return writeEmpty(status, given, outgoing);
  let headers: OutgoingHttpHeaders;
  let hasLength = false;
  if (!given) headers = { 'content-type': 'text/plain; charset=UTF-8' };
  else if (Array.isArray(given) || !isRecord(given)) {
    const h = Array.isArray(given) ? new globalThis.Headers(given) : (given as Headers);
    hasLength = h.has('content-length');
    headers = nodeHeaders(h);
  } else {
    headers = given as OutgoingHttpHeaders;
    for (const key in headers) {
      if (key.length === 14 && key.toLowerCase() === 'content-length') {
        hasLength = true;
        break;
      }
    }
  }
  if (!hasLength) {
    if (typeof body === 'string') headers['Content-Length'] = Buffer.byteLength(body);
    else if (body instanceof Uint8Array) headers['Content-Length'] = body.byteLength;
    else if (body instanceof Blob) headers['Content-Length'] = body.size;
  }
  outgoing.writeHead(status, headers);
  if (typeof body === 'string' || body instanceof Uint8Array) outgoing.end(body);
  else if (body instanceof Blob) outgoing.end(new Uint8Array(await body.arrayBuffer()));
  else {
    outgoing.flushHeaders();
    await writeStream(body, outgoing).catch((err: unknown) => writeFailure(err, outgoing, onError));
  }
}

/** Any other answer (Node's own Response, a body-less one): through its web headers and body. */
async function writeResponse(res: Response, outgoing: ServerResponse, onError: (err: unknown) => void): Promise<void> {
  const headers = nodeHeaders(res.headers);
  if (!res.body) {
    if (headers['x-hono-already-sent']) return;
    outgoing.writeHead(res.status, headers);
    outgoing.end();
    return;
  }
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let done = false;
  let pending: Promise<ReadResult> | undefined;
  if (headers['transfer-encoding'] !== 'chunked') {
    // A body that is all there within a tick or two gets a Content-Length, as Hono's adapter does.
    let reads = 2;
    for (let i = 0; i < reads; i++) {
      pending ??= reader.read();
      const chunk = await Promise.race([pending, Promise.resolve().then(() => Promise.resolve(undefined))]).catch((err: unknown) => {
        onError(err);
        done = true;
        return undefined;
      });
      if (!chunk) {
        if (i === 1) {
          await new Promise((resolve) => setTimeout(resolve));
          reads = 3;
          continue;
        }
        break;
      }
      pending = undefined;
      if (chunk.value) chunks.push(chunk.value);
      if (chunk.done) {
        done = true;
        break;
      }
    }
    if (done && !('content-length' in headers)) headers['content-length'] = chunks.reduce((n, c) => n + c.length, 0);
  }
  outgoing.writeHead(res.status, headers);
  for (const c of chunks) outgoing.write(c);
  if (done) outgoing.end();
  else {
    if (chunks.length === 0) outgoing.flushHeaders();
    await writeStream(res.body, outgoing, reader, pending);
  }
}

const simpleOf = (res: unknown): Simple | undefined => (res instanceof LightResponse ? res.simple : undefined);

function writeFailure(err: unknown, outgoing: ServerResponse, onError: (err: unknown) => void): void {
  const e = err instanceof Error ? err : new Error('unknown error', { cause: err });
  if ((e as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
  onError(err);
  if (!outgoing.headersSent) outgoing.writeHead(500, { 'Content-Type': 'text/plain' });
  outgoing.end(`Error: ${e.message}`);
  outgoing.destroy(e);
}

const failedAnswer = (err: unknown): Response =>
  new LightResponse(null, { status: err instanceof Error && (err.name === 'TimeoutError' || err.constructor.name === 'TimeoutError') ? 504 : 500 }) as unknown as Response;

function requestListener(fetch: FetchCallback, hostname: string | undefined, onError: (err: unknown) => void): RequestListener {
  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    let res: Response | Promise<Response> | undefined;
    let req: NodeRequest | undefined;
    try {
      req = newRequest(incoming, hostname);
      let ended = incoming.method === 'GET' || incoming.method === 'HEAD';
      if (!ended) {
        incoming.on('end', () => (ended = true));
        outgoing.on('finish', () => {
          if (!ended) drainIncoming(incoming);
        });
      }
      const request = req;
      outgoing.on('close', () => {
        const abort = request.abort;
        if (abort) {
          if (incoming.errored) abort.abort(incoming.errored.toString());
          else if (!outgoing.writableFinished) abort.abort('Client connection prematurely closed.');
        }
        if (!ended) setTimeout(() => !ended && setTimeout(() => drainIncoming(incoming)));
      });
      res = fetch(req as unknown as Request, { incoming, outgoing });
      const simple = simpleOf(res);
      if (simple) return await writeSimple(simple, outgoing, onError);
    } catch (err) {
      if (res) return writeFailure(err, outgoing, onError);
      res = req ? failedAnswer(err) : (new LightResponse(null, { status: 400 }) as unknown as Response);
    }
    try {
      const answer = typeof (res as Promise<Response>).then === 'function' ? await (res as Promise<Response>).catch(failedAnswer) : (res as Response);
      const simple = simpleOf(answer);
      return simple ? await writeSimple(simple, outgoing, onError) : await writeResponse(answer, outgoing, onError);
    } catch (err) {
      return writeFailure(err, outgoing, onError);
    }
  };
  return (incoming, outgoing) => void handle(incoming, outgoing);
}

/** A listening server answering with `fetch` (it emits 'listening' or 'error' as server.listen does). */
export function serve(options: ServeOptions): Server | HttpsServer {
  // Under tsx and in tests Hono's `new Response()` means the global; the executable's bundle has these classes injected instead.
  if ((Response as unknown) !== LightResponse) replaceGlobals();
  const create = options.createServer ?? ((opts: object, listener: RequestListener) => createHttpServer(opts, listener));
  const server = create(options.serverOptions ?? {}, requestListener(options.fetch, options.hostname, options.onError ?? toStderr));
  listenOn(server, options.port, options.hostname);
  return server;
}
