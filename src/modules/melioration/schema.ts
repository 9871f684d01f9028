// The melioration records, declared once: fields give the tables, the UI schemes (labels,
// units), the list filters and the row types. Every row carries tenant_id and site_id.
import { defineRecord } from '../../kernel/record.js';
import { READING_SOURCES } from '../../industry/pipeline.js';

export const CONTROL_MODES = ['A', 'B', 'C'] as const;
export const FALLBACK_MODES = ['A', 'B'] as const;
export const WEATHER_SOURCES = ['station', 'service'] as const;
export const BALANCE_SOURCES = ['station', 'service', 'none'] as const;
export const WEATHER_KINDS = ['daily', 'telemetry'] as const;
export const ET0_METHODS = ['penman_monteith', 'hargreaves', 'given'] as const;
export const IRRIGATION_KINDS = ['machine', 'drip'] as const;
export const ENTERED_AS = ['mm', 'm3', 'mm+m3'] as const;

export type ControlMode = (typeof CONTROL_MODES)[number];
export type FallbackMode = (typeof FALLBACK_MODES)[number];

const tenant = { type: 'string', label: 'Tenant', readOnly: true, filter: { description: 'Master callers only; a tenant caller always sees its own tenant.' } } as const;
const site = { type: 'string', label: 'Site', filter: true, sortable: true } as const;
const day = { type: 'string', label: 'Day', filter: true, sortable: true, description: 'The site\'s day (YYYY-MM-DD, in site_timezone; UTC when not set) the record counts for in the daily water balance.', ui: { format: 'date' } } as const;

export const fieldRecord = defineRecord('melioration_fields', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: tenant,
  site_id: site,
  name: { type: 'string', label: 'Name', sortable: true, searchable: true, ui: { primary: true } },
  crop: { type: 'string', label: 'Crop', filter: true, searchable: true },
  area_ha: { type: 'number', label: 'Area', nullable: true, sortable: true, description: 'Field area; needed for volumes (1 mm on 1 ha = 10 m3). Without it the field works in mm only.', ui: { unit: 'ha' } },
  field_capacity_pct: { type: 'number', label: 'Field capacity', nullable: true, description: 'Volumetric water content at field capacity (needed to turn probe readings into depletion).', ui: { unit: '% vol' } },
  wilting_point_pct: { type: 'number', label: 'Wilting point', nullable: true, description: 'Volumetric water content at the permanent wilting point.', ui: { unit: '% vol' } },
  available_water_mm_per_m: { type: 'number', label: 'Available water', nullable: true, description: 'Available water per metre of soil, used when field capacity and wilting point are not given.', ui: { unit: 'mm/m' } },
  root_depth_m: { type: 'number', label: 'Root depth', description: 'Depth of the root zone (the bucket).', ui: { unit: 'm' } },
  depletion_fraction: { type: 'number', label: 'Depletion fraction p', description: 'Share of the total available water the crop uses without stress (FAO-56 Table 22; 0.5 for most crops). Also the water_deficit threshold.' },
  kc: { type: 'number', label: 'Crop coefficient Kc', description: 'ETc = Kc x ET0 (single crop coefficient, FAO-56 Table 12); change it as the season advances.' },
  balance_start: { type: 'string', label: 'Balance start', description: 'First day (YYYY-MM-DD, a day of the site) of the water balance.', ui: { format: 'date' } },
  initial_depletion_mm: { type: 'number', label: 'Initial depletion', description: 'Root-zone depletion at the start of balance_start (0 = at field capacity).', ui: { unit: 'mm' } },
  taw_mm: { type: 'number', label: 'Total available water', readOnly: true, column: false, description: 'TAW = (field capacity - wilting point) x root depth, or available water x root depth.', ui: { unit: 'mm' } },
  raw_mm: { type: 'number', label: 'Readily available water', readOnly: true, column: false, description: 'RAW = p x TAW; depletion beyond it raises water_deficit.', ui: { unit: 'mm' } },
  depletion_mm: { type: 'number', label: 'Depletion', nullable: true, readOnly: true, sortable: true, description: 'Root-zone depletion at the end of balance_day (0 = field capacity).', ui: { unit: 'mm', gauge: { max: 'taw_mm', warn: 'raw_mm' } } },
  surplus_mm: { type: 'number', label: 'Above field capacity', nullable: true, readOnly: true, description: 'Water above field capacity on balance_day (probes, else the day\'s deep percolation).', ui: { unit: 'mm' } },
  balance_day: { type: 'string', label: 'Balance day', nullable: true, readOnly: true, description: 'Last day the balance was computed for.', ui: { format: 'date' } },
  weather_source: { type: 'string', label: 'Weather source', enum: ['station', 'service', 'none'], nullable: true, readOnly: true, filter: true, description: 'Weather the balance used on balance_day: the station, the weather service (fallback) or none.', ui: { badge: true } },
  created_at: { type: 'datetime', label: 'Created', readOnly: true, sortable: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true },
}, { indexes: [{ name: 'melioration_fields_tenant_site', columns: ['tenant_id', 'site_id'] }] });

export const irrigationRecord = defineRecord('melioration_irrigation_events', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: tenant,
  site_id: { ...site, readOnly: true, description: 'The field\'s site.' },
  field_id: { type: 'string', label: 'Field', filter: true, sortable: true },
  kind: { type: 'string', label: 'Kind', enum: IRRIGATION_KINDS, readOnly: true },
  equipment_id: { type: 'string', label: 'Machine or drip line', filter: true, searchable: true },
  started_at: { type: 'datetime', label: 'Started', nullable: true },
  observed_at: { type: 'datetime', label: 'Ended', sortable: true, description: 'When the irrigation ended (its day is the balance day).' },
  day,
  depth_mm: { type: 'number', label: 'Depth applied', description: 'Depth over the covered area.', ui: { unit: 'mm' } },
  volume_m3: { type: 'number', label: 'Volume', nullable: true, description: 'depth x covered area x 10 (null when the field has no area).', ui: { unit: 'm3' } },
  covered_area_ha: { type: 'number', label: 'Covered area', nullable: true, ui: { unit: 'ha' } },
  covered_fraction: { type: 'number', label: 'Covered share', description: 'Share of the field the pass covered (1 = all of it).' },
  field_depth_mm: { type: 'number', label: 'Depth over the field', readOnly: true, description: 'What the event adds to the field\'s balance: depth x covered share.', ui: { unit: 'mm' } },
  entered_as: { type: 'string', label: 'Entered as', enum: ENTERED_AS, readOnly: true },
  note: { type: 'string', label: 'Note', nullable: true, searchable: true },
  received_at: { type: 'datetime', label: 'Received', readOnly: true, sortable: true },
}, { indexes: [{ name: 'melioration_irrigation_field_day', columns: ['tenant_id', 'field_id', 'day'] }] });

// The balance's end of each computed day, per field: an ingest continues the bucket from the day
// before the earliest day it changed instead of from balance_start, so day 180 of a season costs
// what day 1 does. Derived data: rebuilt by a full run whenever the field's parameters change.
export const balanceDayRecord = defineRecord('melioration_balance_days', {
  tenant_id: tenant,
  field_id: { type: 'string', label: 'Field', filter: true },
  day: { ...day, description: 'The balance day this row ends.' },
  depletion_end_mm: { type: 'number', label: 'Depletion at the end of the day', ui: { unit: 'mm' } },
}, { primaryKey: ['tenant_id', 'field_id', 'day'] });

export const soilRecord = defineRecord('melioration_soil_moisture', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: tenant,
  site_id: { ...site, readOnly: true, description: 'The field\'s site.' },
  field_id: { type: 'string', label: 'Field', filter: true, sortable: true },
  probe_id: { type: 'string', label: 'Probe', filter: true, searchable: true },
  depth_cm: { type: 'integer', label: 'Depth', filter: true, sortable: true, ui: { unit: 'cm' } },
  vwc_pct: { type: 'number', label: 'Water content', description: 'Volumetric water content.', ui: { unit: '% vol' } },
  observed_at: { type: 'datetime', label: 'Observed', sortable: true },
  day,
  depletion_mm: { type: 'number', label: 'Depletion', readOnly: true, description: 'Root-zone depletion this reading stands for: (field capacity - water content) x root depth, at least 0.', ui: { unit: 'mm' } },
  surplus_mm: { type: 'number', label: 'Above field capacity', readOnly: true, description: '(water content - field capacity) x root depth, at least 0.', ui: { unit: 'mm' } },
  reading_source: { type: 'string', label: 'Read by', nullable: true, enum: READING_SOURCES, filter: true, description: 'device (polled by the box from its adapter profile), api (an integration), manual (a person); null before this was recorded.' },
  received_at: { type: 'datetime', label: 'Received', readOnly: true },
}, { indexes: [{ name: 'melioration_soil_field_day', columns: ['tenant_id', 'field_id', 'day'] }] });

export const weatherRecord = defineRecord('melioration_weather', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: tenant,
  site_id: site,
  kind: { type: 'string', label: 'Kind', enum: WEATHER_KINDS, readOnly: true, filter: true, description: 'daily: a day\'s weather (ingest); telemetry: a live station frame (commands/telemetry), or a health check that found the station missing.' },
  source: { type: 'string', label: 'Source', enum: WEATHER_SOURCES, filter: true, description: 'station: the primary source; service: the weather service, used while the station is unhealthy.', ui: { badge: true } },
  station_id: { type: 'string', label: 'Station', nullable: true, filter: true },
  day,
  observed_at: { type: 'datetime', label: 'Observed', sortable: true },
  t_min_c: { type: 'number', label: 'Min temperature', nullable: true, ui: { unit: '°C' } },
  t_max_c: { type: 'number', label: 'Max temperature', nullable: true, ui: { unit: '°C' } },
  rh_min_pct: { type: 'number', label: 'Min humidity', nullable: true, ui: { unit: '%' } },
  rh_max_pct: { type: 'number', label: 'Max humidity', nullable: true, ui: { unit: '%' } },
  rh_mean_pct: { type: 'number', label: 'Mean humidity', nullable: true, ui: { unit: '%' } },
  wind_2m_ms: { type: 'number', label: 'Wind at 2 m', nullable: true, ui: { unit: 'm/s' } },
  solar_mj_m2: { type: 'number', label: 'Solar radiation', nullable: true, ui: { unit: 'MJ/m²/day' } },
  sunshine_h: { type: 'number', label: 'Sunshine', nullable: true, ui: { unit: 'h' } },
  rain_mm: { type: 'number', label: 'Rain', nullable: true, ui: { unit: 'mm' } },
  latitude_deg: { type: 'number', label: 'Latitude', nullable: true, ui: { unit: '°' } },
  elevation_m: { type: 'number', label: 'Elevation', nullable: true, ui: { unit: 'm' } },
  air_temp_c: { type: 'number', label: 'Air temperature', nullable: true, ui: { unit: '°C' } },
  rh_pct: { type: 'number', label: 'Humidity', nullable: true, ui: { unit: '%' } },
  wind_ms: { type: 'number', label: 'Wind', nullable: true, ui: { unit: 'm/s' } },
  solar_w_m2: { type: 'number', label: 'Irradiance', nullable: true, ui: { unit: 'W/m²' } },
  et0_mm: { type: 'number', label: 'ET0', nullable: true, readOnly: true, description: 'Reference evapotranspiration of the day (FAO-56).', ui: { unit: 'mm' } },
  et0_method: { type: 'string', label: 'ET0 method', enum: ET0_METHODS, nullable: true, readOnly: true, description: 'penman_monteith when the day has radiation and wind, hargreaves from temperatures otherwise, given when the source sent ET0.' },
  reported_healthy: { type: 'boolean', label: 'Reported healthy', nullable: true, description: 'The station\'s own health flag, when it sends one.' },
  telemetry_healthy: { type: 'boolean', label: 'Telemetry healthy', readOnly: true, filter: true, description: 'Data fresh and plausible (not stale, missing, stuck or physically implausible).', ui: { badge: true } },
  healthy: { type: 'boolean', label: 'Healthy', readOnly: true, filter: true, description: 'telemetry_healthy and not reported unhealthy (and, for a station\'s daily record, the station healthy when it arrived). Only healthy station records feed the balance.', ui: { badge: true } },
  health_reasons: { type: 'array', items: 'string', label: 'Health reasons', readOnly: true, description: 'Why it is unhealthy: stale, missing, stuck, no_data, temperature_jump, implausible_radiation, reported_unhealthy, station_unhealthy.' },
  fallback_mode: { type: 'string', label: 'Fallback mode', enum: FALLBACK_MODES, nullable: true, readOnly: true, description: 'Telemetry: the fallback mode fields in C were sent to (when this frame degraded them).' },
  fields: { type: 'array', label: 'Fields', nullable: true, readOnly: true, description: 'Telemetry: control_mode, fallback_mode and auto_degraded of each field of the site after this frame.' },
  reading_source: { type: 'string', label: 'Read by', nullable: true, enum: READING_SOURCES, filter: true, description: 'device (polled by the box from its adapter profile), api (an integration), manual (a person); null before this was recorded.' },
  received_at: { type: 'datetime', label: 'Received', readOnly: true, sortable: true },
}, {
  indexes: [
    { name: 'melioration_weather_site_day', columns: ['tenant_id', 'site_id', 'kind', 'day'] },
    { name: 'melioration_weather_station', columns: ['tenant_id', 'site_id', 'station_id', 'kind', 'observed_at'] },
  ],
});

export const controlModeRecord = defineRecord('melioration_control_modes', {
  field_id: { type: 'string', label: 'Field', readOnly: true, filter: true, sortable: true },
  tenant_id: tenant,
  site_id: { ...site, readOnly: true },
  control_mode: { type: 'string', label: 'Control mode', enum: CONTROL_MODES, filter: true, description: 'C: automatic (balance from station weather decides irrigation); B: probe-driven (soil-moisture probes alone decide, no weather); A: manual (the operator decides; the box only advises and alerts).', ui: { badge: true } },
  fallback_mode: { type: 'string', label: 'Fallback mode', enum: FALLBACK_MODES, description: 'Where C goes when the station turns unhealthy.' },
  auto_degraded: { type: 'boolean', label: 'Auto-degraded', readOnly: true, filter: true, description: 'true while the field left C because the station was unhealthy (telemetry or commands/degrade); it returns to C with the next healthy station telemetry. A mode set by a person is never auto-degraded.', ui: { badge: true } },
  station_healthy: { type: 'boolean', label: 'Station healthy', nullable: true, readOnly: true, description: 'Health of the site\'s station at the last change (null: no telemetry yet).' },
  reason: { type: 'string', label: 'Reason', nullable: true, readOnly: true, searchable: true },
  changed_at: { type: 'datetime', label: 'Changed', readOnly: true, sortable: true },
  changed_by: { type: 'string', label: 'Changed by', readOnly: true },
}, { primaryKey: ['field_id'] });

export const meliorationFields = fieldRecord.table;
export const irrigationEvents = irrigationRecord.table;
export const soilMoisture = soilRecord.table;
export const weather = weatherRecord.table;
export const controlModes = controlModeRecord.table;
export const balanceDays = balanceDayRecord.table;

export type FieldRow = typeof fieldRecord.row;
export type IrrigationRow = typeof irrigationRecord.row;
export type SoilRow = typeof soilRecord.row;
export type WeatherRow = typeof weatherRecord.row;
export type ControlModeRow = typeof controlModeRecord.row;
export type BalanceDayRow = typeof balanceDayRecord.row;
