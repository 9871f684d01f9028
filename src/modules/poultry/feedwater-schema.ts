// poultry-feedwater records: per house and batch, a versioned profile of anomaly thresholds (and
// an optional consumption curve) whose published version also carries the line's operational
// state, updated in place by each ingest; plus one row per house, batch and site day.
import { defineRecord } from '../../kernel/record.js';
import { versionFields } from '../../industry/versions.js';
import { ALARM_FLAGS, WARN_FLAGS } from './feedwater-eval.js';
import { SUBTYPES } from './climate-schema.js';

export const OPERATIONAL_STATUSES = ['unknown', 'ok', 'warn', 'alarm'] as const;
const flagsText = `Any of ${[...ALARM_FLAGS, ...WARN_FLAGS].join(', ')}.`;

export const feedwaterRecord = defineRecord('poultry_feedwater', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  house_id: { type: 'string', label: 'House', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  batch_id: { type: 'string', label: 'Batch', filter: true, sortable: true, searchable: true },
  subtype: { type: 'string', label: 'Subtype', enum: SUBTYPES, filter: true },
  age_phase_id: { type: 'string', label: 'Age phase', nullable: true, filter: true, description: 'The climate age phase the flock was in at the last ingest.' },
  water_warn_pct: { type: 'number', label: 'Water warning at', ui: { unit: '%' } },
  water_alarm_pct: { type: 'number', label: 'Water alarm at', ui: { unit: '%' } },
  feed_warn_pct: { type: 'number', label: 'Feed warning at', ui: { unit: '%' } },
  feed_alarm_pct: { type: 'number', label: 'Feed alarm at', ui: { unit: '%' } },
  pressure_min_bar: { type: 'number', label: 'Lowest line pressure', ui: { unit: 'bar' } },
  pressure_max_bar: { type: 'number', label: 'Highest line pressure', ui: { unit: 'bar' } },
  ratio_min: { type: 'number', label: 'Lowest water:feed ratio', ui: { unit: 'L/kg' } },
  ratio_max: { type: 'number', label: 'Highest water:feed ratio', ui: { unit: 'L/kg' } },
  water_counter_max: { type: 'number', label: 'Water meter maximum', nullable: true, ui: { unit: 'L' }, description: 'Where the water meter rolls over; empty when unknown.' },
  feed_counter_max: { type: 'number', label: 'Feed meter maximum', nullable: true, ui: { unit: 'kg' } },
  curve: { type: 'array', label: 'Consumption curve', nullable: true, ui: { hidden: true }, description: '[{day, feed_g, water_ml}] per bird per day; empty: the default curve of the subtype.' },
  ...versionFields,
  operational_status: { type: 'string', label: 'Status', enum: OPERATIONAL_STATUSES, readOnly: true, sortable: true, ui: { badge: true } },
  anomaly_flags: { type: 'array', items: 'string', label: 'Anomalies', readOnly: true, ui: { badge: true }, description: flagsText },
  age_days: { type: 'integer', label: 'Age', nullable: true, readOnly: true, ui: { unit: 'days' } },
  birds: { type: 'integer', label: 'Birds', nullable: true, readOnly: true },
  local_date: { type: 'string', label: 'Day', nullable: true, readOnly: true, description: 'The site day the today figures are for.' },
  water_today_l: { type: 'number', label: 'Water today', readOnly: true, ui: { unit: 'L' } },
  feed_today_kg: { type: 'number', label: 'Feed today', readOnly: true, ui: { unit: 'kg' } },
  expected_water_today_l: { type: 'number', label: 'Water expected so far', nullable: true, readOnly: true, ui: { unit: 'L' } },
  expected_feed_today_kg: { type: 'number', label: 'Feed expected so far', nullable: true, readOnly: true, ui: { unit: 'kg' } },
  water_deviation_pct: { type: 'number', label: 'Water deviation', nullable: true, readOnly: true, ui: { unit: '%' } },
  feed_deviation_pct: { type: 'number', label: 'Feed deviation', nullable: true, readOnly: true, ui: { unit: '%' } },
  water_feed_ratio: { type: 'number', label: 'Water:feed', nullable: true, readOnly: true, ui: { unit: 'L/kg' } },
  last_water_counter_l: { type: 'number', label: 'Last water counter', nullable: true, readOnly: true, ui: { unit: 'L' } },
  last_feed_counter_kg: { type: 'number', label: 'Last feed counter', nullable: true, readOnly: true, ui: { unit: 'kg' } },
  last_pressure_bar: { type: 'number', label: 'Last line pressure', nullable: true, readOnly: true, ui: { unit: 'bar' } },
  last_counter_at: { type: 'datetime', label: 'Last reading', nullable: true, readOnly: true, sortable: true },
  last_counter_event: { type: 'string', label: 'Last counter event', nullable: true, readOnly: true, enum: ['first', 'normal', 'reset', 'rollover'] },
  water_baseline_at: { type: 'datetime', label: 'Water measured from', nullable: true, readOnly: true, description: 'The water counter\'s first reading: consumption is judged from there (nothing on that reading itself).' },
  feed_baseline_at: { type: 'datetime', label: 'Feed measured from', nullable: true, readOnly: true, description: 'The feed counter\'s first reading.' },
}, {
  indexes: [{ name: 'poultry_feedwater_lineage', columns: ['tenant_id', 'house_id', 'batch_id', 'state'] }],
});
export type FeedwaterRow = typeof feedwaterRecord.row;

export const feedwaterDayRecord = defineRecord('poultry_feedwater_days', {
  id: { type: 'string', label: 'ID', readOnly: true, description: 'house_id:batch_id:local_date' },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  house_id: { type: 'string', label: 'House', filter: true, sortable: true, ui: { primary: true } },
  batch_id: { type: 'string', label: 'Batch', filter: true },
  local_date: { type: 'string', label: 'Day', filter: true, sortable: true, ui: { format: 'date' } },
  age_days: { type: 'integer', label: 'Age', nullable: true, ui: { unit: 'days' } },
  birds: { type: 'integer', label: 'Birds', nullable: true },
  water_l: { type: 'number', label: 'Water', ui: { unit: 'L' } },
  feed_kg: { type: 'number', label: 'Feed', ui: { unit: 'kg' } },
  expected_water_l: { type: 'number', label: 'Water expected (day)', nullable: true, ui: { unit: 'L' } },
  expected_feed_kg: { type: 'number', label: 'Feed expected (day)', nullable: true, ui: { unit: 'kg' } },
  min_pressure_bar: { type: 'number', label: 'Lowest pressure', nullable: true, ui: { unit: 'bar' } },
  status: { type: 'string', label: 'Worst status', enum: OPERATIONAL_STATUSES, filter: true, ui: { badge: true } },
  anomaly_flags: { type: 'array', items: 'string', label: 'Anomalies seen', ui: { badge: true } },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true },
}, {
  primaryKey: ['tenant_id', 'id'],
  indexes: [{ name: 'poultry_feedwater_days_house', columns: ['tenant_id', 'house_id', 'batch_id', 'local_date'], unique: true }],
});
export type FeedwaterDayRow = typeof feedwaterDayRecord.row;
