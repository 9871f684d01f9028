// The passkeys resource: scheme, list (sort, order, q, type, status), {id}, issue and revoke.
import * as v from 'valibot';
import { ApiError } from '../../kernel/errors.js';
import { command, defineResource } from '../../kernel/resource.js';
import type { JsonSchema } from '../../kernel/route.js';
import { scopeString } from '../../auth/scope.js';
import { passkeyRecord, type PasskeyRow } from './schema.js';
import { newPasskeyId, qrCredential, rfidCredential } from './credentials.js';
import { LANGUAGE_RULE, languageField, offeredLanguage } from '../../auth/language.js';
import { requestJsonSchema } from '../../kernel/json-schema.js';
import { SHIPPED_LANGUAGES } from '../../i18n/languages.js';

const MAX_TTL_MINUTES = 5 * 365 * 24 * 60;
const ident = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/));

const issueBody = v.strictObject({
  type: v.picklist(['qr', 'rfid']),
  holder: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  scope: v.picklist(['master', 'tenant']),
  ttl_minutes: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TTL_MINUTES)),
  role: v.optional(v.picklist(['operator', 'admin', 'security']), 'operator'),
  tenant_id: v.optional(ident),
  site_id: v.optional(ident),
  card_uid: v.optional(v.pipe(v.string(), v.regex(/^[0-9A-Fa-f]{8,32}$/, 'card_uid: 8-32 hex digits as the reader reports it'))),
  language: v.optional(languageField),
});
const setLanguageBody = v.strictObject({ id: v.pipe(v.string(), v.minLength(1)), language: languageField });

/**
 * The form's schema offers the shipped languages as choices (empty: the site's default); the
 * body accepts a site-added language too, checked against the box's languages when it is sent.
 */
function withLanguageChoices(body: Parameters<typeof requestJsonSchema>[0]): JsonSchema {
  const schema = requestJsonSchema(body);
  const properties = { ...((schema.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  properties.language = { anyOf: [{ type: 'string', enum: [...SHIPPED_LANGUAGES] }, { type: 'null' }], description: LANGUAGE_RULE };
  return { ...schema, properties };
}

const toItem = (r: PasskeyRow) => ({
  id: r.id, type: r.type, holder: r.holder, scope: r.scope, scope_type: r.scope_type, tenant_id: r.tenant_id, site_id: r.site_id,
  role: r.role, status: r.status, issued_at: r.issued_at, issued_by: r.issued_by, expires_at: r.expires_at, last_used_at: r.last_used_at,
  language: r.language ?? null,
});


export const passkeysResource = defineResource<PasskeyRow>({
  name: 'passkeys',
  module: 'passkeys',
  title: 'Passkeys',
  record: passkeyRecord,
  access: { resource: 'passkeys', scope: 'any' },
  tenantColumn: 'tenant_id',
  defaultSort: { field: 'issued_at', order: 'desc' },
  toItem,
  commands: {
    issue: command({
      summary: 'Issue a passkey; the answer carries its credential once (it is stored only as a keyed hash)',
      action: 'issue', body: issueBody, bodyJsonSchema: withLanguageChoices(issueBody), status: 201, idempotent: false,
      response: { type: 'object', required: ['id', 'credential'], properties: { ...Object.fromEntries(Object.entries(passkeyRecord.fields).filter(([, f]) => !('internal' in f)).map(([k]) => [k, {}])), credential: { type: 'string', description: 'RF-... or QR-...: shown only in this answer.' }, qr_svg: { type: 'string', description: 'The credential as a QR code (SVG), drawn only for this answer so it can be printed.' } } },
      handler: async (ctx, kit) => {
        const body = ctx.body;
        const caller = ctx.caller;
        if (caller?.scope_type === 'tenant' && body.scope === 'master') {
          throw new ApiError('scope_boundary_denied', 'a tenant session cannot issue master passkeys');
        }
        if (body.scope === 'tenant' && !(body.tenant_id ?? caller?.tenant_id)) {
          throw new ApiError('validation_error', 'a tenant passkey needs tenant_id', [{ field: 'tenant_id', reason: 'required' }]);
        }
        if (body.scope === 'master' && (body.tenant_id || body.site_id)) {
          throw new ApiError('validation_error', 'a master passkey has no tenant or site', [{ field: 'tenant_id', reason: 'not_allowed' }]);
        }
        if (body.card_uid && body.type !== 'rfid') {
          throw new ApiError('validation_error', 'card_uid is for rfid passkeys', [{ field: 'card_uid', reason: 'not_allowed' }]);
        }
        const language = offeredLanguage(ctx.services.catalogues, body.language);
        const credential = body.type === 'rfid' ? rfidCredential(body.card_uid) : qrCredential();
        const now = new Date();
        const tenant = body.scope === 'tenant' ? (body.tenant_id ?? caller?.tenant_id ?? null) : null;
        const row: PasskeyRow = {
          id: newPasskeyId(), type: body.type, holder: body.holder,
          scope: scopeString({ scope_type: body.scope, tenant_id: tenant, site_id: body.site_id ?? null }),
          scope_type: body.scope, tenant_id: tenant, site_id: body.site_id ?? null, role: body.role, status: 'active',
          issued_at: now.toISOString(), issued_by: caller?.subject ?? 'cli',
          expires_at: new Date(now.getTime() + body.ttl_minutes * 60_000).toISOString(),
          last_used_at: null, revoked_at: null, credential_digest: ctx.services.sessions.digest(credential), language,
        };
        const store = kit.store(ctx.services.db);
        if (await store.find({ credential_digest: row.credential_digest })) {
          throw new ApiError('already_exists', 'a passkey with this card is already registered; revoke it first');
        }
        const saved = await store.insert(row);
        if (!saved) throw new ApiError('already_exists', 'passkey id collision; try again');
        // The credential is stored only as a digest, so its QR image can only be drawn now.
        const qr_svg = await (await import('qrcode')).default.toString(credential, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
        return { ...toItem(saved as PasskeyRow), credential, qr_svg };
      },
    }),
    'set-language': command({
      summary: 'Set the language of a card or badge: the tablet reads in it while the card is logged in. Audited (passkeys.set-language).',
      action: 'update', body: setLanguageBody, bodyJsonSchema: withLanguageChoices(setLanguageBody), errors: ['not_found'],
      handler: async (ctx, kit) => {
        const { id } = ctx.body;
        const language = offeredLanguage(ctx.services.catalogues, ctx.body.language);
        const row = (await kit.load(ctx, id)) as PasskeyRow;
        const saved = (await kit.store(ctx.services.db).update({ id }, { language })) as PasskeyRow;
        await ctx.services.audit.record({
          actor: ctx.caller?.subject ?? 'unknown', action: 'passkeys.set-language', resource: 'passkeys', result: 'success',
          tenant_id: row.tenant_id, details: { id, from: row.language ?? null, to: language },
        });
        return toItem(saved);
      },
    }),
    revoke: command({
      summary: 'Revoke a passkey: it no longer logs in, and sessions opened with it end. Revoking twice answers the revoked passkey again.',
      action: 'revoke', body: v.strictObject({ id: v.pipe(v.string(), v.minLength(1)) }), errors: ['not_found'],
      handler: async (ctx, kit) => {
        const { id } = ctx.body;
        const row = (await kit.load(ctx, id)) as PasskeyRow;
        if (row.status === 'revoked') return toItem(row);
        const saved = await kit.store(ctx.services.db).update({ id }, { status: 'revoked', revoked_at: new Date().toISOString() });
        return toItem(saved as PasskeyRow);
      },
    }),
  },
});
