// An industry's lines on the site set-up screen: its units (houses, rooms, fields), with their
// flocks where it has them, and its controllers, each answering or not as the poller sees it now.
import { and, eq } from 'drizzle-orm';
import { colOf, tableOf } from '../db/sql.js';
import type { NeutralTable } from '../db/table.js';
import { setupTenant, type SetupCheck, type SetupStep } from '../kernel/setup.js';
import { deviceIdOf, type PolledIndustry } from './polled-devices.js';

interface IndustrySetup {
  industry: PolledIndustry;
  /** The unit's word, which the set-up messages select on (setup.json): "house", "room", "field". */
  unit: 'house' | 'room' | 'field';
  adapters: NeutralTable;
  /** Poultry: the flocks table; a unit without an active one is empty. */
  flocks?: NeutralTable;
}


export function industrySetup(o: IndustrySetup): SetupStep[] {
  const adaptersOf = async (services: Parameters<SetupStep['check']>[0], tenant: string) => {
    const c = (n: string) => colOf(o.adapters, services.db, n);
    return (await services.db.orm.select({ id: c('id'), unit_id: c('unit_id'), controller_id: c('controller_id'), readings: c('readings') })
      .from(tableOf(o.adapters, services.db)).where(eq(c('tenant_id'), tenant))) as { id: string; unit_id: string; controller_id: string; readings: unknown }[];
  };
  const units: SetupStep = {
    id: `${o.industry}-units`,
    order: 30,
    title: o.flocks ? 'setup.units.title_flocks' : 'setup.units.title',
    title_params: { unit: o.unit },
    screen: { module: o.industry },
    async check(services, caller): Promise<SetupCheck> {
      const tenant = setupTenant(caller);
      const ids = new Set((await adaptersOf(services, tenant)).map((a) => a.unit_id));
      let placed = new Set<string>();
      if (o.flocks) {
        const c = (n: string) => colOf(o.flocks!, services.db, n);
        const flocks = (await services.db.orm.select({ house_id: c('house_id') }).from(tableOf(o.flocks, services.db))
          .where(and(eq(c('tenant_id'), tenant), eq(c('status'), 'active')))) as { house_id: string }[];
        placed = new Set(flocks.map((f) => f.house_id));
        for (const h of placed) ids.add(h);
      }
      const unit = o.unit;
      if (ids.size === 0) return { state: 'missing', key: o.flocks ? 'setup.units.none_flocks' : 'setup.units.none', params: { unit } };
      // Unit ids as the box names them ("1, 2"): the same in every language.
      const names = [...ids].sort().join(', ');
      if (!o.flocks) return { state: 'done', key: 'setup.units.done', params: { unit, n: ids.size, names } };
      const empty = [...ids].filter((h) => !placed.has(h)).sort();
      if (empty.length === 0) return { state: 'done', key: 'setup.units.done_flocks', params: { unit, n: ids.size, names } };
      return { state: 'attention', key: 'setup.units.no_flock', params: { unit, n: ids.size, empty: empty.join(', ') } };
    },
  };
  const controllers: SetupStep = {
    id: `${o.industry}-controllers`,
    order: 40,
    title: 'setup.controllers.title',
    screen: { module: o.industry },
    async check(services, caller): Promise<SetupCheck> {
      const adapters = await adaptersOf(services, setupTenant(caller));
      if (adapters.length === 0) return { state: 'missing', key: 'setup.controllers.none', params: { unit: o.unit } };
      const states = new Map(services.poller.snapshot().map((s) => [s.device_id, s]));
      const lost: { controller: string; unit_id: string; since: string | null }[] = [];
      const waiting: string[] = [];
      for (const a of adapters) {
        const s = states.get(deviceIdOf(o.industry, a.id));
        if (!s || s.state === 'unknown') waiting.push(a.controller_id);
        else if (s.state === 'lost') lost.push({ controller: a.controller_id, unit_id: a.unit_id, since: s.last_ok_at });
      }
      const head = { answering: adapters.length - lost.length - waiting.length, total: adapters.length };
      const one = lost.length === 1 ? lost[0] : undefined;
      if (one) {
        return { state: 'attention', key: 'setup.controllers.lost_one', params: { ...head, controller: one.controller, unit: o.unit, unit_id: one.unit_id, seen: one.since ? 'yes' : 'no', since_at: one.since ?? '' } };
      }
      // Several lost: their ids (the controllers screen tells each one's story).
      if (lost.length) return { state: 'attention', key: 'setup.controllers.lost_many', params: { ...head, controllers: lost.map((l) => l.controller).join(', ') } };
      if (waiting.length) return { state: 'attention', key: 'setup.controllers.waiting', params: { ...head, controllers: waiting.join(', ') } };
      return { state: 'done', key: 'setup.controllers.done', params: head };
    },
  };
  return [units, controllers];
}
