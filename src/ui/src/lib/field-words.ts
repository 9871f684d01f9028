// Farm words for the fields of the generic forms and lists: the API names its fields and choices in
// its own words (house_id, ttl_minutes, scope "tenant", a passkey's "tenant:farm-1"); a person
// reads "House", "Valid for", "Site staff", "Farm farm-1", in their own language. The words are the
// catalogue's (src/i18n/messages/<lang>/forms.json), found by the field's name, so a new command
// gets the same words as the old ones:
//   forms.field.<name>            a field's label (forms.field.<name>.hint: one line under it)
//   forms.in.<resource>.<name>    where a name means something else on one resource
//   forms.unit.<unit>             the unit after the input (which unit: FIELD_UNITS, by name)
//   forms.choice.<field>.<value>  a choice (forms.choice.any.<value>: the same on every field)
//   forms.label.<slug>            the server's own English label ("Acknowledged by" -> acknowledged-by)
//                                 in another language, for fields the table does not name
// A field the shell has no words for keeps the server's label. Fields the session already knows
// (the farm and the site) are filled from it and not asked; a field naming another record is
// chosen from its names.
import { getList, query } from './api';
import { t, type MessageKey, type MessageParams } from './i18n';
import type { JsonSchema, SchemeField, Session } from './types';

export interface FieldWords {
  label: string;
  /** shown after the input, in words ("minutes", "°C") */
  unit?: string;
  /** which unit (FIELD_UNITS): "minutes" also says how long in words */
  unitId?: string;
  /** one line under the label */
  hint?: string;
}

/** The words of a key when the catalogue has it (the reader's language, else English); undefined otherwise. */
export function known(key: string, params?: MessageParams): string | undefined {
  const out = t(key as MessageKey, params);
  return out === key ? undefined : out;
}

/** The unit each field is measured in, by field name (its words: forms.unit.<unit>). */
const FIELD_UNITS: Record<string, string> = {
  birds_placed: 'birds', birds: 'birds', age_days: 'days', temp: 'celsius', humidity: 'percent', co2: 'ppm', nh3: 'ppm', ventilation: 'fans',
  target_temp_c: 'celsius', temp_tolerance_c: 'celsius', humidity_min_pct: 'percent', humidity_max_pct: 'percent', co2_max_ppm: 'ppm', nh3_max_ppm: 'ppm',
  min_ventilation_pct: 'percent', water_counter_l: 'litres', feed_counter_kg: 'kg', pressure_bar: 'bar', water_warn_pct: 'percent', water_alarm_pct: 'percent',
  feed_warn_pct: 'percent', feed_alarm_pct: 'percent', pressure_min_bar: 'bar', pressure_max_bar: 'bar', water_counter_max: 'litres', feed_counter_max: 'kg',
  mortality: 'birds', culls: 'birds', avg_weight_g: 'g', feed_used_kg: 'kg', water_l: 'litres', egg_weight_g: 'g', sla_target_sec: 'seconds', minutes: 'minutes',
  ttl_minutes: 'minutes',
};

const SNAKE = /[a-z0-9]_[a-z0-9]/;

/** "ttl_minutes" → "Ttl minutes": the last resort. */
const humanise = (name: string) => {
  const s = name.replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
};

/** "Acknowledged by" -> "acknowledged-by": the key of a server label's words in another language. */
export const labelSlug = (english: string) => english.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** A label the server wrote (English, the API's): the reader's words for it when the catalogue has them. */
export function serverLabel(english: string): string {
  return known(`forms.label.${labelSlug(english)}`) ?? english;
}

/**
 * A field's words: the catalogue (by resource, then by name), then the record's own label from its
 * scheme and the body schema's title (in the reader's words when the catalogue has that label),
 * then the name made readable. Units and hints from the catalogue, else the scheme's unit; a schema
 * description only when it holds no API names.
 */
export function fieldWords(name: string, resource?: string, fields: SchemeField[] = [], schema?: JsonSchema): FieldWords {
  const inResource = resource ? known(`forms.in.${resource}.${name}`) : undefined;
  const ownLabel = inResource ?? known(`forms.field.${name}`);
  const ownHint = (inResource !== undefined ? known(`forms.in.${resource}.${name}.hint`) : undefined) ?? (inResource === undefined ? known(`forms.field.${name}.hint`) : undefined);
  const field = fields.find((f) => f.name === name);
  const label = ownLabel ?? (schema?.title && !SNAKE.test(schema.title) ? serverLabel(schema.title) : undefined) ?? (field?.label && !SNAKE.test(field.label) ? serverLabel(field.label) : undefined) ?? serverLabel(humanise(name));
  // the table's unit, else the scheme's: a unit the catalogue names ("days") in the reader's words
  const unitId = FIELD_UNITS[name] ?? (typeof field?.unit === 'string' && /^[a-z]+$/.test(field.unit) && known(`forms.unit.${field.unit}`) ? field.unit : undefined);
  const unit = (unitId ? known(`forms.unit.${unitId}`) : undefined) ?? (typeof field?.unit === 'string' ? field.unit : undefined);
  const described = schema?.description && !SNAKE.test(schema.description) && !/\b[45]\d\d\b/.test(schema.description) ? schema.description : undefined;
  const hint = ownHint ?? described;
  return { label, ...(unit ? { unit } : {}), ...(unitId && unit ? { unitId } : {}), ...(hint ? { hint } : {}) };
}

export const fieldLabel = (name: string, resource?: string, fields?: SchemeField[], schema?: JsonSchema): string => fieldWords(name, resource, fields, schema).label;

/** A choice as a person reads it: "Site staff", not "tenant"; other values made readable ("Out of service"), in the reader's words when the catalogue has them. */
export function choiceWords(field: string, value: string): string {
  if (/^p\d$/i.test(value)) return value.toUpperCase(); // a priority: P1, P2
  return known(`forms.choice.${field}.${value}`) ?? known(`forms.choice.any.${value}`) ?? serverLabel(humanise(value));
}

/** Choices a person may not pick are not offered: only the fleet team issues fleet-wide cards. */
export function choicesFor(field: string, values: string[], s: Session | null | undefined): string[] {
  if ((field === 'scope' || field === 'scope_type') && s?.user.scope_type !== 'master') return values.filter((v) => v !== 'master');
  return values;
}

/** A login's reach in words: "Fleet team", "Farm farm-1", "This site", "Site barn-2 of farm farm-1". */
export function scopeWords(scope: string, s?: Session | null): string {
  if (scope === 'master') return t('forms.scope.fleet');
  const m = /^tenant:([^/]+)(?:\/site:(.+))?$/.exec(scope);
  if (!m) return scope;
  const [, tenant, site] = m;
  const mySite = s?.ctx.site_id ?? s?.user.site_id;
  if (!site) return t('forms.scope.farm', { tenant });
  if (site === mySite && tenant === (s?.ctx.tenant_id ?? s?.user.tenant_id)) return t('forms.scope.thisSite');
  return tenant === (s?.ctx.tenant_id ?? s?.user.tenant_id) ? t('forms.scope.site', { site }) : t('forms.scope.siteOfFarm', { site, tenant });
}

/** "1 year", "2 days", "10 hours", "45 minutes": how long a number of minutes is. */
export function durationWords(minutes: number): string {
  if (!Number.isFinite(minutes) || minutes <= 0) return '';
  if (minutes % 525_600 === 0) return t('forms.duration.years', { n: minutes / 525_600 });
  if (minutes % 1440 === 0) return t('forms.duration.days', { n: minutes / 1440 });
  if (minutes % 60 === 0) return t('forms.duration.hours', { n: minutes / 60 });
  if (minutes > 1440) return t('forms.duration.aboutDays', { n: Math.round(minutes / 1440) });
  if (minutes > 60) return t('forms.duration.aboutHours', { n: Math.round(minutes / 60) });
  return t('forms.duration.minutes', { n: minutes });
}

/** Values a form starts with when the API gives no default: a card is valid for a year unless changed. */
export const FIELD_DEFAULTS: Record<string, unknown> = { ttl_minutes: 525_600 };

/** The farm and the site the session is in: filled in and not asked. */
export function sessionValues(s: Session | null | undefined): Record<string, string> {
  const tenant = s?.ctx.tenant_id ?? s?.user.tenant_id;
  const site = s?.ctx.site_id ?? s?.user.site_id;
  return { ...(tenant ? { tenant_id: tenant } : {}), ...(site ? { site_id: site } : {}) };
}

/** Fields never asked: the farm when the session has one, the site always (the session's, or every site). */
export function askedFromSession(name: string, s: Session | null | undefined, required: boolean): boolean {
  if (name === 'tenant_id') return !sessionValues(s).tenant_id && required;
  if (name === 'site_id') return !sessionValues(s).site_id && required;
  return true;
}

export interface Choice { value: string; label: string }

type Row = Record<string, unknown>;
interface Source { path: string; value: string; label: (r: Row) => string; params?: Record<string, string> }
/** Fields naming another record: where its names come from, and what a new one is called (words, at render time). */
const FOREIGN: Record<string, { sources: Source[]; other?: () => string }> = {
  house_id: {
    sources: [
      { path: 'poultry-flock', value: 'house_id', label: (r) => t('forms.foreign.house', { id: String(r.house_id) }) },
      { path: 'poultry-adapters', value: 'unit_id', label: (r) => t('forms.foreign.house', { id: String(r.unit_id) }) },
    ],
    other: () => t('forms.foreign.otherHouse'),
  },
  'poultry-flock:profile_id': {
    sources: [{ path: 'poultry-profiles', value: 'id', label: (r) => t('forms.foreign.profile', { name: typeof r.name === 'string' && r.name ? r.name : t('forms.foreign.profileName'), version: String(r.version_id ?? 1) }), params: { state: 'published' } }],
  },
};

/** A person's language (a card's, a channel's): chosen among the languages the box offers, by their own names. */
const LANGUAGE_FIELDS = new Set(['language']);

/** Whether a field is chosen from a list (house by name, profile by name, a language), what typing a new value is called, and what its empty choice says. */
export function foreignOf(name: string, resource?: string): { other?: string; none?: string } | undefined {
  if (LANGUAGE_FIELDS.has(name)) return { none: t('forms.language.siteDefault') };
  const f = FOREIGN[`${resource}:${name}`] ?? FOREIGN[name];
  return f ? { ...(f.other ? { other: f.other() } : {}) } : undefined;
}

interface LanguageEntry { code: string; name: string }

/** The languages the box offers (GET /app/i18n/languages.json), each by its own name. */
async function languageChoices(): Promise<Choice[]> {
  try {
    const res = await fetch('/app/i18n/languages.json', { credentials: 'same-origin' });
    if (!res.ok) return [];
    const body = (await res.json()) as { languages?: LanguageEntry[] };
    return (body.languages ?? []).filter((l) => typeof l.code === 'string').map((l) => ({ value: l.code, label: l.name || l.code }));
  } catch {
    return []; // offline: the field stays a text box
  }
}

/** The names to choose from (deduplicated, in order), from the resources this session may list. */
export async function loadChoices(name: string, resource: string | undefined, s: Session | null | undefined): Promise<Choice[]> {
  if (LANGUAGE_FIELDS.has(name)) return languageChoices();
  const f = FOREIGN[`${resource}:${name}`] ?? FOREIGN[name];
  if (!f || !s) return [];
  const served = (p: string) => [...s.resources.values()].some((l) => l.includes(p));
  const seen = new Map<string, string>();
  for (const src of f.sources) {
    if (!served(src.path)) continue;
    try {
      const r = await getList<Row>(`/api/v1/${src.path}/list${query({ limit: 200, ...src.params })}`);
      for (const row of r.data.items) {
        const v = row[src.value];
        if (typeof v === 'string' && v && !seen.has(v)) seen.set(v, src.label(row));
      }
    } catch {
      /* a list this person may not read: the field stays a text box */
    }
  }
  return [...seen].map(([value, label]) => ({ value, label })).sort((a, b) => a.label.localeCompare(b.label, undefined, { numeric: true }));
}
