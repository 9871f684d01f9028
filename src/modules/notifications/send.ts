// The two ways out: SMTP (nodemailer) and a signed JSON POST. Each answers the server's reply on
// success (the SMTP reply line, the receiver's HTTP status: a test message reports them) and
// throws with a message fit for the deliveries list on failure; no message ever holds a secret
// (nodemailer's errors name the server and the SMTP reply, never the password).
import { createHmac } from 'node:crypto';
import type { ChannelRow } from './schema.js';

const TIMEOUT_MS = 15_000;

export async function sendEmail(channel: ChannelRow, password: string | null, to: string | string[], subject: string, text: string): Promise<string> {
  // Loaded at the first e-mail: in the executable nodemailer is a chunk read only then (build.mjs CHUNKS).
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: channel.smtp_host ?? undefined,
    port: channel.smtp_port ?? 587,
    secure: channel.smtp_tls === 'tls',
    requireTLS: channel.smtp_tls === 'starttls',
    ignoreTLS: channel.smtp_tls === 'none',
    auth: channel.smtp_user ? { user: channel.smtp_user, pass: password ?? '' } : undefined,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
    // No transcript of the SMTP session (it would carry the AUTH exchange) in any log.
    logger: false,
    debug: false,
  });
  try {
    const info = await transport.sendMail({ from: channel.smtp_from ?? undefined, to, subject, text });
    return String(info.response ?? '');
  } finally {
    transport.close();
  }
}

/** The signed text: `<timestamp>.<body>`, so a captured body cannot be replayed with a new timestamp. */
export const signature = (key: string, timestamp: string, body: string): string =>
  `sha256=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;

export async function sendWebhook(channel: ChannelRow, key: string, deliveryId: string, payload: Record<string, unknown>, now = new Date()): Promise<number> {
  const body = JSON.stringify({ delivery_id: deliveryId, ...payload });
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const res = await fetch(channel.webhook_url ?? '', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'cabinet-notifications',
      'x-cabinet-delivery': deliveryId,
      'x-cabinet-timestamp': timestamp,
      'x-cabinet-signature': signature(key, timestamp, body),
    },
    body,
    redirect: 'error',
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  await res.body?.cancel();
  if (!res.ok) throw Object.assign(new Error(`the webhook answered HTTP ${res.status}`), { status: res.status });
  return res.status;
}

/** A URL as the deliveries list shows it: without user info, query or fragment (they may carry tokens). */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
