// A house whose climate readings arrive over MQTT and then stop is a communication loss too: no
// poller counts its misses, so silence is measured. One timer; the last reading per house in
// memory (rebuilt at start from the last stored mqtt reading, and the open alarms found again);
// a house silent for longer than stale_after_s gets one comm_loss alarm (source mqtt), which its
// next reading clears. Only houses with an active flock are judged: an emptied house is quiet.
import { and, eq, gte, max } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import type { TelemetryPoint } from '../../realtime/bus.js';
import { colOf, tableOf } from '../../db/sql.js';
import { readingView } from '../poultry/climate-schema.js';
import { findFlock } from '../poultry/flock.js';
import { clearCommLoss, MQTT_RULE, raiseCommLoss } from '../../industry/comm-loss.js';
import { unitPart } from '../../industry/box-text.js';

/** Metrics the MQTT climate bridge (src/modules/poultry/mqtt-climate.ts) turns into a reading. */
const CLIMATE_METRICS = new Set(['temp', 'temperature', 'humidity', 'co2', 'nh3', 'ventilation']);
/** How far back the start looks for houses fed over MQTT. */
const REBUILD_WINDOW_MS = 7 * 86_400_000;

interface House {
  tenant: string;
  site: string | null;
  house: string;
  last: number;
  alarmed: boolean;
}

export interface MqttSilence {
  stop(): Promise<void>;
}

export async function watchMqttSilence(services: Services, staleAfterS: number): Promise<MqttSilence> {
  const houses = new Map<string, House>();
  const keyOf = (tenant: string, house: string) => `${tenant}\u0000${house}`;
  const staleMs = staleAfterS * 1000;
  let chain = Promise.resolve();
  const run = (fn: () => Promise<void>) => {
    chain = chain.then(fn).catch((err: Error) => services.log.warn('MQTT silence check failed', { error: err.message }));
  };

  const c = (n: string) => colOf(readingView, services.db, n);
  const since = new Date(Date.now() - REBUILD_WINDOW_MS).toISOString();
  const last = (await services.db.orm.select({ tenant: c('tenant_id'), site: c('site_id'), house: c('house_id'), ts: max(c('ts')) })
    .from(tableOf(readingView, services.db)).where(and(eq(c('source'), 'mqtt'), gte(c('ts'), since)))
    .groupBy(c('tenant_id'), c('site_id'), c('house_id'))) as { tenant: string; site: string | null; house: string; ts: string }[];
  for (const r of last) houses.set(keyOf(r.tenant, r.house), { tenant: r.tenant, site: r.site, house: r.house, last: Date.parse(r.ts), alarmed: false });
  for (const a of await services.industryAlarms?.open({ industry_code: 'poultry', rule_id: MQTT_RULE }) ?? []) {
    if (!a.unit_id) continue;
    const h = houses.get(keyOf(a.tenant_id, a.unit_id));
    if (h) h.alarmed = true;
    else houses.set(keyOf(a.tenant_id, a.unit_id), { tenant: a.tenant_id, site: a.site_id, house: a.unit_id, last: Date.parse(a.raised_at), alarmed: true });
  }

  const off = services.bus!.on('telemetry', (points: TelemetryPoint[]) => {
    for (const p of points) {
      if (!CLIMATE_METRICS.has(p.metric) || p.value === null) continue;
      const k = keyOf(p.tenant_id, p.device_id);
      const h = houses.get(k) ?? { tenant: p.tenant_id, site: p.site_id, house: p.device_id, last: 0, alarmed: false };
      houses.set(k, h);
      h.last = Date.now();
      if (h.alarmed) {
        h.alarmed = false;
        run(async () => { await clearCommLoss(services, { tenant_id: h.tenant, industry_code: 'poultry', unit_id: h.house, rule_id: MQTT_RULE }); });
      }
    }
  });

  const check = () => run(async () => {
    const now = Date.now();
    for (const h of houses.values()) {
      if (h.alarmed || now - h.last <= staleMs) continue;
      const flock = await findFlock(services, h.tenant, h.house);
      if (!flock || flock.status !== 'active') continue;
      h.alarmed = true;
      const minutes = Math.max(1, Math.round((now - h.last) / 60_000));
      await raiseCommLoss(services, {
        tenant_id: h.tenant, site_id: flock.site_id, industry_code: 'poultry', unit_id: h.house, rule_id: MQTT_RULE, priority: 'P1', source: 'mqtt',
        text: {
          title_key: 'box.comm_loss.controller.title', message_key: 'box.comm_loss.mqtt.message',
          params: { industry: 'poultry', unit: unitPart('poultry', h.house), minutes },
        },
        details: { last_reading_at: new Date(h.last).toISOString(), stale_after_s: staleAfterS },
      });
    }
  });
  // A quarter of the stale time (within 0.25..30 s): an alarm comes at most 25% late, for a handful of map entries a tick.
  const timer = setInterval(check, Math.min(30_000, Math.max(250, staleMs / 4)));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      off();
      await chain;
    },
  };
}
