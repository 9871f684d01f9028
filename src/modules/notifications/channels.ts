// notification-channels: scheme, list, {id}, create, PATCH, DELETE. An e-mail channel is an SMTP
// server and its sender; a webhook channel is a URL and the key its bodies are signed with.
// Secrets (smtp_password, webhook_key) are write-only: accepted in create and PATCH, stored
// encrypted (secrets.ts), never in an answer, a log line or the audit; items say has_secret.
// The user info and query of webhook_url are write-only too (a token often rides there).
// `language` is the language its messages are written in (null: the site's default), one the box
// offers now (message.ts renders with it).
import * as v from 'valibot';
import { defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { requiredTenant } from '../../kernel/tenancy.js';
import type { HandlerContext } from '../../kernel/route.js';
import { timeId } from '../../kernel/ids.js';
import { sealSecret } from './secrets.js';
import { shownUrl } from './send.js';
import { refusePrivateChannel } from '../../runtime/egress.js';
import { CHANNEL_KINDS, TLS_MODES, channelRecord, type ChannelRow } from './schema.js';
import { email, httpUrl, ident, int, opt, short } from './inputs.js';
import { testCommand } from './test.js';
import { LANGUAGE_TAG } from '../../i18n/languages.js';
import type { Services } from '../../kernel/context.js';

const secret = v.pipe(v.string(), v.minLength(1), v.maxLength(1000));
const settings = {
  name: short(200),
  enabled: v.optional(v.boolean()),
  smtp_host: opt(short(253)),
  smtp_port: opt(int(1, 65535)),
  smtp_tls: opt(v.picklist(TLS_MODES)),
  smtp_user: opt(short(254)),
  smtp_from: opt(email),
  smtp_password: opt(secret),
  recipients: v.optional(v.pipe(v.array(email), v.maxLength(50))),
  webhook_url: opt(httpUrl),
  webhook_key: opt(v.pipe(v.string(), v.minLength(16, 'a webhook key of at least 16 characters'), v.maxLength(1000))),
  site_name: opt(short(200)),
  link_url: opt(httpUrl),
  language: opt(v.pipe(v.string(), v.regex(LANGUAGE_TAG, 'a language code (en, ru, es, or one the site added)'))),
  retry_max_attempts: v.optional(int(1, 20)),
  retry_base_ms: v.optional(int(100, 3_600_000)),
};
const SETTING_KEYS = new Set(Object.keys(settings));
const createBody = v.strictObject({ item: v.strictObject({ id: v.optional(ident), tenant_id: v.optional(ident), kind: v.picklist(CHANNEL_KINDS), ...settings }) });
const patchBody = v.strictObject({ item: v.strictObject({ ...settings, name: v.optional(settings.name) }) });
type Settings = Partial<v.InferOutput<typeof patchBody>['item']>;

export const DEFAULT_ATTEMPTS = 8;
export const DEFAULT_BASE_MS = 30_000;

/**
 * A channel's language is one the box offers now (shipped, or a site's catalogue file): a code no
 * catalogue has would send every message in English while the form said otherwise.
 */
function checkLanguage(services: Services, language: string | null | undefined): void {
  if (language === undefined || language === null) return;
  const offered = services.catalogues.languages().map((l) => l.code);
  if (!offered.includes(language)) {
    throw new ApiError('validation_error', `the box has no catalogue for the language ${language} (it offers ${offered.join(', ')})`, [{ field: 'item.language', reason: 'unknown_language' }]);
  }
}

/** Fields a channel of its kind must have (the secret is checked at create only: it may be cleared later on purpose). */
function check(row: ChannelRow): void {
  const missing = (field: string) => new ApiError('validation_error', `a ${row.kind} channel needs ${field}`, [{ field: `item.${field}`, reason: 'required' }]);
  if (row.kind === 'email') {
    if (!row.smtp_host) throw missing('smtp_host');
    if (!row.smtp_from) throw missing('smtp_from');
    if (row.webhook_url) throw new ApiError('validation_error', 'an e-mail channel has no webhook_url', [{ field: 'item.webhook_url', reason: 'not_allowed' }]);
  } else {
    if (!row.webhook_url) throw missing('webhook_url');
    if (row.recipients.length) throw new ApiError('validation_error', 'a webhook channel has no recipients (its URL is the recipient)', [{ field: 'item.recipients', reason: 'not_allowed' }]);
    if (row.smtp_host) throw new ApiError('validation_error', 'a webhook channel has no smtp_host', [{ field: 'item.smtp_host', reason: 'not_allowed' }]);
  }
}

/** The settings of a body as row columns; the secret of the channel's kind sealed, the other kind's refused. */
function columns(kind: ChannelRow['kind'], b: Settings, ctx: HandlerContext<unknown>): Partial<ChannelRow> {
  const out: Partial<ChannelRow> = {};
  for (const [k, value] of Object.entries(b)) {
    if (value === undefined || !SETTING_KEYS.has(k) || k === 'smtp_password' || k === 'webhook_key') continue;
    (out as Record<string, unknown>)[k] = value;
  }
  const mine = kind === 'email' ? 'smtp_password' : 'webhook_key';
  const other = kind === 'email' ? 'webhook_key' : 'smtp_password';
  if (b[other] !== undefined && b[other] !== null) throw new ApiError('validation_error', `a ${kind} channel has no ${other}`, [{ field: `item.${other}`, reason: 'not_allowed' }]);
  const given = b[mine];
  if (given !== undefined) {
    out.secret_enc = given === null ? null : sealSecret(ctx.services.sessions, given);
    out.has_secret = given !== null;
  }
  return out;
}

/** No secret in an item: the sealed secret is left out, and the webhook URL is shown without user info or query (they often carry a token). */
const toItem = (row: ChannelRow) => {
  const { secret_enc: _sealed, ...item } = row;
  return { ...item, webhook_url: row.webhook_url === null ? null : shownUrl(row.webhook_url) };
};

export const channelResource = defineResource<ChannelRow, v.InferOutput<typeof createBody>, v.InferOutput<typeof patchBody>>({
  name: 'notification-channels',
  module: 'notifications',
  title: 'Notification channels',
  record: channelRecord,
  access: { resource: 'notifications', scope: 'any' },
  tenantColumn: 'tenant_id',
  defaultSort: { field: 'id', order: 'asc' },
  toItem,
  create: {
    body: createBody,
    toRow: (body, ctx) => {
      const b = body.item;
      const row: ChannelRow = {
        id: b.id ?? timeId(), tenant_id: requiredTenant(ctx.caller, b.tenant_id), name: b.name, kind: b.kind, enabled: b.enabled ?? true,
        smtp_host: null, smtp_port: null, smtp_tls: null, smtp_user: null, smtp_from: null, webhook_url: null, recipients: [], secret_enc: null, has_secret: false,
        site_name: null, link_url: null, language: null, retry_max_attempts: DEFAULT_ATTEMPTS, retry_base_ms: DEFAULT_BASE_MS, updated_at: new Date().toISOString(),
        ...columns(b.kind, b, ctx as HandlerContext<unknown>),
      } as ChannelRow;
      if (row.kind === 'email') {
        row.smtp_port ??= row.smtp_tls === 'tls' ? 465 : 587;
        row.smtp_tls ??= 'starttls';
      } else if (!row.has_secret) {
        throw new ApiError('validation_error', 'a webhook channel needs webhook_key (its bodies are signed with it)', [{ field: 'item.webhook_key', reason: 'required' }]);
      }
      check(row);
      checkLanguage(ctx.services, row.language);
      refusePrivateChannel(ctx.services.config, row);
      return row;
    },
  },
  patch: {
    body: patchBody,
    apply: (current, body, ctx) => {
      const changes = columns(current.kind, body.item, ctx as HandlerContext<unknown>);
      check({ ...current, ...changes });
      checkLanguage(ctx.services, changes.language);
      refusePrivateChannel(ctx.services.config, { ...current, ...changes });
      if (current.kind === 'webhook' && changes.has_secret === false) {
        throw new ApiError('validation_error', 'a webhook channel keeps a webhook_key; send a new one to replace it', [{ field: 'item.webhook_key', reason: 'required' }]);
      }
      return { ...changes, updated_at: new Date().toISOString() };
    },
  },
  delete: true,
  commands: { test: testCommand },
});
