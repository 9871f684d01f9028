// The API client: same-origin fetch with the session cookie, the contract's envelopes, errors as
// ApiError (code, message, details), and a last-known-data cache for GETs so the shell can show
// stale data, marked as such, while the box's API is unreachable.
import { cacheGet, cachePut } from './cache';
import { errorText } from './error-words';
import { t } from './i18n';
import { emit } from './observable';

/** One field issue of a validation_error: its field, a machine reason, and what a reader needs to word it (min, max, allowed, format, expected). */
export interface ErrorDetail { field: string; reason: string; [param: string]: unknown }
export interface ListEnvelope<T> { items: T[]; offset: number; limit: number; total: number; has_more: boolean }

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
  /** The API unreachable (network error, server stopped), as opposed to an answer. */
  get offline(): boolean {
    return this.status === 0;
  }
}

const CLIENT_VERSION = '0.1.0';

async function send(method: string, path: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { accept: 'application/json', 'x-client-version': CLIENT_VERSION, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError(0, 'offline', t('errors.offline.short'));
  }
  const text = await res.text();
  let data: unknown = undefined;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    // a proxy's HTML error page: handled below by the status
  }
  if (!res.ok) {
    const err = (data as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | undefined)?.error;
    const e = new ApiError(res.status, err?.code ?? `http_${res.status}`, err?.message ?? res.statusText, err?.details ?? []);
    if (res.status === 401 && e.code === 'auth_required') emit('session-ended', e);
    // A proxy's or a stopping box's 5xx is the box out of reach; a field device that did not answer
    // the box (device_read_failed, with the box's own envelope) is an answer about that device.
    if ((res.status === 502 || res.status === 503 || res.status === 504) && e.code !== 'device_read_failed') throw new ApiError(0, e.code, e.message);
    throw e;
  }
  return data;
}

export interface Fresh<T> { data: T; stale: false }
export interface Stale<T> { data: T; stale: true; at: string }
export type Loaded<T> = Fresh<T> | Stale<T>;

/** GET, remembering the answer; when the API is unreachable, the last answer marked stale. */
export async function getLoaded<T>(path: string): Promise<Loaded<T>> {
  try {
    const data = (await send('GET', path)) as T;
    cachePut(path, data);
    emit('reachable', true);
    return { data, stale: false };
  } catch (err) {
    if (err instanceof ApiError && err.offline) {
      emit('reachable', false);
      const hit = cacheGet<T>(path);
      if (hit) return { data: hit.data, stale: true, at: hit.at };
    }
    throw err;
  }
}

export async function get<T>(path: string): Promise<T> {
  return (await getLoaded<T>(path)).data;
}

export async function getList<T>(path: string): Promise<Loaded<ListEnvelope<T>>> {
  return getLoaded<ListEnvelope<T>>(path);
}

export async function getItem<T>(path: string): Promise<T> {
  return (await get<{ item: T }>(path)).item;
}

export async function post<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T> {
  const data = (await send('POST', path, body ?? {})) as { item?: T };
  emit('reachable', true);
  return data?.item as T;
}

/** DELETE of a record; its last state as the answer's item. */
export async function del<T = Record<string, unknown>>(path: string): Promise<T> {
  const data = (await send('DELETE', path)) as { item?: T };
  emit('reachable', true);
  return data?.item as T;
}

/** An error in words for a person at the tablet, in their language (error-words.ts). */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return errorText(err);
  return err instanceof Error ? err.message : String(err);
}

export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
