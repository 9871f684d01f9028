// An industry's lines on the site set-up screen: its units (houses, rooms, fields), with their
// flocks where it has them, and its controllers, each answering or not as the poller sees it now.
import { and, eq } from 'drizzle-orm';
import { colOf, tableOf } from '../db/sql.js';
import type { NeutralTable } from '../db/table.js';
import { count, setupTenant, siteTime, type SetupStep } from '../kernel/setup.js';
import { deviceIdOf, type PolledIndustry } from './polled-devices.js';

interface IndustrySetup {
  industry: PolledIndustry;
  /** "house", "room", "field". */
  unit: string;
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
    title: o.flocks ? `${cap(o.unit)}s and their flocks` : `${cap(o.unit)}s`,
    screen: { module: o.industry },
    async check(services, caller) {
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
      if (ids.size === 0) return { state: 'missing', words: `No ${o.unit} yet: a ${o.unit} appears once its controller is added${o.flocks ? ' or a flock is placed in it' : ''}.` };
      const names = [...ids].sort().join(', ');
      if (!o.flocks) return { state: 'done', words: `${count(ids.size, o.unit)}: ${names}.` };
      const empty = [...ids].filter((h) => !placed.has(h)).sort();
      if (empty.length === 0) return { state: 'done', words: `${count(ids.size, o.unit)}, each with a flock: ${names}.` };
      return { state: 'attention', words: `${count(ids.size, o.unit)}; no flock placed in ${empty.join(', ')}: the climate curve and the flock's age start when one is.` };
    },
  };
  const controllers: SetupStep = {
    id: `${o.industry}-controllers`,
    order: 40,
    title: 'Controllers and their readings',
    screen: { module: o.industry },
    async check(services, caller) {
      const adapters = await adaptersOf(services, setupTenant(caller));
      if (adapters.length === 0) return { state: 'missing', words: `No controller added: the box reads nothing from the ${o.unit}s and can write no setpoint.` };
      const states = new Map(services.poller.snapshot().map((s) => [s.device_id, s]));
      const lost: string[] = [];
      const waiting: string[] = [];
      for (const a of adapters) {
        const s = states.get(deviceIdOf(o.industry, a.id));
        const name = `${a.controller_id} (${cap(o.unit)} ${a.unit_id})`;
        if (!s || s.state === 'unknown') waiting.push(name);
        else if (s.state === 'lost') lost.push(s.last_ok_at ? `${name}, not answering since ${siteTime(services.config, s.last_ok_at)}` : `${name}, never answered`);
      }
      const answering = adapters.length - lost.length - waiting.length;
      const head = `${answering} of ${count(adapters.length, 'controller')} answering`;
      if (lost.length) return { state: 'attention', words: `${head}. ${lost.join('; ')}.` };
      if (waiting.length) return { state: 'attention', words: `${head}; not read yet: ${waiting.join(', ')}.` };
      return { state: 'done', words: `${head}.` };
    },
  };
  return [units, controllers];
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
