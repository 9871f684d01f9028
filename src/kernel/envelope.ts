// The three answer shapes of the contract (2.2): list, single and error, each with meta.
import type { Context } from 'hono';
import type { ApiError, ErrorCode, ErrorDetail } from './errors.js';
import { isoNow } from './clock.js';

export interface Meta {
  request_id: string;
  timestamp: string;
  /** Lists only, and only when true: `total` is a lower bound (more rows match than are counted). */
  total_estimated?: true;
}

export interface ListPage<T> {
  items: T[];
  offset: number;
  limit: number;
  total: number;
  /** The total is a lower bound, not a count (store.ts COUNT_CAP); meta says so. */
  total_estimated?: true;
}

export const meta = (requestId: string): Meta => ({ request_id: requestId, timestamp: isoNow() });

export const listEnvelope = <T>(page: ListPage<T>, requestId: string) => ({
  items: page.items,
  offset: page.offset,
  limit: page.limit,
  total: page.total,
  has_more: page.offset + page.items.length < page.total,
  meta: page.total_estimated ? { ...meta(requestId), total_estimated: true } : meta(requestId),
});

export const singleEnvelope = <T>(item: T, requestId: string) => ({ item, meta: meta(requestId) });

export const errorEnvelope = (code: ErrorCode, message: string, details: ErrorDetail[], requestId: string) =>
  // The contract: a missing session carries only code and message (no details).
  code === 'auth_required'
    ? { error: { code, message }, meta: meta(requestId) }
    : { error: { code, message, details }, meta: meta(requestId) };

/** The error envelope as a response, with the error's headers. */
export function errorResponse(c: Context, err: ApiError, requestId: string): Response {
  for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
  // An early 413 leaves the rest of the body unread: the connection cannot be reused.
  if (err.code === 'payload_too_large') c.header('connection', 'close');
  return c.json(errorEnvelope(err.code, err.message, err.details, requestId), err.status as 400);
}
