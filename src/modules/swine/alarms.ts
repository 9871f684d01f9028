// Swine findings -> the one industry alarm service: a finding raises the alarm of its rule on
// its unit (the service does not raise a rule twice while it is open), a rule of the same family
// that no longer finds anything clears its open alarm (the condition ended). Only alarm-level
// findings (P1, or the anomalies a resource marks) are raised; warnings stay on the record.
import type { Services } from '../../kernel/context.js';
import type { AlarmEventRow } from '../../industry/alarm-schema.js';
import { SLA_SEC, type Finding } from './norms.js';
import type { BoxText } from '../../industry/box-text.js';

export interface AlarmUnit {
  tenant_id: string;
  site_id: string | null;
  /** The room (or room/pen) the finding is about. */
  unit_id: string;
  batch_id?: string | null;
}

export interface RaisedAlarm { id: string; rule_id: string | null; severity: string; priority: string | null; correlation_id: string; status: string }

export const raisedView = (e: AlarmEventRow): RaisedAlarm => ({ id: e.id, rule_id: e.rule_id, severity: e.severity, priority: e.priority, correlation_id: e.correlation_id, status: e.status });

/**
 * Raises `raise` findings and clears the rules of `family` that are not among them.
 * rule ids are `<family>:<flag>`, e.g. swine-climate:temp_high.
 */
export async function syncAlarms(services: Services, unit: AlarmUnit, family: string, allFlags: readonly string[], raise: readonly Finding[], opts: { actor: string; correlation_id: string; source: string; title: (f: Finding) => BoxText }): Promise<RaisedAlarm[]> {
  const alarms = services.industryAlarms;
  if (!alarms) return [];
  const out: RaisedAlarm[] = [];
  const raised = new Set(raise.map((f) => f.flag));
  for (const f of raise) {
    const { event } = await alarms.raise({
      tenant_id: unit.tenant_id, site_id: unit.site_id, industry_code: 'swine', unit_id: unit.unit_id, batch_id: unit.batch_id ?? null,
      rule_id: `${family}:${f.flag}`, metric: f.metric, value: f.value, severity: f.severity, priority: f.priority,
      source: opts.source, correlation_id: opts.correlation_id,
      // The title's key (the finding's words) and the message "metric value (limit n)", as data.
      text: { ...opts.title(f), message_key: 'box.swine.finding.message', params: { ...opts.title(f).params, metric: f.metric, value: f.value, limit: f.limit } },
      sla_target_sec: SLA_SEC[f.priority], details: { flag: f.flag, limit: f.limit }, actor: opts.actor,
    });
    out.push(raisedView(event));
  }
  for (const flag of allFlags) {
    if (raised.has(flag)) continue;
    await alarms.clear({ tenant_id: unit.tenant_id, industry_code: 'swine', unit_id: unit.unit_id, rule_id: `${family}:${flag}`, actor: opts.actor });
  }
  return out;
}
