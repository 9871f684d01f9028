// Tables of the poultry flock and climate resources: flocks (house + batch), climate profiles by
// age phase (versioned: one lineage per tenant, house, batch and age phase), climate readings,
// the rule engine's per-house state and the adapter profiles of the house controllers.
import { defineRecord } from '../../kernel/record.js';
import { col, defineTable } from '../../db/table.js';
import { versionFields } from '../../industry/versions.js';
import { defineRuleStateRecord } from '../../industry/rules.js';
import { defineAdapterRecord } from '../../industry/dispatch.js';

export const FLOCK_STATUSES = ['active', 'closed'] as const;
export const TELEMETRY_STATUSES = ['ok', 'warn', 'alarm'] as const;

export const SUBTYPES = ['broiler', 'layer', 'breeder'] as const;

export const flockRecord = defineRecord('poultry_flocks', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  house_id: { type: 'string', label: 'House', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  batch_id: { type: 'string', label: 'Batch', filter: true, sortable: true, searchable: true },
  subtype: { type: 'string', label: 'Subtype', enum: SUBTYPES, filter: true, ui: { badge: true } },
  status: { type: 'string', label: 'Status', enum: FLOCK_STATUSES, readOnly: true, filter: true, sortable: true, ui: { badge: true } },
  start_date: { type: 'string', label: 'Placed on', sortable: true, description: 'Placement day (day 0 of the age), YYYY-MM-DD in the site time zone.', ui: { format: 'date' } },
  planned_close_date: { type: 'string', label: 'Planned depletion', nullable: true, ui: { format: 'date' } },
  closed_date: { type: 'string', label: 'Closed on', nullable: true, readOnly: true, ui: { format: 'date' } },
  birds_placed: { type: 'integer', label: 'Birds placed', nullable: true, ui: { unit: 'birds' } },
  climate_source: { type: 'string', label: 'Climate curve from', readOnly: true, description: 'default-broiler-curve, or profile:<id> v<version> of the published poultry profile used at placement.' },
  current_age_days: { type: 'integer', label: 'Age', readOnly: true, column: false, nullable: true, description: 'Days since placement in the site time zone (setting site_timezone); day 0 = placement day. Computed at every read; for a closed flock, the age on its closing day.', ui: { unit: 'days' } },
  created_by: { type: 'string', label: 'Placed by', readOnly: true },
  created_at: { type: 'datetime', label: 'Created', readOnly: true, sortable: true },
}, {
  indexes: [{ name: 'poultry_flocks_house_batch', columns: ['tenant_id', 'house_id', 'batch_id'], unique: true }],
});
export type FlockRow = typeof flockRecord.row;

export const climateRecord = defineRecord('poultry_climate_profiles', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  house_id: { type: 'string', label: 'House', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  batch_id: { type: 'string', label: 'Batch', filter: true, sortable: true, searchable: true },
  age_phase_id: { type: 'string', label: 'Age phase', filter: true, sortable: true, searchable: true },
  subtype: { type: 'string', label: 'Subtype', enum: SUBTYPES, filter: true },
  day_from: { type: 'integer', label: 'From day', sortable: true, ui: { unit: 'days' } },
  day_to: { type: 'integer', label: 'To day', ui: { unit: 'days' } },
  target_temp_c: { type: 'number', label: 'Target temperature', ui: { unit: '°C', setpoint: true } },
  temp_tolerance_c: { type: 'number', label: 'Temperature tolerance', ui: { unit: '±°C', setpoint: true } },
  humidity_min_pct: { type: 'number', label: 'Humidity min', ui: { unit: '%RH', setpoint: true } },
  humidity_max_pct: { type: 'number', label: 'Humidity max', ui: { unit: '%RH', setpoint: true } },
  co2_max_ppm: { type: 'number', label: 'CO2 max', ui: { unit: 'ppm', setpoint: true } },
  nh3_max_ppm: { type: 'number', label: 'NH3 max', ui: { unit: 'ppm', setpoint: true } },
  min_ventilation_pct: { type: 'number', label: 'Minimum ventilation', ui: { unit: '% of capacity', setpoint: true } },
  ...versionFields,
  correlation_id: { type: 'string', label: 'Correlation id', nullable: true, readOnly: true, filter: true, description: 'Shared by the setpoint, its confirmation and the field writes (audit).' },
  adapter_dispatch: { type: 'object', label: 'Controller write', nullable: true, readOnly: true, description: '{adapter_profile_id, controller_id, transport, status (pending|written|verified|failed|not_configured|skipped), message, correlation_id, at, written[]}' },
  current_age_days: { type: 'integer', label: 'Flock age', nullable: true, readOnly: true, column: false, ui: { unit: 'days' } },
  active_by_age: { type: 'boolean', label: 'Active by age', readOnly: true, column: false, ui: { badge: true } },
}, {
  indexes: [{ name: 'poultry_climate_lineage', columns: ['tenant_id', 'house_id', 'batch_id', 'age_phase_id', 'version_id'], unique: true }],
});
export type ClimateRow = typeof climateRecord.row;

export const readingRecord = defineRecord('poultry_climate_readings', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  house_id: { type: 'string', label: 'House', filter: true, sortable: true, ui: { primary: true } },
  batch_id: { type: 'string', label: 'Batch', filter: true },
  ts: { type: 'datetime', label: 'Time', sortable: true },
  age_days: { type: 'integer', label: 'Age', nullable: true, ui: { unit: 'days' } },
  age_phase_id: { type: 'string', label: 'Age phase', nullable: true, filter: true },
  profile_id: { type: 'string', label: 'Profile version', nullable: true },
  temp: { type: 'number', label: 'Temperature', nullable: true, ui: { unit: '°C' } },
  humidity: { type: 'number', label: 'Humidity', nullable: true, ui: { unit: '%RH' } },
  co2: { type: 'number', label: 'CO2', nullable: true, ui: { unit: 'ppm' } },
  nh3: { type: 'number', label: 'NH3', nullable: true, ui: { unit: 'ppm' } },
  ventilation: { type: 'number', label: 'Ventilation', nullable: true, ui: { unit: '% of capacity' } },
  status: { type: 'string', label: 'Status', enum: TELEMETRY_STATUSES, filter: true, ui: { badge: true } },
  out_of_norm_flags: { type: 'array', items: 'string', label: 'Out of norm', ui: { badge: true } },
  source: { type: 'string', label: 'Source', description: 'telemetry, sensors or mqtt.' },
}, {
  indexes: [{ name: 'poultry_climate_readings_house_ts', columns: ['tenant_id', 'house_id', 'ts'] }],
});
export type ReadingRow = typeof readingRecord.row;

/**
 * On SQLite the climate readings wait here before the settle moves them into
 * poultry_climate_readings (recent-readings.ts): the same columns, no key and no index, appended.
 * A minute's commit of a site's polled readings rewrote a leaf of the house index per house (and
 * one of the id's key), most of what the readings cost a box's flash once the table holds hours.
 */
export const recentReadingTable = defineTable('poultry_climate_readings_recent', { ...readingRecord.table.columns, id: col.text({ notNull: true }) });

/** What the reads read: the stored readings and those waiting to be settled (a view: migration poultry/0006). */
export const readingView = defineTable('poultry_climate_readings_all', readingRecord.table.columns);

export const ruleStateRecord = defineRuleStateRecord('poultry_rule_states');
export const adapterRecord = defineAdapterRecord('poultry_adapter_profiles', 'House');
