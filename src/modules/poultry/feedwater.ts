// poultry-feedwater: feed and water counters plus line pressure per house (commands/ingest),
// judged against the birds' age (feedwater-eval.ts), with versioned thresholds
// (commands/set-thresholds) and the alarm-level anomalies raised and cleared through the one
// industry alarm service. poultry-feedwater-days lists the site days for charts.
import * as v from 'valibot';
import { randomUUID } from 'node:crypto';
import { command, defineResource, itemSchema } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { ownerSite, requiredTenant } from '../../kernel/tenancy.js';
import type { Services } from '../../kernel/context.js';
import { contentOf, versioned } from '../../industry/versions.js';
import type { IndustrySeverity, Priority } from '../../industry/alarm-schema.js';
import { counterDelta, defaultCurve, DEFAULT_THRESHOLDS, expectedAt, judge, type AnomalyFlag, type CurvePoint } from './feedwater-eval.js';
import { feedwaterDayRecord, feedwaterRecord, OPERATIONAL_STATUSES, type FeedwaterDayRow, type FeedwaterRow } from './feedwater-schema.js';
import { SUBTYPES } from './climate-schema.js';
import { flockFacts } from './flock.js';
import { siteDay } from '../../industry/site-day.js';

const versions = versioned<FeedwaterRow>(feedwaterRecord.table, ['tenant_id', 'house_id', 'batch_id']);

/** Alarm-level anomalies and how they are raised (README "Poultry: feed and water"). */
export const FEEDWATER_ALARMS: Record<string, { severity: IndustrySeverity; priority: Priority; sla_target_sec: number; title: string; metric: string; holds: AnomalyFlag[] }> = {
  water_drop: { severity: 'critical', priority: 'P1', sla_target_sec: 900, title: 'Water far below expected: blocked line or empty tank?', metric: 'water_deviation_pct', holds: ['water_drop', 'water_low'] },
  low_pressure: { severity: 'high', priority: 'P1', sla_target_sec: 900, title: 'Water line pressure low', metric: 'pressure_bar', holds: ['low_pressure'] },
  water_spike: { severity: 'high', priority: 'P2', sla_target_sec: 3600, title: 'Water far above expected: leak?', metric: 'water_deviation_pct', holds: ['water_spike', 'water_high'] },
  feed_drop: { severity: 'high', priority: 'P2', sla_target_sec: 3600, title: 'Feed far below expected: feeder or auger stopped?', metric: 'feed_deviation_pct', holds: ['feed_drop', 'feed_low'] },
  feed_spike: { severity: 'medium', priority: 'P2', sla_target_sec: 3600, title: 'Feed far above expected: spillage?', metric: 'feed_deviation_pct', holds: ['feed_spike', 'feed_high'] },
};

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100));
const nonNeg = (max: number) => v.pipe(v.number(), v.minValue(0), v.maxValue(max));
const pct = v.pipe(v.number(), v.minValue(0), v.maxValue(1000));
const lineage = { house_id: key, batch_id: key, tenant_id: v.optional(key), site_id: v.optional(key) };

const ingestBody = v.pipe(v.strictObject({
  ...lineage,
  ts: v.optional(v.pipe(v.string(), v.isoTimestamp('an RFC 3339 timestamp'))),
  water_counter_l: v.optional(nonNeg(1e12)),
  feed_counter_kg: v.optional(nonNeg(1e12)),
  pressure_bar: v.optional(nonNeg(100)),
  birds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000_000))),
  age_days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2000))),
  subtype: v.optional(v.picklist(SUBTYPES)),
  age_phase_id: v.optional(key),
  reset_water: v.optional(v.boolean()),
  reset_feed: v.optional(v.boolean()),
}), v.check((b) => b.water_counter_l !== undefined || b.feed_counter_kg !== undefined || b.pressure_bar !== undefined, 'at least one of water_counter_l, feed_counter_kg, pressure_bar'));

const curveSchema = v.pipe(v.array(v.strictObject({ day: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2000)), feed_g: nonNeg(2000), water_ml: nonNeg(5000) })), v.minLength(1), v.maxLength(200));
const thresholdsBody = v.pipe(v.strictObject({
  ...lineage,
  subtype: v.optional(v.picklist(SUBTYPES)),
  change_note: v.optional(v.pipe(v.string(), v.maxLength(500))),
  water_warn_pct: v.optional(pct),
  water_alarm_pct: v.optional(pct),
  feed_warn_pct: v.optional(pct),
  feed_alarm_pct: v.optional(pct),
  pressure_min_bar: v.optional(nonNeg(100)),
  pressure_max_bar: v.optional(nonNeg(100)),
  ratio_min: v.optional(nonNeg(100)),
  ratio_max: v.optional(nonNeg(100)),
  water_counter_max: v.optional(v.nullable(v.pipe(v.number(), v.minValue(1)))),
  feed_counter_max: v.optional(v.nullable(v.pipe(v.number(), v.minValue(1)))),
  curve: v.optional(v.nullable(curveSchema)),
}), v.check((b) => (b.water_warn_pct ?? 0) <= (b.water_alarm_pct ?? Infinity) && (b.feed_warn_pct ?? 0) <= (b.feed_alarm_pct ?? Infinity), 'a warning threshold above its alarm threshold'),
v.check((b) => (b.pressure_min_bar ?? 0) <= (b.pressure_max_bar ?? Infinity) && (b.ratio_min ?? 0) <= (b.ratio_max ?? Infinity), 'a minimum above its maximum'));

const lineItem = itemSchema(feedwaterRecord.fields);
const ingestAnswer = {
  ...lineItem,
  properties: {
    ...(lineItem.properties as Record<string, unknown>),
    status: { enum: ['ok', 'warn', 'alarm'], description: 'This ingest\'s judgement (the line\'s operational_status).' },
    counter_events: { type: 'object', description: 'What each counter did: first, normal, reset or rollover (null when not sent).', properties: { water: { enum: ['first', 'normal', 'reset', 'rollover', null] }, feed: { enum: ['first', 'normal', 'reset', 'rollover', null] } } },
  },
};


/** A fresh version-1 profile with the default thresholds and an unknown operational state. */
function initialProfile(tenant: string, site: string | null, house: string, batch: string, subtype: FeedwaterRow['subtype']): Omit<FeedwaterRow, 'id' | 'version_id' | 'state' | 'change_note' | 'rollback_of' | 'created_by' | 'created_at' | 'published_at'> {
  return {
    tenant_id: tenant, site_id: site, house_id: house, batch_id: batch, subtype, age_phase_id: null,
    ...DEFAULT_THRESHOLDS_ROW, water_counter_max: null, feed_counter_max: null, curve: null,
    operational_status: 'unknown', anomaly_flags: [], age_days: null, birds: null, local_date: null,
    water_today_l: 0, feed_today_kg: 0, expected_water_today_l: null, expected_feed_today_kg: null,
    water_deviation_pct: null, feed_deviation_pct: null, water_feed_ratio: null,
    last_water_counter_l: null, last_feed_counter_kg: null, last_pressure_bar: null, last_counter_at: null, last_counter_event: null, water_baseline_at: null, feed_baseline_at: null,
  };
}
const { min_day_fraction: _minDay, ...DEFAULT_THRESHOLDS_ROW } = DEFAULT_THRESHOLDS;

/** The title key of a feed/water alarm (box.rule.feedwater.<flag>.title, "House 2: Water far below expected: ..."). */
export const feedwaterTitleKey = (flag: string): string => `box.rule.feedwater.${flag}.title`;

async function raiseAndClear(services: Services, row: FeedwaterRow, flags: AnomalyFlag[], values: Record<string, number | null>, actor: string, correlation: string) {
  const alarms = services.industryAlarms;
  if (!alarms) return;
  for (const [flag, spec] of Object.entries(FEEDWATER_ALARMS)) {
    const rule_id = `feedwater:${flag}`;
    if (flags.includes(flag as AnomalyFlag)) {
      await alarms.raise({
        tenant_id: row.tenant_id, site_id: row.site_id, industry_code: 'poultry', unit_id: row.house_id, batch_id: row.batch_id,
        rule_id, metric: spec.metric, value: values[spec.metric] ?? null, severity: spec.severity, priority: spec.priority,
        sla_target_sec: spec.sla_target_sec, source: 'poultry-feedwater', correlation_id: correlation, actor,
        // The same title as the feed/water rule of this flag (FEEDWATER_RULES), in each reader's language.
        text: { title_key: feedwaterTitleKey(flag), params: { industry: 'poultry', unit: row.house_id } },
        details: { flags, water_today_l: row.water_today_l, feed_today_kg: row.feed_today_kg, expected_water_today_l: row.expected_water_today_l, expected_feed_today_kg: row.expected_feed_today_kg },
      });
    } else if (!spec.holds.some((f) => flags.includes(f))) {
      // Hysteresis: an alarm raised at the alarm threshold stays until even the warning is gone.
      await alarms.clear({ tenant_id: row.tenant_id, industry_code: 'poultry', unit_id: row.house_id, rule_id, actor });
    }
  }
}

export const feedwaterResource: ReturnType<typeof defineResource<FeedwaterRow>> = defineResource<FeedwaterRow>({
  name: 'poultry-feedwater',
  module: 'poultry',
  title: 'Poultry feed and water',
  record: feedwaterRecord,
  access: { resource: 'poultry-feedwater', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  filters: { status: { type: 'string', enum: OPERATIONAL_STATUSES, column: 'operational_status', description: 'Operational status of the line (ok, warn, alarm; unknown before the first judged ingest).' } },
  defaultSort: { field: 'last_counter_at', order: 'desc' },
  commands: {
    ingest: command({
      summary: 'Feed and water counters (cumulative, L and kg) and line pressure (bar) of a house: today\'s consumption against the expected for the birds\' age; answers the line\'s state with status ok|warn|alarm and anomaly_flags. A counter going backwards is refused (400 counter_backwards) unless reset_* is sent or it is a reset (to under 5 %) or a rollover at the meter maximum.',
      action: 'execute',
      body: ingestBody,
      response: ingestAnswer,
      handler: async (ctx) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        const { db } = ctx.services;
        const tenant = requiredTenant(caller, b.tenant_id);
        const now = Date.now();
        const ts = b.ts ? new Date(b.ts) : new Date(now);
        if (ts.getTime() > now + 60_000) throw new ApiError('validation_error', `ts ${b.ts} is in the future`, [{ field: 'ts', reason: 'in_future' }]);
        const flock = await flockFacts(ctx.services, tenant, b.house_id, b.batch_id);
        const ref = { tenant_id: tenant, house_id: b.house_id, batch_id: b.batch_id };
        let current = await versions.published(db, ref);
        if (current?.last_counter_at && ts.getTime() < Date.parse(current.last_counter_at)) {
          throw new ApiError('validation_error', `ts ${ts.toISOString()} is before the last reading at ${current.last_counter_at}`, [{ field: 'ts', reason: 'before_last_reading' }]);
        }
        const water = b.water_counter_l === undefined ? undefined : counterDelta(current?.last_water_counter_l ?? null, b.water_counter_l, { reset: b.reset_water, max: current?.water_counter_max });
        const feed = b.feed_counter_kg === undefined ? undefined : counterDelta(current?.last_feed_counter_kg ?? null, b.feed_counter_kg, { reset: b.reset_feed, max: current?.feed_counter_max });
        const refused = [water && 'refused' in water ? { field: 'water_counter_l', reason: 'counter_backwards' } : null, feed && 'refused' in feed ? { field: 'feed_counter_kg', reason: 'counter_backwards' } : null].filter((d) => d !== null);
        if (refused.length) throw new ApiError('validation_error', `counter went backwards (last ${current?.last_water_counter_l ?? '-'} L water, ${current?.last_feed_counter_kg ?? '-'} kg feed); send reset_water/reset_feed if the meter was reset`, refused);
        const subtype = b.subtype ?? flock?.subtype ?? current?.subtype ?? 'broiler';
        if (!current) {
          current = await versions.add(db, initialProfile(tenant, ownerSite(caller, b.site_id), b.house_id, b.batch_id, subtype), { id: randomUUID(), actor: caller.subject, publish: true, change_note: 'created at the first ingest with the default thresholds' });
        }
        const day = siteDay(ts, ctx.services.config);
        const sameDay = current.local_date === day.date;
        const waterDelta = water && 'delta' in water ? water.delta : 0;
        const feedDelta = feed && 'delta' in feed ? feed.delta : 0;
        const waterToday = (sameDay ? current.water_today_l : 0) + waterDelta;
        const feedToday = (sameDay ? current.feed_today_kg : 0) + feedDelta;
        const age = b.age_days ?? (flock ? Math.round((Date.parse(`${day.date}T00:00:00Z`) - Date.parse(`${flock.start_date}T00:00:00Z`)) / 86_400_000) : null) ?? current.age_days;
        const birds = b.birds ?? current.birds ?? flock?.birds_placed ?? null;
        const thresholds = { ...DEFAULT_THRESHOLDS, ...pickThresholds(current) };
        const curve = (current.curve as CurvePoint[] | null) ?? defaultCurve(subtype);
        const pressure = b.pressure_bar ?? current.last_pressure_bar;
        // A counter's first reading is its baseline: measured from there on. A reset is not: the
        // meter counts again from zero, so the day stays measured from its start (decision in docs/poultry.md).
        const baseline = (c: typeof water, before: string | null) => (c && 'event' in c && c.event === 'first' ? ts.toISOString() : before);
        const waterBaseline = baseline(water, current.water_baseline_at);
        const feedBaseline = baseline(feed, current.feed_baseline_at);
        const fromToday = (at: string | null) => {
          if (!at) return 0;
          const d = siteDay(new Date(at), ctx.services.config);
          return d.date === day.date ? d.fraction : 0;
        };
        const j = judge({
          water_today_l: current.last_water_counter_l !== null || water ? waterToday : null,
          feed_today_kg: current.last_feed_counter_kg !== null || feed ? feedToday : null,
          birds, age_days: age, day_fraction: day.fraction, water_from_fraction: fromToday(waterBaseline), feed_from_fraction: fromToday(feedBaseline),
          pressure_bar: pressure, thresholds, curve,
        });
        const changes: Partial<FeedwaterRow> = {
          subtype, age_days: age, birds, local_date: day.date, water_today_l: Number(waterToday.toFixed(3)), feed_today_kg: Number(feedToday.toFixed(3)),
          expected_water_today_l: j.expected_water_today_l, expected_feed_today_kg: j.expected_feed_today_kg,
          water_deviation_pct: j.water_deviation_pct, feed_deviation_pct: j.feed_deviation_pct, water_feed_ratio: j.water_feed_ratio,
          operational_status: j.status, anomaly_flags: j.anomaly_flags,
          last_water_counter_l: b.water_counter_l ?? current.last_water_counter_l, last_feed_counter_kg: b.feed_counter_kg ?? current.last_feed_counter_kg,
          last_pressure_bar: pressure, last_counter_at: ts.toISOString(), water_baseline_at: waterBaseline, feed_baseline_at: feedBaseline,
          last_counter_event: water && 'event' in water ? water.event : feed && 'event' in feed ? feed.event : current.last_counter_event,
          ...(b.age_phase_id ? { age_phase_id: b.age_phase_id } : {}),
        };
        const saved = (await feedwaterResource.kit.store(db).update({ id: current.id, tenant_id: tenant }, changes))!;
        await recordDay(ctx.services, saved, day.date, curve, age);
        await raiseAndClear(ctx.services, saved, j.anomaly_flags, { water_deviation_pct: j.water_deviation_pct, feed_deviation_pct: j.feed_deviation_pct, pressure_bar: pressure }, caller.subject, ctx.requestId);
        return { ...saved, status: j.status, counter_events: { water: water && 'event' in water ? water.event : null, feed: feed && 'event' in feed ? feed.event : null } };
      },
    }),
    'set-thresholds': command({
      summary: 'New published version of a house and batch\'s feed/water thresholds (the previous one is archived; the line\'s operational state carries over)',
      action: 'execute',
      body: thresholdsBody,
      handler: async (ctx) => {
        const { house_id, batch_id, tenant_id, site_id, change_note, subtype, ...thresholds } = ctx.body;
        const caller = ctx.caller!;
        const tenant = requiredTenant(caller, tenant_id);
        const current = await versions.published(ctx.services.db, { tenant_id: tenant, house_id, batch_id });
        const base = current ? contentOf(current) : initialProfile(tenant, ownerSite(caller, site_id), house_id, batch_id, subtype ?? 'broiler');
        const next = { ...base, ...(subtype ? { subtype } : {}), ...thresholds };
        if (next.water_warn_pct > next.water_alarm_pct || next.feed_warn_pct > next.feed_alarm_pct || next.pressure_min_bar > next.pressure_max_bar || next.ratio_min > next.ratio_max) {
          throw new ApiError('validation_error', 'thresholds contradict the version in force (a warning above its alarm, or a minimum above its maximum)', [{ field: 'thresholds', reason: 'inconsistent' }]);
        }
        const saved = await versions.add(ctx.services.db, next, { id: randomUUID(), actor: caller.subject, publish: true, change_note: change_note ?? null });
        await ctx.services.audit.record({ actor: caller.subject, action: 'feedwater.set_thresholds', resource: 'poultry-feedwater', result: 'success', correlation_id: ctx.requestId, tenant_id: tenant, details: { id: saved.id, version_id: saved.version_id, house_id, batch_id, changes: thresholds } });
        return saved;
      },
    }),
  },
});

function pickThresholds(row: FeedwaterRow) {
  const { water_warn_pct, water_alarm_pct, feed_warn_pct, feed_alarm_pct, pressure_min_bar, pressure_max_bar, ratio_min, ratio_max } = row;
  return { water_warn_pct, water_alarm_pct, feed_warn_pct, feed_alarm_pct, pressure_min_bar, pressure_max_bar, ratio_min, ratio_max };
}

const SEVERITY = { unknown: 0, ok: 1, warn: 2, alarm: 3 } as const;

async function recordDay(services: Services, row: FeedwaterRow, date: string, curve: CurvePoint[], age: number | null) {
  const store = feedwaterDaysResource.kit.store(services.db);
  const id = `${row.house_id}:${row.batch_id}:${date}`;
  const exp = age !== null && row.birds ? expectedAt(curve, age) : null;
  const existing = await store.find({ tenant_id: row.tenant_id, id });
  const status = existing && SEVERITY[existing.status] > SEVERITY[row.operational_status] ? existing.status : row.operational_status;
  const day: FeedwaterDayRow = {
    id, tenant_id: row.tenant_id, site_id: row.site_id, house_id: row.house_id, batch_id: row.batch_id, local_date: date, age_days: age, birds: row.birds,
    water_l: row.water_today_l, feed_kg: row.feed_today_kg,
    expected_water_l: exp ? Number(((exp.water_ml / 1000) * row.birds!).toFixed(1)) : null,
    expected_feed_kg: exp ? Number(((exp.feed_g / 1000) * row.birds!).toFixed(1)) : null,
    min_pressure_bar: row.last_pressure_bar === null ? (existing?.min_pressure_bar ?? null) : Math.min(existing?.min_pressure_bar ?? Infinity, row.last_pressure_bar),
    status, anomaly_flags: [...new Set([...(existing?.anomaly_flags ?? []), ...row.anomaly_flags])],
    updated_at: new Date().toISOString(),
  };
  if (existing) await store.update({ tenant_id: row.tenant_id, id }, day);
  else await store.insert(day);
}

export const feedwaterDaysResource = defineResource<FeedwaterDayRow>({
  name: 'poultry-feedwater-days',
  module: 'poultry',
  title: 'Poultry feed and water by day',
  record: feedwaterDayRecord,
  access: { resource: 'poultry-feedwater', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'local_date', order: 'desc' },
});

/** For the alarm rule engine and the tablet: the line state in force for a house and batch. */
export const publishedFeedwater = (services: Services, tenant: string, house: string, batch: string) => versions.published(services.db, { tenant_id: tenant, house_id: house, batch_id: batch });
