// Farm words for the fields of the generic forms and lists: the API names its fields and choices in
// its own words (house_id, ttl_minutes, scope "tenant", a passkey's "tenant:farm-1"); a person
// reads "House", "Valid for", "Site staff", "Farm farm-1". One table for every form, so a new
// command gets the same words as the old ones. Fields the session already knows (the farm and the
// site) are filled from it and not asked; a field naming another record is chosen from its names.
import { getList, query } from './api';
import type { Session } from './session';
import type { JsonSchema, SchemeField } from './types';

export interface FieldWords {
  label: string;
  /** shown after the input, in words ("minutes", "°C") */
  unit?: string;
  /** one line under the label */
  hint?: string;
}

/** By field name, for every resource. */
const FIELDS: Record<string, FieldWords> = {
  tenant_id: { label: 'Farm' },
  site_id: { label: 'Site' },
  house_id: { label: 'House' },
  unit_id: { label: 'House, room or field' },
  batch_id: { label: 'Batch' },
  profile_id: { label: 'Profile' },
  target_profile_id: { label: 'Profile to replace' },
  age_phase_id: { label: 'Age phase' },
  subtype: { label: 'Kind of flock' },
  start_date: { label: 'Placed on' },
  planned_close_date: { label: 'Planned depletion' },
  closed_date: { label: 'Closed on' },
  birds_placed: { label: 'Birds placed', unit: 'birds' },
  birds: { label: 'Birds in the house', unit: 'birds' },
  age_days: { label: 'Age of the flock', unit: 'days' },
  ts: { label: 'Time of the reading', hint: 'Leave empty for now.' },
  temp: { label: 'Temperature', unit: '°C' },
  humidity: { label: 'Humidity', unit: '%' },
  co2: { label: 'CO₂', unit: 'ppm' },
  nh3: { label: 'NH₃ (ammonia)', unit: 'ppm' },
  ventilation: { label: 'Ventilation', unit: '% of the fans' },
  change_note: { label: 'Note on the change' },
  day_from: { label: 'From day of age' },
  day_to: { label: 'To day of age' },
  target_temp_c: { label: 'Target temperature', unit: '°C' },
  temp_tolerance_c: { label: 'Temperature band (±)', unit: '°C' },
  humidity_min_pct: { label: 'Lowest humidity', unit: '%' },
  humidity_max_pct: { label: 'Highest humidity', unit: '%' },
  co2_max_ppm: { label: 'Highest CO₂', unit: 'ppm' },
  nh3_max_ppm: { label: 'Highest NH₃', unit: 'ppm' },
  min_ventilation_pct: { label: 'Lowest ventilation', unit: '%' },
  water_counter_l: { label: 'Water meter', unit: 'litres' },
  feed_counter_kg: { label: 'Feed meter', unit: 'kg' },
  pressure_bar: { label: 'Line pressure', unit: 'bar' },
  reset_water: { label: 'The water meter was reset' },
  reset_feed: { label: 'The feed meter was reset' },
  water_warn_pct: { label: 'Water: warn when off by', unit: '%' },
  water_alarm_pct: { label: 'Water: alarm when off by', unit: '%' },
  feed_warn_pct: { label: 'Feed: warn when off by', unit: '%' },
  feed_alarm_pct: { label: 'Feed: alarm when off by', unit: '%' },
  pressure_min_bar: { label: 'Lowest line pressure', unit: 'bar' },
  pressure_max_bar: { label: 'Highest line pressure', unit: 'bar' },
  ratio_min: { label: 'Lowest water to feed ratio' },
  ratio_max: { label: 'Highest water to feed ratio' },
  water_counter_max: { label: 'Water meter turns over at', unit: 'litres' },
  feed_counter_max: { label: 'Feed meter turns over at', unit: 'kg' },
  curve: { label: 'Expected feed and water by day' },
  metric_date: { label: 'Day' },
  mortality: { label: 'Dead', unit: 'birds' },
  culls: { label: 'Culled', unit: 'birds' },
  avg_weight_g: { label: 'Average weight', unit: 'g' },
  feed_used_kg: { label: 'Feed used', unit: 'kg' },
  water_l: { label: 'Water used', unit: 'litres' },
  eggs: { label: 'Eggs' },
  egg_weight_g: { label: 'Average egg weight', unit: 'g' },
  notes: { label: 'Notes' },
  yaml: { label: 'Profile file (YAML text)' },
  industry_code: { label: 'Industry' },
  equipment_profile: { label: 'Equipment' },
  publish: { label: 'Put it in force at once' },
  version_id: { label: 'Version' },
  severity: { label: 'Severity' },
  priority: { label: 'Priority' },
  message: { label: 'Message' },
  source: { label: 'Where it comes from' },
  correlation_id: { label: 'Reference' },
  sla_target_sec: { label: 'To be answered within', unit: 'seconds' },
  details: { label: 'More details' },
  latched: { label: 'Stays until someone resets it' },
  resettable: { label: 'Can be reset by hand' },
  metric: { label: 'Measurement' },
  value: { label: 'Value' },
  assignee: { label: 'Taken on by' },
  acknowledged_by: { label: 'Acknowledged by' },
  text: { label: 'Comment' },
  comment: { label: 'Comment' },
  reason: { label: 'Reason' },
  minutes: { label: 'For', unit: 'minutes' },
  tablet: { label: 'Tablet' },
  alarm_ids: { label: 'Alarms' },
  force: { label: 'Even before its deadline' },
  transport: { label: 'Connection' },
  host: { label: 'Network address' },
  port: { label: 'Port' },
  serial_path: { label: 'Serial port' },
  modbus_unit_id: { label: 'Modbus unit number' },
  device_instance: { label: 'BACnet device number' },
  reading: { label: 'Reading' },
  point: { label: 'Setpoint' },
  points: { label: 'Readings' },
  actor: { label: 'Who' },
  action: { label: 'What was done' },
  resource: { label: 'On what' },
  result: { label: 'Result' },
  event: { label: 'Event' },
  status: { label: 'Status' },
  to_state: { label: 'Move to' },
  device_id: { label: 'Device' },
  to: { label: 'Send to' },
  holder: { label: 'Holder', hint: 'The name of the person who gets it.' },
  card_uid: { label: 'Card number', hint: 'As the reader shows it; leave empty to read it later.' },
  role: { label: 'Role' },
  scope: { label: 'For' },
  scope_type: { label: 'Kind of holder' },
  type: { label: 'Kind' },
  ttl_minutes: { label: 'Valid for', unit: 'minutes' },
  name: { label: 'Name' },
  title: { label: 'Title' },
};

/** Where a name means something else: "<resource>:<field>". */
const IN_RESOURCE: Record<string, FieldWords> = {
  'passkeys:type': { label: 'Kind of login' },
  'passkeys:scope': { label: 'For' },
  'poultry-flock:profile_id': { label: 'Climate curve from', hint: 'Empty: the newest curve of this site, else the built-in broiler curve.' },
  'poultry-climate:profile_id': { label: 'Climate targets of' },
  'industry-alarms:unit_id': { label: 'House, room or field' },
  'poultry-alarms:house_id': { label: 'House' },
  'audit:resource': { label: 'On what' },
};

const SNAKE = /[a-z0-9]_[a-z0-9]/;

/** "ttl_minutes" → "Ttl minutes": the last resort. */
const humanise = (name: string) => {
  const s = name.replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
};

/**
 * A field's words: the table (by resource, then by name), then the record's own label from its
 * scheme and the body schema's title, then the name made readable. Units and hints from the table,
 * else the scheme's unit; a schema description only when it holds no API names.
 */
export function fieldWords(name: string, resource?: string, fields: SchemeField[] = [], schema?: JsonSchema): FieldWords {
  const own = (resource && IN_RESOURCE[`${resource}:${name}`]) || FIELDS[name];
  const field = fields.find((f) => f.name === name);
  const label = own?.label ?? (schema?.title && !SNAKE.test(schema.title) ? schema.title : undefined) ?? (field?.label && !SNAKE.test(field.label) ? field.label : undefined) ?? humanise(name);
  const unit = own?.unit ?? (typeof field?.unit === 'string' ? field.unit : undefined);
  const described = schema?.description && !SNAKE.test(schema.description) && !/\b[45]\d\d\b/.test(schema.description) ? schema.description : undefined;
  const hint = own?.hint ?? described;
  return { label, ...(unit ? { unit } : {}), ...(hint ? { hint } : {}) };
}

export const fieldLabel = (name: string, resource?: string, fields?: SchemeField[], schema?: JsonSchema): string => fieldWords(name, resource, fields, schema).label;

/** Choices in words, by field name; values not listed are made readable. */
const CHOICES: Record<string, Record<string, string>> = {
  scope: { master: 'Fleet team', tenant: 'Site staff' },
  scope_type: { master: 'Fleet team', tenant: 'Site staff' },
  type: { rfid: 'RFID card', qr: 'QR badge' },
  role: { operator: 'Operator', admin: 'Site admin', security: 'Security officer' },
  subtype: { broiler: 'Broilers', layer: 'Layers', breeder: 'Breeders' },
  transport: { 'modbus-tcp': 'Modbus TCP (network)', 'modbus-rtu': 'Modbus RTU (serial line)', bacnet: 'BACnet' },
  industry_code: { poultry: 'Poultry', swine: 'Swine', melioration: 'Melioration' },
  to_state: { planned: 'Planned', in_progress: 'In progress', blocked: 'Blocked', done: 'Done', canceled: 'Cancelled' },
  status: { ok: 'OK', warn: 'Warning', error: 'Error', acked: 'Acknowledged', in_progress: 'In progress', canceled: 'Cancelled' },
  state: { acked: 'Acknowledged', in_progress: 'In progress', canceled: 'Cancelled' },
};
const ANY_CHOICE: Record<string, string> = { acked: 'Acknowledged', p1: 'P1', p2: 'P2', P1: 'P1', P2: 'P2', ok: 'OK' };

/** A choice as a person reads it: "Site staff", not "tenant". */
export function choiceWords(field: string, value: string): string {
  return CHOICES[field]?.[value] ?? ANY_CHOICE[value] ?? humanise(value);
}

/** Choices a person may not pick are not offered: only the fleet team issues fleet-wide cards. */
export function choicesFor(field: string, values: string[], s: Session | null | undefined): string[] {
  if ((field === 'scope' || field === 'scope_type') && s?.user.scope_type !== 'master') return values.filter((v) => v !== 'master');
  return values;
}

/** A login's reach in words: "Fleet team", "Farm farm-1", "This site", "Site barn-2 of farm farm-1". */
export function scopeWords(scope: string, s?: Session | null): string {
  if (scope === 'master') return 'Fleet team';
  const m = /^tenant:([^/]+)(?:\/site:(.+))?$/.exec(scope);
  if (!m) return scope;
  const [, tenant, site] = m;
  const mySite = s?.ctx.site_id ?? s?.user.site_id;
  if (!site) return `Farm ${tenant}`;
  if (site === mySite && tenant === (s?.ctx.tenant_id ?? s?.user.tenant_id)) return 'This site';
  return tenant === (s?.ctx.tenant_id ?? s?.user.tenant_id) ? `Site ${site}` : `Site ${site} of farm ${tenant}`;
}

/** "1 year", "2 days", "10 hours", "45 minutes": how long a number of minutes is. */
export function durationWords(minutes: number): string {
  if (!Number.isFinite(minutes) || minutes <= 0) return '';
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (minutes % 525_600 === 0) return plural(minutes / 525_600, 'year');
  if (minutes % 1440 === 0) return plural(minutes / 1440, 'day');
  if (minutes % 60 === 0) return plural(minutes / 60, 'hour');
  if (minutes > 1440) return `about ${plural(Math.round(minutes / 1440), 'day')}`;
  if (minutes > 60) return `about ${plural(Math.round(minutes / 60), 'hour')}`;
  return plural(minutes, 'minute');
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
/** Fields naming another record: where its names come from, and what a new one is called. */
const FOREIGN: Record<string, { sources: Source[]; other?: string }> = {
  house_id: {
    sources: [
      { path: 'poultry-flock', value: 'house_id', label: (r) => `House ${String(r.house_id)}` },
      { path: 'poultry-adapters', value: 'unit_id', label: (r) => `House ${String(r.unit_id)}` },
    ],
    other: 'Another house',
  },
  'poultry-flock:profile_id': {
    sources: [{ path: 'poultry-profiles', value: 'id', label: (r) => `${String(r.name ?? 'Profile')} (version ${String(r.version_id ?? 1)})`, params: { state: 'published' } }],
  },
};

/** Whether a field is chosen from a list (house by name, profile by name), and what typing a new value is called. */
export function foreignOf(name: string, resource?: string): { other?: string } | undefined {
  return FOREIGN[`${resource}:${name}`] ?? FOREIGN[name];
}

/** The names to choose from (deduplicated, in order), from the resources this session may list. */
export async function loadChoices(name: string, resource: string | undefined, s: Session | null | undefined): Promise<Choice[]> {
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
