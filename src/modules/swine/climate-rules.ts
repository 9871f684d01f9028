// The swine room climate alarm rules, as data for the shared rule engine (src/industry/rules.ts):
// thresholds are the limits of the phase in force (sent with each reading), with hysteresis so a
// value hovering at a limit does not raise, clear and raise again. Their state per room and
// rule lives in swine_rule_states.
import type { Services } from '../../kernel/context.js';
import { createRuleEngine, defineRuleStateRecord, type AlarmRule, type RuleEngine } from '../../industry/rules.js';
import { CO2_ALARM_PPM, SLA_SEC, TEMP_ALARM_MARGIN_C, type ClimatePhase } from './norms.js';

export const ruleStateRecord = defineRuleStateRecord('swine_rule_states');

export const CLIMATE_RULES: readonly AlarmRule[] = [
  { id: 'swine-climate:temp_high', metric: 'temp_c', comparator: 'gte', threshold: 'temp_alarm_max_c', hysteresis: 1, hold_sec: 120, severity: 'high', priority: 'P1', sla_target_sec: SLA_SEC.P1, title: `room temperature ${TEMP_ALARM_MARGIN_C} C or more above the band`, title_key: 'box.rule.swine_climate.temp_high.title', title_params: { margin: TEMP_ALARM_MARGIN_C } },
  { id: 'swine-climate:temp_low', metric: 'temp_c', comparator: 'lte', threshold: 'temp_alarm_min_c', hysteresis: 1, hold_sec: 120, severity: 'high', priority: 'P1', sla_target_sec: SLA_SEC.P1, title: `room temperature ${TEMP_ALARM_MARGIN_C} C or more below the band`, title_key: 'box.rule.swine_climate.temp_low.title', title_params: { margin: TEMP_ALARM_MARGIN_C } },
  { id: 'swine-climate:nh3_high', metric: 'nh3_ppm', comparator: 'gt', threshold: 'nh3_max_ppm', hysteresis: 2, hold_sec: 300, severity: 'high', priority: 'P1', sla_target_sec: SLA_SEC.P1, title: 'ammonia above the maximum', title_key: 'box.rule.swine_climate.nh3_high.title' },
  { id: 'swine-climate:co2_high', metric: 'co2_ppm', comparator: 'gte', threshold: 'co2_alarm_ppm', hysteresis: 300, hold_sec: 300, severity: 'high', priority: 'P1', sla_target_sec: SLA_SEC.P1, title: `CO2 at ${CO2_ALARM_PPM} ppm or more`, title_key: 'box.rule.swine_climate.co2_high.title', title_params: { ppm: CO2_ALARM_PPM } },
];

/** The named limits the rules refer to, from the phase in force. */
export const limitsOf = (p: ClimatePhase) => ({
  temp_alarm_max_c: p.temp_max_c + TEMP_ALARM_MARGIN_C,
  temp_alarm_min_c: p.temp_min_c - TEMP_ALARM_MARGIN_C,
  nh3_max_ppm: p.nh3_max_ppm,
  co2_alarm_ppm: Math.max(CO2_ALARM_PPM, p.co2_max_ppm),
});

const engines = new WeakMap<Services, RuleEngine>();
export function climateRules(services: Services): RuleEngine {
  let e = engines.get(services);
  if (!e) engines.set(services, (e = createRuleEngine(services, { table: ruleStateRecord.table, industry_code: 'swine', source: 'swine-climate', unit: 'Room' })));
  return e;
}
