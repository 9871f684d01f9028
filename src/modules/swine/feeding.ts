// swine-feeding: feed delivered per pen or feed valve over a period, per head and day, against
// the feed curve (NRC 2012 for growing pigs by average weight; fixed allowances for sows and
// boars, norms.ts). 15 % off the curve is a warning; 30 % is an anomaly: feed_low (pigs off feed,
// a sign of disease or heat, or a blocked valve: high/P1 industry alarm) or feed_high (spill or a
// leaking valve: medium/P2). A later delivery back within 30 % clears the alarm.
import * as v from 'valibot';
import { command, defineResource, itemSchema } from '../../kernel/resource.js';
import { defineRecord } from '../../kernel/record.js';
import type { JsonSchema } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import { timeId } from '../../kernel/ids.js';
import { ownerSite as writeSite } from '../../kernel/tenancy.js';
import { deviationPct, expectedFeedKgPerDay, FEED_ALARM_PCT, FEED_WARN_PCT, round, SOW_PHASES, SWINE_CATEGORIES, type Finding } from './norms.js';
import { syncAlarms } from './alarms.js';

const STATUSES = ['ok', 'warn', 'alarm'] as const;

export const feedingRecord = defineRecord('swine_feeding_records', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  room_id: { type: 'string', label: 'Room', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  pen_id: { type: 'string', label: 'Pen', nullable: true, filter: true },
  valve_id: { type: 'string', label: 'Feed valve', nullable: true, filter: true, description: 'Liquid or dry feeding valve serving the pen.' },
  batch_id: { type: 'string', label: 'Batch', nullable: true, filter: true },
  category: { type: 'string', label: 'Animals', enum: SWINE_CATEGORIES, filter: true },
  sow_phase: { type: 'string', label: 'Sow phase', enum: SOW_PHASES, nullable: true, filter: true },
  head_count: { type: 'integer', label: 'Head', ui: { unit: 'head' } },
  avg_weight_kg: { type: 'number', label: 'Average weight', nullable: true, ui: { unit: 'kg' } },
  feed_kg: { type: 'number', label: 'Feed delivered', ui: { unit: 'kg' } },
  period_hours: { type: 'number', label: 'Period', ui: { unit: 'h' } },
  feed_per_head_kg_day: { type: 'number', label: 'Feed per head and day', readOnly: true, ui: { unit: 'kg/head/d' } },
  expected_kg_day: { type: 'number', label: 'Feed curve', readOnly: true, ui: { unit: 'kg/head/d' } },
  deviation_pct: { type: 'number', label: 'Deviation from curve', readOnly: true, ui: { unit: '%' } },
  status: { type: 'string', label: 'Status', enum: STATUSES, readOnly: true, filter: true, sortable: true, ui: { badge: true } },
  anomaly_flags: { type: 'array', items: 'string', label: 'Anomalies', readOnly: true, ui: { chips: true } },
  alarm_ids: { type: 'array', items: 'string', label: 'Alarms raised', readOnly: true, ui: { hidden: true } },
  ts: { type: 'datetime', label: 'Period end', sortable: true },
  received_at: { type: 'datetime', label: 'Received', readOnly: true },
}, { indexes: [{ name: 'swine_feeding_pen_ts', columns: ['tenant_id', 'room_id', 'pen_id', 'ts'] }] });
export type FeedingRow = typeof feedingRecord.row;

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const ingestBody = v.strictObject({
  room_id: key, pen_id: v.optional(key), valve_id: v.optional(key), batch_id: v.optional(key), site_id: v.optional(key), tenant_id: v.optional(key),
  category: v.picklist(SWINE_CATEGORIES), sow_phase: v.optional(v.picklist(SOW_PHASES)),
  head_count: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000)),
  avg_weight_kg: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0.3), v.maxValue(500))),
  feed_kg: v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(1_000_000)),
  period_hours: v.optional(v.pipe(v.number(), v.finite(), v.minValue(1), v.maxValue(168))),
  ts: v.optional(v.pipe(v.string(), v.isoTimestamp())),
});

export const alarmRefSchema: JsonSchema = { type: 'object', properties: { id: { type: 'string' }, rule_id: { type: ['string', 'null'] }, severity: { type: 'string' }, priority: { type: ['string', 'null'] }, correlation_id: { type: 'string' }, status: { type: 'string' } } };

export const feedingResource = defineResource<FeedingRow>({
  name: 'swine-feeding',
  module: 'swine',
  title: 'Swine feeding',
  record: feedingRecord,
  access: { resource: 'swine-feeding', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'ts', order: 'desc' },
  commands: {
    ingest: command({
      summary: `Feed delivered to a pen or valve over period_hours (default 24) for head_count pigs, judged per head and day against the feed curve (growing pigs need avg_weight_kg): ${FEED_WARN_PCT} % off is warn, ${FEED_ALARM_PCT} % off is alarm with anomaly_flags feed_low (high/P1 industry alarm) or feed_high (medium/P2).`,
      action: 'execute',
      body: ingestBody,
      status: 201,
      response: { type: 'object', properties: { record: itemSchema(feedingRecord.fields), status: { type: 'string' }, anomaly_flags: { type: 'array', items: { type: 'string' } }, alarms: { type: 'array', items: alarmRefSchema } }, required: ['record', 'status', 'anomaly_flags', 'alarms'], additionalProperties: false },
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        const weight = b.avg_weight_kg ?? null;
        const expected = expectedFeedKgPerDay(b.category, weight, b.sow_phase ?? null);
        if (expected === null) throw new ApiError('validation_error', `the feed curve of ${b.category} needs avg_weight_kg`, [{ field: 'avg_weight_kg', reason: 'missing' }]);
        const period = b.period_hours ?? 24;
        const perHead = (b.feed_kg / b.head_count) * (24 / period);
        const dev = deviationPct(perHead, expected);
        const findings: Finding[] = [];
        if (dev <= -FEED_ALARM_PCT) findings.push({ flag: 'feed_low', metric: 'feed_per_head_kg_day', value: round(perHead), limit: round(expected * (1 - FEED_ALARM_PCT / 100)), severity: 'high', priority: 'P1' });
        if (dev >= FEED_ALARM_PCT) findings.push({ flag: 'feed_high', metric: 'feed_per_head_kg_day', value: round(perHead), limit: round(expected * (1 + FEED_ALARM_PCT / 100)), severity: 'medium', priority: 'P2' });
        const site = writeSite(caller, b.site_id);
        const unit = `${b.room_id}/${b.valve_id ?? b.pen_id ?? '*'}`;
        const alarms = await syncAlarms(ctx.services, { tenant_id: caller.tenant_id!, site_id: site, unit_id: unit, batch_id: b.batch_id }, 'swine-feeding', ['feed_low', 'feed_high'], findings,
          { actor: caller.subject, correlation_id: ctx.requestId, source: 'swine-feeding', title: (f) => ({ title_key: 'box.swine.feeding.title', params: { industry: 'swine', unit, flag: f.flag, value: f.value } }) });
        const now = new Date().toISOString();
        const row: FeedingRow = {
          id: timeId(), tenant_id: caller.tenant_id!, site_id: site, room_id: b.room_id, pen_id: b.pen_id ?? null, valve_id: b.valve_id ?? null, batch_id: b.batch_id ?? null,
          category: b.category, sow_phase: b.sow_phase ?? null, head_count: b.head_count, avg_weight_kg: weight, feed_kg: b.feed_kg, period_hours: period,
          feed_per_head_kg_day: round(perHead), expected_kg_day: round(expected), deviation_pct: round(dev, 1),
          status: findings.length ? 'alarm' : Math.abs(dev) >= FEED_WARN_PCT ? 'warn' : 'ok', anomaly_flags: findings.map((f) => f.flag), alarm_ids: alarms.map((a) => a.id),
          ts: b.ts ? new Date(b.ts).toISOString() : now, received_at: now,
        };
        const saved = (await kit.store(ctx.services.db).insert(row as never))!;
        return { record: kit.toItem(saved), status: row.status, anomaly_flags: row.anomaly_flags, alarms };
      },
    }),
  },
});

export const feedingRoutes = feedingResource.routes;
