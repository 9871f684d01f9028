// Reads a request body once. Size is bounded by the body-limit middleware in app.ts (the kit's
// routes) or by the caller's limit (readBodyText).
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { ApiError } from './errors.js';
import { requestHeader } from './headers.js';
import type { AppContext } from './context.js';

export class BodyTooLarge extends Error {}

/**
 * The body's bytes, at most `maxBytes` (BodyTooLarge beyond). Under the kit's Node listener the bytes
 * are read from the Node request itself: going through the web Request would build an undici
 * Request and a web stream around it, a measurable part of a small POST's time.
 */
export async function readBodyBytes(c: Context, maxBytes: number): Promise<Buffer> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  // Not flowing and not ended: nobody has read from it yet (asking the web Request whether its
  // body was used would build that Request).
  if (!incoming || typeof incoming.on !== 'function' || incoming.readableEnded || incoming.readableFlowing !== null) {
    const buf = Buffer.from(await c.req.arrayBuffer());
    if (buf.length > maxBytes) throw new BodyTooLarge();
    return buf;
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: Error) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        // The rest is drained by the server after the answer; nothing more is kept.
        incoming.pause();
        done(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done();
    const onError = (err: Error) => done(err);
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
  });
}

/** The body as UTF-8 text, at most `maxBytes` (BodyTooLarge beyond). */
export async function readBodyText(c: Context, maxBytes: number): Promise<string> {
  return (await readBodyBytes(c, maxBytes)).toString('utf8');
}

export async function readJsonBody(c: AppContext): Promise<unknown> {
  // The size was checked by the body-limit middleware; a body longer than its Content-Length
  // cannot arrive. A byte order mark is dropped, as the web Request's text() drops it.
  let text: string;
  try {
    text = await readBodyText(c, c.get('services').config.max_body_bytes);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new ApiError('payload_too_large', `request body exceeds ${c.get('services').config.max_body_bytes} bytes`);
    throw err;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return undefined;
  const type = requestHeader(c, 'content-type') ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ApiError('unsupported_media_type', `request body must be application/json (got ${type.split(';')[0] || 'no content type'})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ApiError('validation_error', `malformed JSON body: ${(err as Error).message}`, [{ field: 'body', reason: 'malformed_json' }]);
  }
}
