// Why a test message did not go out, in words an installer can act on, with a short reason code
// for details[]. nodemailer and fetch name causes by codes (ECONNECTION, EAUTH, cause.code
// ECONNREFUSED, TimeoutError): each is said the way the person at the tablet would check it.
// The words are a message key of the notifications area with its parameters: the API's English
// message is rendered from it, and the same parameters ride in the error's details[] so that the
// shell says it in the reader's language.
import type { MessageParams, Translator } from '../../i18n/translate.js';
import { SecretUnreadable } from './secrets.js';
import { TargetRefused } from '../../runtime/egress.js';

/** Where the test went: the mail server and its port, or the receiver's address (without user info or query). */
export interface Target { kind: 'email' | 'webhook'; host: string; port: number; url: string }

export interface Failure {
  /** The reason code of details[] (timeout, unreachable, login_refused, ...). */
  reason: string;
  /** notifications.test_result.why.<why> */
  why: string;
  params: Record<string, string | number>;
}

interface MailError { code?: string; command?: string; response?: string; responseCode?: number; message?: string; name?: string; status?: number; cause?: { code?: string; message?: string } }

const clip = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 300);

const statusKind = (status: number): string =>
  status === 401 || status === 403 ? 'refused' : status === 404 ? 'missing' : status >= 500 ? 'error' : 'other';

export function failureOf(err: unknown, target: Target): Failure {
  const e = (err ?? {}) as MailError;
  const at = { kind: target.kind, host: target.host, port: target.port, url: target.url };
  const fail = (reason: string, why: string, more: Record<string, string | number> = {}): Failure => ({ reason, why, params: { ...at, ...more } });
  const response = (r: string | undefined) => ({ hasResponse: r ? 'yes' : 'no', response: r ? clip(r) : '' });
  if (err instanceof SecretUnreadable) return fail('secret_unreadable', err.why === 'format' ? 'secret_format' : 'secret_key');
  if (err instanceof TargetRefused) return fail('private_address', 'private_address');
  const code = e.cause?.code ?? e.code ?? '';
  const text = `${e.message ?? ''} ${e.cause?.message ?? ''}`;
  if (e.name === 'TimeoutError' || /TIMEDOUT|ETIMEOUT|CONNECT_TIMEOUT/.test(code) || /timeout|timed out/i.test(text)) return fail('timeout', 'timeout');
  if (/ENOTFOUND|EAI_AGAIN|EDNS/.test(code) || /ENOTFOUND|EAI_AGAIN/.test(text)) return fail('unknown_host', 'unknown_host');
  if (/ECONNREFUSED/.test(code) || /ECONNREFUSED/.test(text)) return fail('unreachable', 'unreachable');
  const route = /EHOSTUNREACH|ENETUNREACH|ECONNRESET/.exec(code) ?? /EHOSTUNREACH|ENETUNREACH|ECONNRESET/.exec(text);
  if (route) return fail('unreachable', 'no_route', { code: code || route[0] });
  if (e.code === 'EAUTH') return fail('login_refused', 'login_refused', response(e.response));
  if (e.code === 'ETLS' || /certificate|SSL|TLS|wrong version number/i.test(text)) return fail('tls_failed', 'tls_failed', { detail: clip(e.message ?? '') });
  if (e.code === 'EENVELOPE' || e.code === 'EMESSAGE' || e.responseCode) return fail('refused', 'refused', response(e.response));
  if (typeof e.status === 'number') return fail('answered_error', 'answered_error', { status: e.status, statusKind: statusKind(e.status) });
  if (/redirect/i.test(text)) return fail('redirected', 'redirected');
  return fail('failed', 'failed', { detail: clip(`${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}`) });
}

/** The failure as a sentence in the translator's language: "The test message was not sent: ...". */
export function failureWords(tr: Translator, f: Failure): string {
  return tr.t('notifications.test_result.failed', { why: tr.t(`notifications.test_result.why.${f.why}`, f.params as MessageParams) });
}
