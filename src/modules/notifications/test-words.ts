// Why a test message did not go out, in words an installer can act on, with a short reason code
// for details[]. nodemailer and fetch name causes by codes (ECONNECTION, EAUTH, cause.code
// ECONNREFUSED, TimeoutError): each is said the way the person at the tablet would check it.
import { SecretUnreadable } from './secrets.js';
import { TargetRefused } from '../../runtime/egress.js';

export interface Failure { reason: string; words: string }

interface MailError { code?: string; command?: string; response?: string; responseCode?: number; message?: string; name?: string; status?: number; cause?: { code?: string; message?: string } }

const clip = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 300);

/** `where`: "the mail server smtp.example.net port 587" or "the receiver at https://hooks.example/x". */
export function failureOf(err: unknown, where: string): Failure {
  const e = (err ?? {}) as MailError;
  if (err instanceof SecretUnreadable) return { reason: 'secret_unreadable', words: e.message ?? 'the stored secret cannot be read; set it again' };
  if (err instanceof TargetRefused) return { reason: 'private_address', words: e.message ?? 'the address is not public' };
  const code = e.cause?.code ?? e.code ?? '';
  const text = `${e.message ?? ''} ${e.cause?.message ?? ''}`;
  if (e.name === 'TimeoutError' || /TIMEDOUT|ETIMEOUT|CONNECT_TIMEOUT/.test(code) || /timeout|timed out/i.test(text)) {
    return { reason: 'timeout', words: `${where} did not answer within 15 seconds` };
  }
  if (/ENOTFOUND|EAI_AGAIN|EDNS/.test(code) || /ENOTFOUND|EAI_AGAIN/.test(text)) return { reason: 'unknown_host', words: `the name of ${where} is not known (no such host in DNS)` };
  if (/ECONNREFUSED/.test(code) || /ECONNREFUSED/.test(text)) return { reason: 'unreachable', words: `nothing answers at ${where} (connection refused)` };
  if (/EHOSTUNREACH|ENETUNREACH|ECONNRESET/.test(code) || /EHOSTUNREACH|ENETUNREACH|ECONNRESET/.test(text)) return { reason: 'unreachable', words: `${where} cannot be reached (${code || 'no route'})` };
  if (e.code === 'EAUTH') return { reason: 'login_refused', words: `${where} refused the login${e.response ? `: ${clip(e.response)}` : ''}; check the login name and password` };
  if (e.code === 'ETLS' || /certificate|SSL|TLS|wrong version number/i.test(text)) {
    return { reason: 'tls_failed', words: `the encrypted connection to ${where} failed (${clip(e.message ?? '')}); check the encryption choice and the port` };
  }
  if (e.code === 'EENVELOPE' || e.code === 'EMESSAGE' || e.responseCode) {
    return { reason: 'refused', words: `${where} refused the message${e.response ? `: ${clip(e.response)}` : ''}` };
  }
  if (typeof e.status === 'number') return { reason: 'answered_error', words: `${where} answered ${e.status} (${statusWords(e.status)}), not success` };
  if (/redirect/i.test(text)) return { reason: 'redirected', words: `${where} answered with a redirect, which is not followed: give the address it redirects to` };
  return { reason: 'failed', words: `sending to ${where} failed: ${clip(`${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}`)}` };
}

function statusWords(status: number): string {
  if (status === 401 || status === 403) return 'it refused us: check the signing key and the address';
  if (status === 404) return 'no such address on the receiver';
  if (status >= 500) return 'an error on the receiver';
  return 'not accepted';
}
