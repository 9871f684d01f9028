// Reads a JSON request body once. Size is bounded by the body-limit middleware in app.ts.
import { ApiError } from './errors.js';
import type { AppContext } from './context.js';

export async function readJsonBody(c: AppContext): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ApiError('unsupported_media_type', `request body must be application/json (got ${type.split(';')[0] || 'no content type'})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ApiError('validation_error', `malformed JSON body: ${(err as Error).message}`, [{ field: 'body', reason: 'malformed_json' }]);
  }
}
