// Query-string parameters: declared once per route (type, enum, bounds), parsed strictly here
// and rendered as OpenAPI parameters by openapi.ts. Unknown parameters are refused: a typo'd
// filter must not silently return every row.
import { ApiError, type ErrorDetail } from './errors.js';

export interface ParamSpec {
  type: 'string' | 'integer' | 'boolean';
  enum?: readonly string[];
  description?: string;
  required?: boolean;
  default?: string | number | boolean;
  min?: number;
  max?: number;
  /** A string in this format: `date-time` is an RFC 3339 timestamp, handed on normalised to UTC (toISOString()). */
  format?: 'date-time';
}

export type QuerySpec = Record<string, ParamSpec>;
export type QueryValues = Record<string, string | number | boolean | undefined>;

export const PAGE_DEFAULT_LIMIT = 50;
export const PAGE_MAX_LIMIT = 500;

/** Parameters shared by every list endpoint (the contract's 4.1). */
export function pagingSpec(sortable: readonly string[], searchable: boolean, maxLimit = PAGE_MAX_LIMIT): QuerySpec {
  const spec: QuerySpec = {
    limit: { type: 'integer', min: 1, max: maxLimit, default: PAGE_DEFAULT_LIMIT, description: `Page size, 1-${maxLimit}; larger values are refused, not capped.` },
    offset: { type: 'integer', min: 0, default: 0, description: 'Rows to skip.' },
  };
  if (sortable.length) {
    spec.sort = { type: 'string', enum: sortable, description: 'Sort field; only the listed fields are sortable.' };
    spec.order = { type: 'string', enum: ['asc', 'desc'], description: 'Sort direction.' };
  }
  if (searchable) spec.q = { type: 'string', description: 'Case-insensitive substring search over the resource\'s search fields.' };
  return spec;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** An RFC 3339 timestamp as UTC `YYYY-MM-DDTHH:MM:SS.sssZ` (how timestamps are stored), or undefined when it is not one. */
export function normaliseDateTime(value: string): string | undefined {
  const m = DATE_TIME.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || s > 59) return undefined;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  const t = Date.parse(value.toUpperCase());
  if (!Number.isFinite(t)) return undefined;
  const iso = new Date(t).toISOString();
  // Years beyond 9999 (after the offset) do not sort as text with the stored timestamps.
  return iso.length === 24 ? iso : undefined;
}

export function parseQuery(spec: QuerySpec, raw: URLSearchParams, where: 'query' | 'path' = 'query'): QueryValues {
  const details: ErrorDetail[] = [];
  const out: QueryValues = {};
  for (const name of new Set(raw.keys())) {
    if (!(name in spec)) details.push({ field: name, reason: 'unknown_parameter' });
    else if (raw.getAll(name).length > 1) details.push({ field: name, reason: 'repeated_parameter' });
  }
  for (const [name, p] of Object.entries(spec)) {
    const value = raw.get(name);
    if (value === null || value === '') {
      if (p.required) details.push({ field: name, reason: 'required' });
      else out[name] = p.default;
      continue;
    }
    if (p.type === 'integer') {
      if (!/^-?\d{1,15}$/.test(value)) { details.push({ field: name, reason: 'invalid_type' }); continue; }
      const n = Number(value);
      if (p.max !== undefined && n > p.max) { details.push({ field: name, reason: 'above_maximum' }); continue; }
      if (p.min !== undefined && n < p.min) { details.push({ field: name, reason: 'below_minimum' }); continue; }
      out[name] = n;
    } else if (p.type === 'boolean') {
      if (value !== 'true' && value !== 'false') { details.push({ field: name, reason: 'unsupported_value' }); continue; }
      out[name] = value === 'true';
    } else {
      if (p.enum && !p.enum.includes(value)) { details.push({ field: name, reason: 'unsupported_value' }); continue; }
      if (value.length > 500) { details.push({ field: name, reason: 'too_long' }); continue; }
      if (p.format === 'date-time') {
        const iso = normaliseDateTime(value);
        if (iso === undefined) { details.push({ field: name, reason: 'invalid_format' }); continue; }
        out[name] = iso;
        continue;
      }
      out[name] = value;
    }
  }
  if (details.length) {
    throw new ApiError('validation_error', `invalid ${where}: ${details.map((d) => `${d.field} (${d.reason})`).join(', ')}`, details);
  }
  return out;
}

/**
 * Checks path parameters against their declared types (the same rules as the query), so an id
 * that cannot be one (`/status/abc` for an integer id) is a 400, not a database error. Handlers
 * keep receiving the parameters as text.
 */
export function parseParams(spec: QuerySpec, params: Record<string, string>): void {
  const raw = new URLSearchParams();
  for (const name of Object.keys(spec)) if (params[name] !== undefined) raw.set(name, params[name]);
  parseQuery(spec, raw, 'path');
}

/** One page of an already computed list (projections that are not tables). */
export function pageItems<T>(items: readonly T[], q: QueryValues) {
  const offset = (q.offset as number | undefined) ?? 0;
  const limit = (q.limit as number | undefined) ?? PAGE_DEFAULT_LIMIT;
  return { items: items.slice(offset, offset + limit), offset, limit, total: items.length };
}
