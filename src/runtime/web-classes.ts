// The web Request and Response the HTTP kit answers with, without Node's undici until one is
// really needed. Hono builds every answer with `new Response(body, init)`; undici's Response is a
// 0.6 MB module that Node loads on the first touch of the global, and a text or JSON answer never
// needs it: src/runtime/node-serve.ts writes such an answer's status, headers and body to the
// Node response directly. What needs a real one (a stream read through `.body`, `.headers` of a
// streamed answer, `clone()`, `json()`) makes it then, from the body and init kept here.
//
// How the kit's code gets these classes instead of the globals: in the executable the build
// (build.mjs, esbuild `inject`) puts them in place of every free `Request` and `Response` in the
// bundle, and the globals stay Node's own, loaded on first use (so /ready, answered before any of
// it, costs a restart no undici). Elsewhere (tsx, tests) node-serve.ts sets them as the globals,
// keeping Node's classes here first, as @hono/node-server did with its own.
//
// This file names the globals only through globalThis: `inject` leaves the injected file itself
// alone, and reading `globalThis.Response` is what loads undici.

type RealClasses = { Request: typeof globalThis.Request; Response: typeof globalThis.Response };
type BodyInit = ConstructorParameters<typeof globalThis.Response>[0];
type HeadersInit = ConstructorParameters<typeof globalThis.Headers>[0];
type RequestInfo = ConstructorParameters<typeof globalThis.Request>[0];

let kept: RealClasses | undefined;

/** Node's own classes: kept before the globals were replaced, else the globals (never replaced in the executable). */
export const realClasses = (): RealClasses => kept ?? { Request: globalThis.Request, Response: globalThis.Response };

/** Makes LightResponse and LightRequestClass the globals `Response` and `Request`, once, keeping Node's. */
export function replaceGlobals(): void {
  if (kept) return;
  kept = { Request: globalThis.Request, Response: globalThis.Response };
  Object.defineProperty(globalThis, 'Request', { value: LightRequestClass, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'Response', { value: LightResponse, writable: true, configurable: true });
}

const tagOf = (v: object) => Object.prototype.toString.call(v);

/** What node-serve.ts writes without a real Response: status, body (none for null), and headers as given to the constructor. */
export type Simple = [status: number, body: string | Uint8Array | Blob | ReadableStream | null, headers: HeadersInit | undefined];

/** A body node-serve.ts writes as it is: none (a 204 or 304), text, bytes, a blob or a stream. */
const isSimpleBody = (body: unknown): body is Simple[1] =>
  body === null || body === undefined || typeof body === 'string' || body instanceof Uint8Array || body instanceof Blob || typeof (body as ReadableStream | undefined)?.getReader === 'function';

export class LightResponse {
  readonly #body: BodyInit | null | undefined;
  #init: ResponseInit | Response | undefined;
  #real: Response | undefined;
  /** Set while no real Response was made: what node-serve.ts writes. */
  simple: Simple | undefined;

  constructor(body?: BodyInit | null, init?: ResponseInit | LightResponse | Response) {
    this.#body = body;
    let headers: Headers | undefined;
    if (typeof init === 'object' && init !== null && #body in init) {
      // `new Response(res.body, res)` (Hono when a middleware replaces an answer): the same init.
      if (init.#real) {
        this.#init = init.#real;
        this.real();
        return;
      }
      this.#init = init.#init;
      headers = new globalThis.Headers(init.#init?.headers);
    } else {
      this.#init = init;
    }
    if (isSimpleBody(body)) this.simple = [init?.status || 200, body ?? null, headers ?? init?.headers];
  }

  /** The real Response, made once; from then on it answers everything. */
  real(): Response {
    if (!this.#real) {
      this.simple = undefined;
      this.#real = new (realClasses().Response)(this.#body, this.#init);
    }
    return this.#real;
  }

  get headers(): Headers {
    const simple = this.simple;
    if (!simple) return this.real().headers;
    if (!(simple[2] instanceof globalThis.Headers)) simple[2] = new globalThis.Headers(simple[2] ?? { 'content-type': 'text/plain; charset=UTF-8' });
    return simple[2];
  }

  get status(): number {
    return this.simple?.[0] ?? this.real().status;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get body(): ReadableStream | null { return this.real().body; }
  get bodyUsed(): boolean { return this.real().bodyUsed; }
  get redirected(): boolean { return this.real().redirected; }
  get statusText(): string { return this.real().statusText; }
  get type(): Response['type'] { return this.real().type; }
  get url(): string { return this.real().url; }
  arrayBuffer(): Promise<ArrayBuffer> { return this.real().arrayBuffer(); }
  blob(): Promise<Blob> { return this.real().blob(); }
  bytes(): Promise<Uint8Array> { return this.real().bytes(); }
  clone(): Response { return this.real().clone(); }
  formData(): Promise<FormData> { return this.real().formData(); }
  json(): Promise<unknown> { return this.real().json(); }
  text(): Promise<string> { return this.real().text(); }

  static json(data: unknown, init?: ResponseInit): Response { return realClasses().Response.json(data, init); }
  static error(): Response { return realClasses().Response.error(); }
  static redirect(url: string | URL, status?: Parameters<typeof globalThis.Response.redirect>[1]): Response { return realClasses().Response.redirect(url, status); }

  /** `x instanceof Response` holds for these and for Node's own (a fetch's answer). */
  static [Symbol.hasInstance](v: unknown): boolean {
    if (typeof v !== 'object' || v === null) return false;
    if (#body in v) return true;
    // Only an object that says it is a Response asks for Node's class (loaded by then: it made one).
    return tagOf(v) === '[object Response]' && v instanceof realClasses().Response;
  }
}

/** The request node-serve.ts hands the app; a real Request is made from it when needed. */
export interface LightRequestLike {
  readonly method: string;
  readonly url: string;
  toReal(): Request;
}

let lightRequestProto: object | undefined;
/** node-serve.ts registers its request prototype, so that `x instanceof Request` knows its objects. */
export function registerLightRequest(proto: object): void {
  lightRequestProto = proto;
}
const isLightRequest = (v: object): v is LightRequestLike => lightRequestProto !== undefined && Object.prototype.isPrototypeOf.call(lightRequestProto, v);

/**
 * `new Request(input, init)` makes Node's Request; a request of node-serve.ts as input stands for
 * the real one made from it (Hono's body limit re-wraps `c.req.raw` that way). A streamed body
 * gets `duplex: 'half'`, which undici requires and Hono does not give.
 */
export const LightRequestClass = function Request(this: unknown, input: RequestInfo | URL | LightRequestLike, init?: RequestInit) {
  if (!new.target) throw new TypeError("Class constructor Request cannot be invoked without 'new'");
  const source = typeof input === 'object' && input !== null && isLightRequest(input) ? input.toReal() : (input as RequestInfo | URL);
  if (typeof (init?.body as ReadableStream | undefined)?.getReader === 'function') (init as RequestInit & { duplex?: string }).duplex ??= 'half';
  return new (realClasses().Request)(source, init);
} as unknown as typeof globalThis.Request;

Object.defineProperty(LightRequestClass, Symbol.hasInstance, {
  value(v: unknown): boolean {
    if (typeof v !== 'object' || v === null) return false;
    if (isLightRequest(v)) return true;
    return tagOf(v) === '[object Request]' && v instanceof realClasses().Request;
  },
});

export { LightRequestClass as Request, LightResponse as Response };
