import { Hono, type Context } from 'hono';
import { randomUUID } from 'node:crypto';
import { BodyTooLarge, readBodyText } from '../kernel/body.js';
import { requestHeader } from '../kernel/headers.js';
import type { FieldService } from './service.js';
import type { Actor } from './types.js';

// POST /api/rpc. Status: 200 all items executed; 400 request refused, nothing sent; 401/403 from
// authenticate, nothing sent; 415 not JSON; 502 an item failed at the device or bus (earlier items
// were executed, later ones were not); 503 a bus queue was full. Failure bodies are arrays of
// message strings, as the contract requires.

export type AuthResult = { ok: true; actor: Actor } | { ok: false; status: 401 | 403; message: string };

export interface RpcAppDeps {
  authenticate: (c: Context) => Promise<AuthResult>;
  /** Largest accepted body; a flood of params is refused before parsing. */
  maxBodyBytes?: number;
}

export function createRpcApp(service: FieldService, deps: RpcAppDeps): Hono {
  const app = new Hono();
  const maxBody = deps.maxBodyBytes ?? 1_000_000;

  app.post('/api/rpc', async (c) => {
    const correlationId = sanitizeId(requestHeader(c, 'x-correlation-id')) ?? randomUUID();
    const answer = (status: number, body: unknown) => jsonAnswer(status, body, { 'x-correlation-id': correlationId });
    try {
      return await handle(c, correlationId, answer);
    } catch (err) {
      // As onError answers, and with the correlation id the caller would look for.
      return answer(500, [`Internal error: ${(err as Error).message}`]);
    }
  });

  async function handle(c: Context, correlationId: string, answer: (status: number, body: unknown) => Response): Promise<Response> {
    const auth = await deps.authenticate(c);
    if (!auth.ok) return answer(auth.status, [auth.message]);

    const type = requestHeader(c, 'content-type') ?? '';
    if (!/^application\/json\b/i.test(type)) return answer(415, ['Content-Type must be application/json']);
    const length = Number(requestHeader(c, 'content-length') ?? '0');
    if (length > maxBody) return answer(413, [`Request body larger than ${maxBody} bytes`]);
    let text: string;
    try {
      text = await readBodyText(c, maxBody);
    } catch (err) {
      if (err instanceof BodyTooLarge) return answer(413, [`Request body larger than ${maxBody} bytes`]);
      return answer(400, ['Request body could not be read']);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return answer(400, ['Invalid request: body is not valid JSON']);
    }
    const result = await service.execute(body, auth.actor, correlationId);
    if (result.ok) {
      const id = (body as { id?: unknown }).id;
      return answer(200, { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), result: result.results });
    }
    return answer(result.status, result.messages);
  }

  app.all('/api/rpc', (c) => {
    c.header('Allow', 'POST');
    return c.json(['Method not allowed: use POST'], 405);
  });
  app.all('*', (c) => c.json(['Not found'], 404));
  app.onError((err, c) => c.json([`Internal error: ${err.message}`], 500));
  return app;
}

/**
 * A JSON answer with its headers as a plain object: c.header() or more than one header through
 * c.json() builds a web Headers object, which the Node listener converts back for Node on every
 * answer. Header names are lower case, as a Headers object would send them.
 */
function jsonAnswer(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** Accept a caller's correlation id only if it is short and printable, so it is safe in logs. */
function sanitizeId(id: string | undefined): string | undefined {
  return id && /^[A-Za-z0-9._:-]{1,100}$/.test(id) ? id : undefined;
}
