// swine-water: water drunk per pen over a period, per head and day, against the pen's own recent
// baseline (mean of its last 7 readings that were not anomalies, once there are 3) or, before
// that, the expected water (2.5 l per kg of expected feed for growing pigs; sows 15 l, 30 l
// lactating; norms.ts). 25 % off is a warning; +50 % is a leak (medium/P2 industry alarm: a
// broken drinker floods the pen), -50 % or no flow at all is a blockage (high/P1: pigs without
// water). A later reading back in range clears the alarm.
import * as v from 'valibot';
import { and, desc, eq, isNull, ne } from 'drizzle-orm';
import { command, defineResource, itemSchema } from '../../kernel/resource.js';
import { defineRecord } from '../../kernel/record.js';
import { ApiError } from '../../kernel/errors.js';
import { timeId } from '../../kernel/ids.js';
import { colOf, tableOf } from '../../db/sql.js';
import type { Database } from '../../db/client.js';
import { ownerSite as writeSite } from '../../kernel/tenancy.js';
import { deviationPct, expectedWaterLPerDay, round, SOW_PHASES, SWINE_CATEGORIES, WATER_ALARM_PCT, WATER_WARN_PCT, type Finding } from './norms.js';
import { syncAlarms } from './alarms.js';
import { alarmRefSchema } from './feeding.js';

const STATUSES = ['ok', 'warn', 'alarm'] as const;
/** Readings of the pen the baseline averages, and how many it needs before it replaces the curve. */
export const BASELINE_READINGS = 7;
export const BASELINE_MIN = 3;

export const waterRecord = defineRecord('swine_water_records', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  room_id: { type: 'string', label: 'Room', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  pen_id: { type: 'string', label: 'Pen', nullable: true, filter: true },
  batch_id: { type: 'string', label: 'Batch', nullable: true, filter: true },
  category: { type: 'string', label: 'Animals', enum: SWINE_CATEGORIES, filter: true },
  sow_phase: { type: 'string', label: 'Sow phase', enum: SOW_PHASES, nullable: true },
  head_count: { type: 'integer', label: 'Head', ui: { unit: 'head' } },
  avg_weight_kg: { type: 'number', label: 'Average weight', nullable: true, ui: { unit: 'kg' } },
  water_l: { type: 'number', label: 'Water drunk', ui: { unit: 'l' } },
  period_hours: { type: 'number', label: 'Period', ui: { unit: 'h' } },
  per_head_l_day: { type: 'number', label: 'Water per head and day', readOnly: true, ui: { unit: 'l/head/d', chart: true } },
  baseline_l_day: { type: 'number', label: 'Baseline', readOnly: true, ui: { unit: 'l/head/d' } },
  baseline_source: { type: 'string', label: 'Baseline from', enum: ['history', 'curve'], readOnly: true },
  deviation_pct: { type: 'number', label: 'Deviation from baseline', readOnly: true, ui: { unit: '%' } },
  status: { type: 'string', label: 'Status', enum: STATUSES, readOnly: true, filter: true, sortable: true, ui: { badge: true } },
  anomaly_flags: { type: 'array', items: 'string', label: 'Anomalies', readOnly: true, ui: { chips: true }, description: 'leak, blockage, no_flow' },
  alarm_ids: { type: 'array', items: 'string', label: 'Alarms raised', readOnly: true, ui: { hidden: true } },
  ts: { type: 'datetime', label: 'Period end', sortable: true },
  received_at: { type: 'datetime', label: 'Received', readOnly: true },
}, { indexes: [{ name: 'swine_water_pen_ts', columns: ['tenant_id', 'room_id', 'pen_id', 'ts'] }] });
export type WaterRow = typeof waterRecord.row;

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const ingestBody = v.strictObject({
  room_id: key, pen_id: v.optional(key), batch_id: v.optional(key), site_id: v.optional(key), tenant_id: v.optional(key),
  category: v.picklist(SWINE_CATEGORIES), sow_phase: v.optional(v.picklist(SOW_PHASES)),
  head_count: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000)),
  avg_weight_kg: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0.3), v.maxValue(500))),
  water_l: v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(10_000_000)),
  period_hours: v.optional(v.pipe(v.number(), v.finite(), v.minValue(1), v.maxValue(168))),
  ts: v.optional(v.pipe(v.string(), v.isoTimestamp())),
});

/** The pen's recent non-anomalous per-head consumption (newest first). */
async function recentPerHead(db: Database, tenant: string, site: string | null, room: string, pen: string | null): Promise<number[]> {
  const t = tableOf(waterRecord.table, db);
  const c = (n: string) => colOf(waterRecord.table, db, n);
  const rows = (await db.orm.select({ x: c('per_head_l_day') }).from(t).where(and(
    eq(c('tenant_id'), tenant), site === null ? isNull(c('site_id')) : eq(c('site_id'), site), eq(c('room_id'), room),
    pen === null ? isNull(c('pen_id')) : eq(c('pen_id'), pen), ne(c('status'), 'alarm'),
  )).orderBy(desc(c('ts'))).limit(BASELINE_READINGS)) as { x: number }[];
  return rows.map((r) => r.x);
}

export const waterResource = defineResource<WaterRow>({
  name: 'swine-water',
  module: 'swine',
  title: 'Swine water',
  record: waterRecord,
  access: { resource: 'swine-water', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'ts', order: 'desc' },
  commands: {
    ingest: command({
      summary: `Water drunk by a pen over period_hours (default 24) for head_count pigs, per head and day against the pen's baseline (mean of its last ${BASELINE_READINGS} non-alarm readings once there are ${BASELINE_MIN}, else the expected water by category and weight): ${WATER_WARN_PCT} % off is warn; +${WATER_ALARM_PCT} % is a leak (medium/P2 industry alarm), -${WATER_ALARM_PCT} % or no flow a blockage (high/P1).`,
      action: 'execute',
      body: ingestBody,
      status: 201,
      response: { type: 'object', properties: { record: itemSchema(waterRecord.fields), status: { type: 'string' }, anomaly_flags: { type: 'array', items: { type: 'string' } }, alarms: { type: 'array', items: alarmRefSchema } }, required: ['record', 'status', 'anomaly_flags', 'alarms'], additionalProperties: false },
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        const site = writeSite(caller, b.site_id);
        const tenant = caller.tenant_id!;
        const period = b.period_hours ?? 24;
        const perHead = (b.water_l / b.head_count) * (24 / period);
        const history = await recentPerHead(ctx.services.db, tenant, site, b.room_id, b.pen_id ?? null);
        let baseline: number | null;
        let source: WaterRow['baseline_source'];
        if (history.length >= BASELINE_MIN) { baseline = history.reduce((a, x) => a + x, 0) / history.length; source = 'history'; }
        else { baseline = expectedWaterLPerDay(b.category, b.avg_weight_kg ?? null, b.sow_phase ?? null); source = 'curve'; }
        if (baseline === null) throw new ApiError('validation_error', `the expected water of ${b.category} needs avg_weight_kg until the pen has ${BASELINE_MIN} readings`, [{ field: 'avg_weight_kg', reason: 'missing' }]);
        const dev = deviationPct(perHead, baseline);
        const findings: Finding[] = [];
        if (b.water_l === 0 || dev <= -WATER_ALARM_PCT) findings.push({ flag: 'blockage', metric: 'per_head_l_day', value: round(perHead), limit: round(baseline * (1 - WATER_ALARM_PCT / 100)), severity: 'high', priority: 'P1' });
        if (dev >= WATER_ALARM_PCT) findings.push({ flag: 'leak', metric: 'per_head_l_day', value: round(perHead), limit: round(baseline * (1 + WATER_ALARM_PCT / 100)), severity: 'medium', priority: 'P2' });
        const unit = `${b.room_id}/${b.pen_id ?? '*'}`;
        const alarms = await syncAlarms(ctx.services, { tenant_id: tenant, site_id: site, unit_id: unit, batch_id: b.batch_id }, 'swine-water', ['leak', 'blockage'], findings,
          { actor: caller.subject, correlation_id: ctx.requestId, source: 'swine-water', title: (f) => ({ title_key: 'box.swine.water.title', params: { industry: 'swine', unit, flag: f.flag, value: f.value } }) });
        const flags = [...findings.map((f) => f.flag), ...(b.water_l === 0 ? ['no_flow'] : [])];
        const now = new Date().toISOString();
        const row: WaterRow = {
          id: timeId(), tenant_id: tenant, site_id: site, room_id: b.room_id, pen_id: b.pen_id ?? null, batch_id: b.batch_id ?? null,
          category: b.category, sow_phase: b.sow_phase ?? null, head_count: b.head_count, avg_weight_kg: b.avg_weight_kg ?? null, water_l: b.water_l, period_hours: period,
          per_head_l_day: round(perHead), baseline_l_day: round(baseline), baseline_source: source, deviation_pct: round(dev, 1),
          status: findings.length ? 'alarm' : Math.abs(dev) >= WATER_WARN_PCT ? 'warn' : 'ok', anomaly_flags: flags, alarm_ids: alarms.map((a) => a.id),
          ts: b.ts ? new Date(b.ts).toISOString() : now, received_at: now,
        };
        const saved = (await kit.store(ctx.services.db).insert(row as never))!;
        return { record: kit.toItem(saved), status: row.status, anomaly_flags: flags, alarms };
      },
    }),
  },
});

export const waterRoutes = waterResource.routes;
