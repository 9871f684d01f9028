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
    c.header('X-Correlation-Id', correlationId);
    const auth = await deps.authenticate(c);
    if (!auth.ok) return c.json([auth.message], auth.status);

    const type = requestHeader(c, 'content-type') ?? '';
    if (!/^application\/json\b/i.test(type)) return c.json(['Content-Type must be application/json'], 415);
    const length = Number(requestHeader(c, 'content-length') ?? '0');
    if (length > maxBody) return c.json([`Request body larger than ${maxBody} bytes`], 413);
    let text: string;
    try {
      text = await readBodyText(c, maxBody);
    } catch (err) {
      if (err instanceof BodyTooLarge) return c.json([`Request body larger than ${maxBody} bytes`], 413);
      return c.json(['Request body could not be read'], 400);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return c.json(['Invalid request: body is not valid JSON'], 400);
    }
    const result = await service.execute(body, auth.actor, correlationId);
    if (result.ok) {
      const id = (body as { id?: unknown }).id;
      return c.json({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), result: result.results }, 200);
    }
    return c.json(result.messages, result.status);
  });

  app.all('/api/rpc', (c) => {
    c.header('Allow', 'POST');
    return c.json(['Method not allowed: use POST'], 405);
  });
  app.all('*', (c) => c.json(['Not found'], 404));
  app.onError((err, c) => c.json([`Internal error: ${err.message}`], 500));
  return app;
}

/** Accept a caller's correlation id only if it is short and printable, so it is safe in logs. */
function sanitizeId(id: string | undefined): string | undefined {
  return id && /^[A-Za-z0-9._:-]{1,100}$/.test(id) ? id : undefined;
}
