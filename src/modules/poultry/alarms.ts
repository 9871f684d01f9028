// poultry-alarms: the poultry view of the one industry alarm table (industry_code = poultry),
// showing the house as house_id (the event's unit_id). Commands:
//   evaluate  runs the rule engine now over each house's latest climate reading and its feed/water
//             line (house_id/batch_id narrow it); answers what each rule did;
//   publish   an alarm by hand: correlation_id generated if missing; critical/high bridged to
//             status with the same correlation_id (bridged_to_status=true);
//   ack       by id: acked_at, assignee (409 alarm_already_acknowledged the second time);
//   reset, shelve, unshelve: as on industry-alarms (src/industry/alarm-commands.ts);
//   escalate  by id once the SLA deadline has passed (force=true before): escalation_level + 1,
//             sla_breached; the box also does this by itself (industry module escalator).
import { flushGrouped } from '../../db/group-commit.js';
import * as v from 'valibot';
import { and, desc, eq } from 'drizzle-orm';
import { command, defineResource } from '../../kernel/resource.js';
import { need, type Services } from '../../kernel/context.js';
import { colOf, tableOf } from '../../db/sql.js';
import { alarmEventRecord, industryAlarmEvents, INDUSTRY_SEVERITIES, PRIORITIES, type AlarmEventRow } from '../../industry/alarm-schema.js';
import type { RuleOutcome } from '../../industry/rules.js';
import { alarmAckCommand, alarmEscalateCommand, alarmResetCommand, alarmShelveCommand, alarmUnshelveCommand } from '../../industry/alarm-commands.js';
import { ownerSite as writeSite, boundSite, requiredTenant } from '../../kernel/tenancy.js';
import { flockRecord, readingView, type FlockRow, type ReadingRow } from './climate-schema.js';
import { activePhase, poultryRules, unknownHouse } from './climate.js';
import { climateLimits, DEFAULT_CLIMATE_RULES, FEEDWATER_RULES } from './climate-eval.js';
import { publishedFeedwater } from './feedwater.js';
import { rulesInForce } from './rules-in-force.js';
import { ageOf } from './flock.js';
import { ruleMetrics } from '../../industry/pipeline.js';

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const { unit_id: _unit, industry_code: _industry, ...baseFields } = alarmEventRecord.fields;
const fields = {
  ...baseFields,
  house_id: { type: 'string', label: 'House', nullable: true, column: false, ui: { primary: false } },
  unit_id: { ..._unit, ui: { hidden: true } },
  industry_code: { ..._industry, filter: false, ui: { hidden: true } },
} as const;

const publishBody = v.strictObject({
  severity: v.picklist(INDUSTRY_SEVERITIES),
  title: key,
  house_id: v.optional(key),
  batch_id: v.optional(key),
  priority: v.optional(v.picklist(PRIORITIES)),
  message: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  correlation_id: v.optional(key),
  sla_target_sec: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(30 * 86_400))),
  tenant_id: v.optional(key),
  site_id: v.optional(key),
});
const evaluateBody = v.strictObject({ house_id: v.optional(key), batch_id: v.optional(key), tenant_id: v.optional(key) });

const toItem = (row: AlarmEventRow) => ({ ...row, house_id: row.unit_id });

export const poultryAlarmResource = defineResource<AlarmEventRow>({
  name: 'poultry-alarms',
  module: 'poultry',
  title: 'Poultry alarms',
  table: industryAlarmEvents,
  access: { resource: 'poultry-alarms', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  fixed: { industry_code: 'poultry' },
  fields,
  filters: {
    house_id: { type: 'string', column: 'unit_id', description: 'The house the alarm is about.' },
    batch_id: { type: 'string' },
  },
  defaultSort: { field: 'raised_at', order: 'desc' },
  toItem,
  commands: {
    evaluate: command({
      summary: 'Run the alarm rules now over each active flock\'s latest climate reading (temp, humidity, co2, nh3, ventilation against the phase in force) and its feed/water line (water/feed deviation, line pressure against the line\'s thresholds); house_id/batch_id narrow it. Raises P1/P2 events (a rule already open on a house is not raised twice; a hold time still running stays pending) and clears ended ones. Answers {evaluated_houses, outcomes[], raised[], cleared[]}.',
      action: 'execute',
      body: evaluateBody,
      errors: ['not_found'],
      response: { type: 'object', properties: { evaluated_houses: { type: 'integer' }, outcomes: { type: 'array' }, raised: { type: 'array' }, cleared: { type: 'array' } }, required: ['evaluated_houses', 'outcomes', 'raised', 'cleared'] },
      handler: async (ctx) => {
        const tenant = requiredTenant(ctx.caller, ctx.body.tenant_id);
        return evaluateHouses(ctx.services, { tenant, site: boundSite(ctx.caller), house: ctx.body.house_id, batch: ctx.body.batch_id, actor: ctx.caller!.subject, correlation_id: ctx.requestId });
      },
    }),
    publish: command({
      summary: 'Publish a poultry alarm event: active; correlation_id generated if missing; critical/high bridged to the status stream (and MQTT) with the same correlation_id and bridged_to_status=true.',
      action: 'execute',
      body: publishBody,
      status: 201,
      handler: async (ctx) => {
        const b = ctx.body;
        const { event } = await need(ctx.services, 'industryAlarms').raise({
          tenant_id: requiredTenant(ctx.caller, b.tenant_id), site_id: writeSite(ctx.caller, b.site_id), industry_code: 'poultry', unit_id: b.house_id, batch_id: b.batch_id,
          severity: b.severity, priority: b.priority, source: 'poultry-alarms', title: b.title, message: b.message, correlation_id: b.correlation_id,
          sla_target_sec: b.sla_target_sec, actor: ctx.caller!.subject,
        });
        return toItem(event);
      },
    }),
    // Operators acknowledge and shelve (docs/alarms.md); publish, evaluate, escalate and reset
    // are for devices, integrations and admins.
    ack: alarmAckCommand('poultry', 'poultry alarm', 'acknowledge'),
    escalate: alarmEscalateCommand('poultry', 'poultry alarm'),
    reset: alarmResetCommand('poultry', 'poultry alarm'),
    shelve: alarmShelveCommand('poultry', 'poultry alarm'),
    unshelve: alarmUnshelveCommand('poultry', 'poultry alarm'),
  },
});

/** evaluate: the rules over the latest state of each active flock (also used by the scheduler). */
export async function evaluateHouses(services: Services, opts: { tenant: string; site?: string; house?: string; batch?: string; actor: string; correlation_id?: string }) {
  const fc = (n: string) => colOf(flockRecord.table, services.db, n);
  const flocks = (await services.db.orm.select().from(tableOf(flockRecord.table, services.db)).where(and(
    eq(fc('tenant_id'), opts.tenant), eq(fc('status'), 'active'),
    ...(opts.house ? [eq(fc('house_id'), opts.house)] : []), ...(opts.batch ? [eq(fc('batch_id'), opts.batch)] : []), ...(opts.site ? [eq(fc('site_id'), opts.site)] : []),
  ))) as FlockRow[];
  if (opts.house && !flocks.length) await unknownHouse(opts.house);
  // Device and MQTT readings wait up to telemetry_flush_ms to be stored: the rules judge the last reading, not the last stored.
  await flushGrouped(services.db);
  const rc = (n: string) => colOf(readingView, services.db, n);
  const outcomes: (RuleOutcome & { house_id: string })[] = [];
  for (const flock of flocks) {
    const [last] = (await services.db.orm.select().from(tableOf(readingView, services.db)).where(and(
      eq(rc('tenant_id'), opts.tenant), eq(rc('house_id'), flock.house_id), eq(rc('batch_id'), flock.batch_id),
    )).orderBy(desc(rc('ts'))).limit(1)) as ReadingRow[];
    const phase = await activePhase(services, opts.tenant, flock.house_id, flock.batch_id, ageOf(flock, services));
    const line = await publishedFeedwater(services, opts.tenant, flock.house_id, flock.batch_id);
    const rules = await rulesInForce(services, opts.tenant, flock.site_id, [...DEFAULT_CLIMATE_RULES, ...FEEDWATER_RULES]);
    // The pipeline's names (API and canonical), so a rule naming temp_c holds here as on telemetry.
    const metrics: Record<string, number | null | undefined> = {
      ...(last && phase ? ruleMetrics('poultry', { temp: last.temp, humidity: last.humidity, co2: last.co2, nh3: last.nh3, ventilation: last.ventilation }) : {}),
      ...(line ? { water_deviation_pct: line.water_deviation_pct, feed_deviation_pct: line.feed_deviation_pct, pressure_bar: line.last_pressure_bar } : {}),
    };
    const limits: Record<string, number> = {
      ...(phase ? climateLimits(phase) : {}),
      ...(line ? { water_alarm_pct: line.water_alarm_pct, water_alarm_pct_neg: -line.water_alarm_pct, feed_alarm_pct: line.feed_alarm_pct, feed_alarm_pct_neg: -line.feed_alarm_pct, pressure_min_bar: line.pressure_min_bar } : {}),
    };
    const out = await poultryRules(services).evaluate({
      tenant_id: opts.tenant, site_id: flock.site_id, unit_id: flock.house_id, batch_id: flock.batch_id, metrics, limits,
      correlation_id: opts.correlation_id, actor: opts.actor, details: { source: 'evaluate', reading_ts: last?.ts ?? null },
    }, rules);
    outcomes.push(...out.map((o) => ({ ...o, house_id: flock.house_id })));
  }
  const view = (o: RuleOutcome & { house_id: string }) => ({ house_id: o.house_id, rule_id: o.rule_id, metric: o.metric, value: o.value, threshold: o.threshold, breached: o.breached, state: o.state, action: o.action, ...(o.alarm ? { alarm: toItem(o.alarm) } : {}) });
  return {
    evaluated_houses: flocks.length,
    outcomes: outcomes.map(view),
    raised: outcomes.filter((o) => o.action === 'raised').map(view),
    cleared: outcomes.filter((o) => o.action === 'cleared').map(view),
  };
}

export const poultryAlarmRoutes = poultryAlarmResource.routes;
