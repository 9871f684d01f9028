// notification-channels/commands/test: one message through a channel now, so the installer knows
// the way out works before an alarm needs it. It is not a delivery (nothing is queued or retried):
// the answer says what the server replied, in words, and the audit keeps it
// (notification-channel.test, success or error, never a secret). A refusal is 502
// notification_test_failed with the cause in words. Test messages are throttled per channel: a
// button pressed in a loop must not make the box a spam source for the farm's mail provider.
// The message is written in the channel's language (as its alarm messages are); the answer's
// `words` and a refusal's message are English for API clients, and the shell words the outcome
// in its reader's language from `kind`, `reply` and details[] (the same keys and parameters).
import * as v from 'valibot';
import { command, type ResourceKit } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { timeId } from '../../kernel/ids.js';
import type { HandlerContext } from '../../kernel/route.js';
import type { Services } from '../../kernel/context.js';
import { Throttle } from '../../auth/throttle.js';
import { channelHost, checkTarget } from '../../runtime/egress.js';
import { openSecret } from './secrets.js';
import { sendEmail, sendWebhook, shownUrl } from './send.js';
import { failureOf, failureWords, type Target } from './test-words.js';
import { channelTranslator } from './message.js';
import { BASE_LANGUAGE } from '../../i18n/languages.js';
import type { Translator } from '../../i18n/translate.js';
import { email } from './inputs.js';
import type { ChannelRow } from './schema.js';

/** Test messages per channel within the window. */
export const TEST_LIMIT = 6;
const TEST_WINDOW_MS = 60_000;
const throttles = new WeakMap<Services, Throttle>();
const throttleOf = (s: Services) => {
  let t = throttles.get(s);
  if (!t) throttles.set(s, (t = new Throttle(TEST_LIMIT, TEST_WINDOW_MS)));
  return t;
};

const body = v.strictObject({
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  /** E-mail only: other addresses than the channel's recipients. */
  to: v.optional(v.pipe(v.array(email), v.minLength(1), v.maxLength(10))),
});

export const testResult = {
  type: 'object',
  required: ['channel_id', 'kind', 'sent_to', 'reply', 'words', 'language', 'at'],
  properties: {
    channel_id: { type: 'string' },
    kind: { type: 'string', enum: ['email', 'webhook'] },
    sent_to: { type: 'array', items: { type: 'string' }, description: 'The addresses, or the webhook URL without user info or query.' },
    reply: { type: 'string', description: 'What the server answered: the SMTP reply line (e.g. 250 OK), or the receiver\'s HTTP status.' },
    words: { type: 'string', description: 'The outcome in English words, e.g. "Sent: the mail server accepted it (250 OK)" (the shell says it in its reader\'s language from kind and reply).' },
    language: { type: 'string', description: 'The language the test message was written in: the channel\'s, else the site\'s default (site_language).' },
    at: { type: 'string', format: 'date-time' },
  },
  additionalProperties: false,
};

const siteOf = (row: ChannelRow, ctx: HandlerContext<unknown>) => row.site_name ?? ctx.caller?.site_id ?? row.tenant_id;

function message(row: ChannelRow, site: string, tr: Translator) {
  const subject = tr.t('notifications.test_message.subject', { site, channel: row.name });
  const text = [
    tr.t('notifications.message.site', { site }),
    tr.t('notifications.test_message.about', { channel: row.name }),
    tr.t('notifications.test_message.nothing'),
    ...(row.link_url ? [tr.t('notifications.message.link', { link: row.link_url })] : []),
  ].join('\n');
  return { subject, text };
}

async function send(row: ChannelRow, ctx: HandlerContext<v.InferOutput<typeof body>>, to: string[], tr: Translator, english: Translator): Promise<{ reply: string; words: string }> {
  const secret = row.secret_enc ? openSecret(ctx.services.sessions, row.secret_enc) : null;
  const target = channelHost(row);
  if (target) await checkTarget(ctx.services.config, target.host, row.kind === 'email' ? 'the SMTP server' : 'the webhook host');
  const site = siteOf(row, ctx as HandlerContext<unknown>);
  const { subject, text } = message(row, site, tr);
  if (row.kind === 'email') {
    const reply = await sendEmail(row, secret, to, subject, text);
    return { reply, words: english.t('notifications.test_result.sent_email', { hasReply: reply ? 'yes' : 'no', reply }) };
  }
  const payload = { event: 'test', language: tr.language, site: { tenant_id: row.tenant_id, site_id: ctx.caller?.site_id ?? null, name: site, link: row.link_url }, alarm: null, subject, text };
  const status = await sendWebhook(row, secret ?? '', `test-${timeId()}`, payload);
  return { reply: String(status), words: english.t('notifications.test_result.sent_webhook', { status }) };
}

export const testCommand = command({
  summary: 'Send a test message through the channel now (e-mail: to its recipients, or `to`); answers what the server replied, in words. Not queued, not retried; audited as notification-channel.test',
  action: 'update',
  body,
  errors: ['not_found', 'validation_error', 'notification_test_failed', 'rate_limited'],
  response: testResult,
  idempotent: false,
  handler: async (ctx, kit: ResourceKit<Record<string, unknown>>) => {
    const row = (await kit.load(ctx as HandlerContext<unknown>, ctx.body.id)) as unknown as ChannelRow;
    if (row.kind === 'webhook' && ctx.body.to) throw new ApiError('validation_error', 'a webhook test goes to the channel\'s URL; it takes no addresses', [{ field: 'to', reason: 'not_allowed' }]);
    const to = row.kind === 'email' ? (ctx.body.to ?? row.recipients) : [shownUrl(row.webhook_url ?? '')];
    if (!to.length) throw new ApiError('validation_error', 'the channel has no recipients: add them to the channel, or give addresses in to', [{ field: 'to', reason: 'required' }]);
    const throttle = throttleOf(ctx.services);
    const key = `${row.tenant_id}\n${row.id}`;
    const wait = throttle.blockedFor(key);
    if (wait > 0) throw new ApiError('rate_limited', `${TEST_LIMIT} test messages of this channel within a minute; try again in ${Math.ceil(wait / 1000)} s`, [], { 'retry-after': String(Math.ceil(wait / 1000)) });
    throttle.fail(key);
    const target: Target = { kind: row.kind, host: row.smtp_host ?? '', port: row.smtp_port ?? 587, url: row.kind === 'webhook' ? shownUrl(row.webhook_url ?? '') : '' };
    const tr = channelTranslator(ctx.services, row);
    const english = ctx.services.catalogues.translator(BASE_LANGUAGE, ctx.services.config.site_locale);
    const audit = (result: 'success' | 'error', details: Record<string, unknown>) => ctx.services.audit.record({
      actor: ctx.caller?.subject ?? 'system', action: 'notification-channel.test', resource: 'notification-channels', result, correlation_id: ctx.requestId,
      tenant_id: row.tenant_id, details: { id: row.id, name: row.name, kind: row.kind, sent_to: to, ...details },
    });
    let outcome: { reply: string; words: string };
    try {
      outcome = await send(row, ctx, to, tr, english);
    } catch (err) {
      const failure = failureOf(err, target);
      const words = failureWords(english, failure);
      await audit('error', { reason: failure.reason, error: words, language: tr.language });
      // The detail carries what the words are made of (its key and parameters), so the shell says it in its reader's language.
      throw new ApiError('notification_test_failed', words, [{ field: 'id', reason: failure.reason, ...{ words_key: `notifications.test_result.why.${failure.why}`, ...failure.params } }]);
    }
    await audit('success', { reply: outcome.reply, language: tr.language });
    return { channel_id: row.id, kind: row.kind, sent_to: to, reply: outcome.reply, words: outcome.words, language: tr.language, at: new Date().toISOString() };
  },
});
