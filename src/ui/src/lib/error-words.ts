// The box's errors in the reader's language. The API answers machine codes (`rbac_forbidden`,
// `validation_error` with details[] of {field, reason, min, max, allowed, ...}) and an English
// message for clients that read it; the shell words them from the catalogue's `errors` area and
// falls back to the server's message for a code it has no words for.
import { boxText, t, type MessageParams } from './i18n';

/** What of an API error the words need (ApiError of lib/api.ts, which imports this file: no import back). */
export interface ApiErrorLike {
  readonly code: string;
  readonly message: string;
  readonly offline: boolean;
  readonly details: readonly { field?: string; reason?: string; [param: string]: unknown }[];
}

/** One field issue of a 400 validation_error (the server's details[] entry). */
export interface IssueDetail { field?: string; reason?: string; [k: string]: unknown }

/**
 * Codes whose words say it all: the server's message (ids, times in UTC, role and permission
 * names) is left out. For the others the server's message names what it was about, so it follows
 * the words (in English when the box has no key for it).
 */
const WHOLE = new Set([
  'auth_required', 'rbac_forbidden', 'scope_boundary_denied', 'tenant_boundary_denied', 'alarm_not_found', 'alarm_already_acknowledged',
  'rate_limited', 'module_not_installed', 'internal_error', 'service_unavailable', 'payload_too_large', 'request_timeout',
  'idempotency_in_progress', 'idempotency_key_reused', 'cross_site_request', 'login_method_forbidden', 'https_required', 'upgrade_required',
  'headers_too_large', 'unsupported_media_type', 'bad_request', 'module_already_installed', 'module_is_core', 'method_not_allowed', 'login_refused',
]);

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const CARD = /\bPK-[A-Z0-9]+\b/g;

/** The server's message as a sentence; ids mean nothing to a person at the tablet, so they are dropped. */
function serverMessage(err: ApiErrorLike): string {
  const m = err.message.replace(UUID, '').replace(CARD, '').replace(/\s{2,}/g, ' ').replace(/\s+([,.;:)])/g, '$1').trim();
  return m ? m.charAt(0).toUpperCase() + m.slice(1) : '';
}

/** The primitive values of a detail, as message parameters (lists joined, for "choose one of: a, b"). */
function paramsOf(detail: IssueDetail): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [k, v] of Object.entries(detail)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) out[k] = v;
    else if (Array.isArray(v)) out[k] = v.map(String).join(', ');
  }
  return out;
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The most precise key for the issue (with its limits, its choices, its format), then the reason's own. */
function issueKeys(reason: string, d: IssueDetail): string[] {
  const keys: string[] = [];
  if (reason === 'out_of_range') {
    if (num(d.min) && num(d.max)) keys.push('errors.reason.out_of_range.between');
    else if (num(d.min)) keys.push('errors.reason.out_of_range.min');
    else if (num(d.max)) keys.push('errors.reason.out_of_range.max');
    else if (num(d.min_length)) keys.push('errors.reason.out_of_range.min_length');
    else if (num(d.max_length)) keys.push('errors.reason.out_of_range.max_length');
    else if (num(d.min_items)) keys.push('errors.reason.out_of_range.min_items');
    else if (num(d.max_items)) keys.push('errors.reason.out_of_range.max_items');
  }
  if (reason === 'unsupported_value' && Array.isArray(d.allowed) && d.allowed.length) keys.push('errors.reason.unsupported_value.allowed');
  if (reason === 'invalid_format' && typeof d.format === 'string') keys.push(`errors.reason.invalid_format.${d.format}`);
  if (reason === 'invalid_type' && typeof d.expected === 'string') keys.push(`errors.reason.invalid_type.${d.expected}`);
  keys.push(`errors.reason.${reason}`);
  return keys;
}

/**
 * One field issue in words, without the field's name (a form shows it beside its field):
 * "must be from 10 to 35", "required", "choose one of: poultry, swine". A reason the catalogue
 * does not know reads as the server's own words for it (its `message`), else as the reason code.
 */
export function issueText(detail: IssueDetail): string {
  const reason = typeof detail.reason === 'string' && detail.reason ? detail.reason : 'invalid_value';
  const params: MessageParams = paramsOf(detail);
  const said = typeof detail.message === 'string' && detail.message ? detail.message : '';
  // A check over several fields (valibot's check) is described only by its message.
  if (reason === 'invalid_value' && said) return said;
  for (const key of issueKeys(reason, detail)) {
    const out = boxText(key, params, '');
    if (out) return out;
  }
  return said || t('errors.reason.other', { reason: reason.replace(/_/g, ' ') });
}

/** The field's name as the reader sees it in a summary ("request" for the body as a whole). */
function fieldWords(field: unknown): string {
  return typeof field === 'string' && field && field !== 'body' ? field : t('errors.field.request');
}

/**
 * An API error in the reader's language, from its code: the code's words (the server's message
 * after them where it says what it was about), each field issue of a validation error, or the
 * server's message for a code this shell has no words for.
 */
export function errorText(err: ApiErrorLike): string {
  if (err.offline) return t('errors.offline');
  if (err.code === 'validation_error' && err.details.length) {
    const issues = err.details.map((d) => t('errors.issue.with_field', { field: fieldWords(d.field), issue: issueText(d) }));
    return [t('errors.issues', { n: issues.length }), issues.join('; ')].join(' ');
  }
  const words = boxText(`errors.code.${err.code}`, undefined, '');
  const said = serverMessage(err);
  if (!words) return said || err.code;
  if (WHOLE.has(err.code) || !said) return words;
  return t('errors.with_cause', { words, cause: said });
}
