// Which alarm resources this person may list (the menu's Alarms entry), and an alarm record of a
// generic list (ResourceView opens its account) as the key of the box's item. The alarms the shell
// announces and lists are not read here: they are the one alarm store's (lib/alarms.ts), from the
// box's alarm view, which decides their state, order and annunciation; a record's account reads
// the box's item by its key (alarm-view/{key}), never a state derived here from the raw fields.
import type { Session } from './session';

export { placeOf } from '../../../industry/alarm-words';

export type AlarmResource = 'industry-alarms' | 'poultry-alarms' | 'alarms' | 'sync-alarms';

const API = '/api/v1';

export function may(s: Session, path: string): boolean {
  return s.ctx.policy.permissions.api[`api:GET ${API}/${path}/list`] === true;
}

/** The alarm resources this person may list, poultry-alarms only when industry-alarms is not granted (the same rows). */
export function alarmResources(s: Session): AlarmResource[] {
  const out: AlarmResource[] = [];
  if (may(s, 'industry-alarms')) out.push('industry-alarms');
  else if (may(s, 'poultry-alarms')) out.push('poultry-alarms');
  if (may(s, 'alarms')) out.push('alarms');
  // The farms' alarms exist on a master only (an edge box's sync tables hold its outbox, never alarms).
  if (s.ctx.deployment_mode === 'cloud-multi' && may(s, 'sync-alarms')) out.push('sync-alarms');
  return out;
}

/** A record a generic list shows, and the key of its item in the alarm view (poultry-alarms and melioration-alerts are views of industry-alarms). */
export interface AlarmRecord { key: string; raw: Record<string, unknown> }

export function alarmRecordOf(resource: string, raw: Record<string, unknown>): AlarmRecord {
  const id = String(raw.id);
  if (resource === 'sync-alarms' || resource === 'alarms') return { key: `${resource}:${id}`, raw };
  return { key: `industry-alarms:${id}`, raw };
}
