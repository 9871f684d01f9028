// PATCH and DELETE of a channel or rule. The shared client (lib/api) has GET and POST only; these
// answer the same way: the item, or ApiError with the box's code, message and details. A channel's
// test is posted here too: its refusal is the box's own 502 (notification_test_failed) whose
// details say why, which the shared client reads as the box out of reach and drops.
import { ApiError, type ErrorDetail } from '../../lib/api';
import { t } from '../../lib/i18n';

async function send<T>(method: 'PATCH' | 'DELETE' | 'POST', path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method, credentials: 'same-origin', cache: 'no-store',
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError(0, 'offline', t('errors.offline.short'));
  }
  const data = (await res.json().catch(() => undefined)) as { item?: T; error?: { code?: string; message?: string; details?: ErrorDetail[] } } | undefined;
  if (!res.ok) throw new ApiError(res.status, data?.error?.code ?? 'error', data?.error?.message ?? res.statusText, data?.error?.details ?? []);
  return data?.item as T;
}

export const patchItem = <T>(path: string, item: Record<string, unknown>) => send<T>('PATCH', path, { item });
export const deleteItem = <T>(path: string) => send<T>('DELETE', path);
/** A command whose answer is its item (notification-channels/commands/test). */
export const runCommand = <T>(path: string, body: Record<string, unknown>) => send<T>('POST', path, body);
