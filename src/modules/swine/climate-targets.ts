// Which climate bands a swine room is judged by: the room's published industry profile
// (industry swine, equipment profile swine-room-climate, name = room id) at the site, else the
// site's "default" one, else the built-in defaults (norms.ts). The profile content is
// { phases: ClimatePhase[], alarm_rules?: AlarmRule[] }, checked at import by the validator
// registered here; alarm_rules replace the default rules (climate-rules.ts) of the same id.
import * as v from 'valibot';
import type { Database } from '../../db/client.js';
import { profileVersions, registerProfileContent, valibotContent } from '../../industry/profiles.js';
import { DEFAULT_CLIMATE_PHASES, type ClimatePhase } from './norms.js';
import { alarmRuleSchema, mergeRules, type AlarmRule } from '../../industry/rules.js';
import { inForce, inForceKey } from '../../industry/in-force.js';
import { CLIMATE_RULES } from './climate-rules.js';

export const ROOM_CLIMATE_PROFILE = 'swine-room-climate';
export const BIOSECURITY_PROFILE = 'swine-biosecurity';

const num = v.pipe(v.number(), v.finite());
const phaseSchema = v.pipe(v.object({
  phase_id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  label: v.optional(v.string()),
  min_weight_kg: v.optional(num), max_weight_kg: v.optional(num),
  min_age_days: v.optional(num), max_age_days: v.optional(num),
  temp_min_c: num, temp_max_c: num,
  humidity_min_pct: v.pipe(num, v.minValue(0), v.maxValue(100)), humidity_max_pct: v.pipe(num, v.minValue(0), v.maxValue(100)),
  nh3_max_ppm: v.pipe(num, v.minValue(0)), co2_max_ppm: v.pipe(num, v.minValue(0)),
}), v.check((p) => p.temp_min_c <= p.temp_max_c && p.humidity_min_pct <= p.humidity_max_pct, 'minimum above maximum'));
const roomClimateSchema = v.object({ phases: v.pipe(v.array(phaseSchema), v.minLength(1)), alarm_rules: v.optional(v.array(alarmRuleSchema)) });
const biosecuritySchema = v.object({ required_downtime_hours: v.pipe(num, v.minValue(0), v.maxValue(24 * 30)) });

const roomClimate = valibotContent(roomClimateSchema);
const biosecurity = valibotContent(biosecuritySchema);
registerProfileContent('swine', (content, { equipment_profile }) =>
  equipment_profile === ROOM_CLIMATE_PROFILE ? roomClimate(content, { equipment_profile })
    : equipment_profile === BIOSECURITY_PROFILE ? biosecurity(content, { equipment_profile }) : []);

/** The bands and the alarm rules in force for a room (the defaults with the profile's alarm_rules replacing rules of the same id). */
export interface Targets { phases: readonly ClimatePhase[]; rules: readonly AlarmRule[]; source: string }

async function publishedContent(db: Database, tenant: string, site: string | null, equipment: string, names: string[]) {
  for (const name of names) {
    for (const s of site ? [site, ''] : ['']) {
      const row = await profileVersions.published(db, { tenant_id: tenant, site_id: s, industry_code: 'swine', equipment_profile: equipment, name });
      if (row) return row;
    }
  }
  return undefined;
}

/** Through the in-force cache: every reading needs them, a profile write invalidates them. */
export function climateTargets(db: Database, tenant: string, site: string | null, room: string): Promise<Targets> {
  return inForce(db, inForceKey('swine-targets', tenant, site, room), async () => {
    const row = await publishedContent(db, tenant, site, ROOM_CLIMATE_PROFILE, [room, 'default']);
    if (!row) return { phases: DEFAULT_CLIMATE_PHASES, rules: CLIMATE_RULES, source: 'default' };
    const content = row.content as { phases: ClimatePhase[]; alarm_rules?: AlarmRule[] };
    return { phases: content.phases, rules: mergeRules(CLIMATE_RULES, content.alarm_rules ?? []), source: `profile ${row.id} v${row.version_id}` };
  });
}

/** Hours without contact with other pigs required before entering (default 48; a published swine-biosecurity profile "default" may change it). */
export const DEFAULT_DOWNTIME_HOURS = 48;
export async function requiredDowntimeHours(db: Database, tenant: string, site: string | null): Promise<number> {
  const row = await publishedContent(db, tenant, site, BIOSECURITY_PROFILE, ['default']);
  return row ? (row.content as { required_downtime_hours: number }).required_downtime_hours : DEFAULT_DOWNTIME_HOURS;
}
