// The alarm rules in force for a tenant and site: the defaults, with the `alarm_rules` of the
// newest published poultry profile (the site's own, else the tenant-wide one) replacing rules of
// the same id and adding new ones. A rule may name unit_ids to hold for some houses only, which
// is how a site sets thresholds per house.
import * as v from 'valibot';
import type { Services } from '../../kernel/context.js';
import { profileInForce } from '../../industry/profiles.js';
import { inForce, inForceKey } from '../../industry/in-force.js';
import { alarmRuleSchema, type AlarmRule } from '../../industry/rules.js';
import { mergeRules } from './climate-eval.js';

export const alarmRulesSchema = v.array(alarmRuleSchema);

export function rulesInForce(services: Services, tenant: string, site: string | null, defaults: readonly AlarmRule[]): Promise<AlarmRule[]> {
  return inForce(services.db, inForceKey('poultry-rules', tenant, site, defaults.map((r) => r.id).join(',')), () => load(services, tenant, site, defaults));
}

async function load(services: Services, tenant: string, site: string | null, defaults: readonly AlarmRule[]): Promise<AlarmRule[]> {
  const profile = await profileInForce(services, { tenant, site, industry: 'poultry', key: 'alarm_rules' });
  if (!profile) return [...defaults];
  const parsed = v.safeParse(alarmRulesSchema, profile.content.alarm_rules);
  if (!parsed.success) {
    services.log.warn('poultry profile alarm_rules are invalid; the default rules apply', { profile_id: profile.id });
    return [...defaults];
  }
  return mergeRules(defaults, parsed.output as AlarmRule[]);
}
