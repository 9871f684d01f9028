// The curve follower: for each house that follows its curve (poultry_curve_follow.enabled, not
// paused), at most once per interval, the flock's age now (fractional, site calendar) gives the
// interpolated targets (src/industry/curve.ts over the house's published phases); the keys whose
// target moved away from what the controller holds by more than their deadband are written through
// the setpoint dispatch (read-back verified, field audit per item) under one correlation id, and
// audited as poultry-climate.follow-write. No profile version is made: the published phases are
// the version in force, following writes points on them.
//
// What the controller holds comes from the poller's device_readings events (setpoints read back).
// Following pauses, with a P2 curve_follow alarm in farm words, when
//   - a write fails (the controller did not accept a value), or
//   - a poll after the box's last write shows a value the box did not write (beyond the deadband):
//     someone changed it at the controller, and the box must not fight them.
// The operator resumes (follow command): the alarm clears and the next pass compares again.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import type { DeviceReadingEvent } from '../../field/poll-types.js';
import { colOf, tableOf } from '../../db/sql.js';
import { dispatchSetpoints, type AdapterRow } from '../../industry/dispatch.js';
import { curveOfPhases, drifting, valuesAt } from '../../industry/curve.js';
import { every } from '../../kernel/clock.js';
import { inForceChanged } from '../../industry/in-force.js';
import { adapterRecord } from './climate-schema.js';
import { publishedPhases, SETPOINT_KEYS } from './climate.js';
import { findFlock, fractionalAge } from './flock.js';
import { followRecord, type FollowRow, type PauseReason } from './follow-schema.js';
import type { TextParams } from '../../industry/box-text.js';

declare module '../../kernel/context.js' {
  interface Services {
    /** The curve follower of the poultry runtime. */
    curveFollower?: CurveFollower;
  }
}

export const FOLLOW_ACTOR = 'curve-follower';
export const FOLLOW_RULE = 'curve_follow';

/** How far the controller may be from the curve before the box writes (a controller's resolution and more). */
export const DEFAULT_DEADBAND: Readonly<Record<string, number>> = Object.freeze({
  target_temp_c: 0.2, temp_tolerance_c: 0.1, humidity_min_pct: 1, humidity_max_pct: 1, co2_max_ppm: 100, nh3_max_ppm: 1, min_ventilation_pct: 1,
});

/** The most setpoints a pause's title names; the rest are counted ("and 2 more"). */
const NAMED_KEYS = 3;
/** The setpoints of a pause as data for box.follow.*: k1..k3 (the catalogue words them), count and more. */
const keyParams = (keys: readonly string[]): TextParams => ({
  count: Math.min(keys.length, NAMED_KEYS + 1), more: Math.max(0, keys.length - NAMED_KEYS),
  ...Object.fromEntries(keys.slice(0, NAMED_KEYS).map((k, i) => [`k${i + 1}`, k])),
});

export interface TickOutcome {
  house_id: string;
  tenant_id: string;
  action: 'in_band' | 'written' | 'failed' | 'no_flock' | 'not_configured';
  age_days?: number;
  keys?: string[];
  correlation_id?: string;
}

export interface CurveFollower {
  /** One pass over the following houses at the clock's now (houses whose interval has not passed are left). */
  tick(): Promise<TickOutcome[]>;
  /** Takes a device_readings event: what the controller holds (and whether someone changed it). */
  observe(ev: DeviceReadingEvent): Promise<void>;
  /** Resolves when every event and pass handed in so far is done. */
  idle(): Promise<void>;
  /** Runs `fn` between passes and events (a switch must not interleave with a pass's write). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** The values a house's controller was last seen holding (before following was switched on too). */
  heldOf(tenant: string, house: string): { held: Record<string, number>; at: string } | undefined;
}

export { fractionalAge };
/** Now on the box's clock (services.clock: the composition root's, a stepped one in tests). */
export const clockOf = (services: Services): Date => new Date(services.clock.now());


const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const numbers = (o: unknown): Record<string, number> => Object.fromEntries(Object.entries((o ?? {}) as Record<string, unknown>).filter(([, x]) => num(x))) as Record<string, number>;

const INTEGER_TYPES = new Set(['int16', 'uint16', 'int32', 'uint32']);

/** Setpoint key -> the smallest step its Modbus register holds (1 / scale for integer types); BACnet and floats hold any value. */
function resolutions(adapters: readonly AdapterRow[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of adapters) {
    if (a.transport === 'bacnet') continue;
    for (const p of a.points as { key: string; object_type?: string; data_type?: string; scale?: number }[]) {
      if (p.object_type !== 'coil' && INTEGER_TYPES.has(p.data_type ?? 'int16')) out[p.key] = 1 / Math.abs(p.scale ?? 1);
    }
  }
  return out;
}

export function createCurveFollower(services: Services): CurveFollower {
  const db = () => services.db;
  const t = () => tableOf(followRecord.table, db());
  const c = (n: string) => colOf(followRecord.table, db(), n);
  const lastHeld = new Map<string, { held: Record<string, number>; at: string }>();
  let chain: Promise<unknown> = Promise.resolve();
  // One at a time: events, passes and switches. The caller of a switch gets its own refusal; the
  // follower's own failures are logged here, since nobody waits for them.
  const serial = <T>(fn: () => Promise<T>, logged = true): Promise<T> => {
    const p = chain.then(fn);
    chain = p.catch((err: unknown) => {
      if (logged) services.log.error('curve following failed', { error: (err as Error).message });
    });
    return p;
  };

  const rowOf = async (tenant: string, house: string) =>
    ((await db().orm.select().from(t()).where(and(eq(c('tenant_id'), tenant), eq(c('house_id'), house))).limit(1)) as FollowRow[])[0];
  const update = (row: FollowRow, patch: Partial<FollowRow>) => db().orm.update(t()).set(patch as never).where(eq(c('id'), row.id));

  const adaptersOf = async (row: FollowRow): Promise<AdapterRow[]> => {
    const a = (n: string) => colOf(adapterRecord.table, db(), n);
    const rows = (await db().orm.select().from(tableOf(adapterRecord.table, db())).where(and(eq(a('tenant_id'), row.tenant_id), eq(a('unit_id'), row.house_id)))) as AdapterRow[];
    return rows.filter((r) => !row.site_id || r.site_id === null || r.site_id === row.site_id);
  };

  async function pause(row: FollowRow, reason: PauseReason, keys: string[], message: string, correlation_id: string, value: number | null, now: Date, text: { message_key: string | null; params: TextParams }) {
    const raised = await services.industryAlarms?.raise({
      tenant_id: row.tenant_id, site_id: row.site_id, industry_code: 'poultry', unit_id: row.house_id, rule_id: FOLLOW_RULE, metric: FOLLOW_RULE, value,
      severity: 'medium', priority: 'P2', source: 'poultry-curve-follow', message, correlation_id, actor: FOLLOW_ACTOR, now,
      // The setpoints by their keys (the catalogue names them in the reader's language), at most NAMED_KEYS named.
      text: { title_key: 'box.follow.paused.title', message_key: text.message_key, params: { industry: 'poultry', unit: row.house_id, reason, ...keyParams(keys), ...text.params } },
      details: { reason, keys },
    });
    await update(row, { paused: true, pause_reason: reason, pause_message: message, alarm_id: raised?.event.id ?? null, updated_at: now.toISOString() });
    inForceChanged(db());
    await services.audit.record({
      actor: FOLLOW_ACTOR, action: 'poultry-climate.follow-pause', resource: 'poultry-climate', result: 'success', correlation_id, tenant_id: row.tenant_id,
      details: { house_id: row.house_id, reason, keys, message, alarm_id: raised?.event.id ?? null },
    });
  }

  async function observeNow(ev: DeviceReadingEvent): Promise<void> {
    if (ev.industry !== 'poultry') return;
    const held = Object.fromEntries(Object.entries(ev.setpoints).filter(([k, x]) => (SETPOINT_KEYS as readonly string[]).includes(k) && num(x)));
    if (!Object.keys(held).length) return;
    const k = `${ev.tenant_id}\u0000${ev.unit_id}`;
    const merged = { held: { ...(lastHeld.get(k)?.held ?? {}), ...held }, at: ev.at };
    lastHeld.set(k, merged);
    const row = await rowOf(ev.tenant_id, ev.unit_id);
    if (!row) return;
    // A poller reads a house every few seconds: the row is written when the held values change, or
    // when this is the first poll since the box's last write (the pass then trusts the poll).
    const before = numbers(row.held);
    const same = Object.keys(merged.held).length === Object.keys(before).length && Object.entries(merged.held).every(([key, x]) => before[key] === x);
    const fresh = row.held_at !== null && (!row.last_write_at || Date.parse(row.held_at) >= Date.parse(row.last_write_at));
    if (!same || !fresh) await update(row, { held: merged.held, held_at: ev.at });
    if (!row.enabled || row.paused || !row.last_write_at || Date.parse(ev.at) < Date.parse(row.last_write_at)) return;
    // A poll after the box's last write: what the box wrote must still be there.
    const written = numbers(row.last_written);
    const deadband = numbers(row.deadband);
    const changed = Object.keys(written).filter((key) => held[key] !== undefined && Math.abs(held[key]! - written[key]!) > (deadband[key] ?? 0) + 1e-9);
    if (!changed.length) return;
    const message = changed.map((key) => `${key}: the box wrote ${written[key]}, the controller holds ${held[key]}`).join('; ');
    const values = Object.fromEntries(changed.slice(0, NAMED_KEYS).flatMap((key, i) => [[`w${i + 1}`, written[key]!], [`h${i + 1}`, held[key]!]]));
    await pause(row, 'changed_at_controller', changed, message, randomUUID(), held[changed[0]!] ?? null, new Date(ev.at), { message_key: 'box.follow.changed.message', params: values });
  }

  async function follow(row: FollowRow, now: Date): Promise<TickOutcome> {
    const base = { house_id: row.house_id, tenant_id: row.tenant_id };
    const checked = { last_check_at: now.toISOString() };
    const flock = await findFlock(services, row.tenant_id, row.house_id);
    if (!flock || flock.status !== 'active') {
      await update(row, checked);
      return { ...base, action: 'no_flock' };
    }
    const age = fractionalAge(flock.start_date, services, now);
    const curve = curveOfPhases(await publishedPhases(services, row.tenant_id, row.house_id, flock.batch_id), SETPOINT_KEYS);
    const adapters = await adaptersOf(row);
    const heldKeys = new Set(adapters.flatMap((a) => (a.points as { key: string }[]).map((p) => p.key)));
    const target = Object.fromEntries(Object.entries(valuesAt(curve, age)).filter(([k]) => heldKeys.has(k)));
    if (!Object.keys(target).length) {
      await update(row, checked);
      return { ...base, action: 'not_configured', age_days: age };
    }
    // What the controller holds: a poll newer than the last write wins; else what the box wrote
    // (read back when written) wins over an older poll.
    const pollNewer = !row.last_write_at || (row.held_at !== null && Date.parse(row.held_at) >= Date.parse(row.last_write_at));
    const known = pollNewer ? { ...numbers(row.last_written), ...numbers(row.held) } : { ...numbers(row.held), ...numbers(row.last_written) };
    // Drift is judged on the curve itself; what is written is the nearest value the register can
    // hold, so what the box wrote is what the controller holds (and reads back), and a deadband
    // finer than the register never makes the box write the same value again and again.
    const steps = resolutions(adapters);
    const onRegister = (k: string) => (steps[k] ? Math.round(Math.round(target[k]! / steps[k]) * steps[k] * 1000) / 1000 : target[k]!);
    const keys = drifting(target, known, numbers(row.deadband)).filter((k) => onRegister(k) !== known[k]);
    if (!keys.length) {
      await update(row, checked);
      return { ...base, action: 'in_band', age_days: age };
    }
    const values = Object.fromEntries(keys.map((k) => [k, onRegister(k)]));
    const correlation_id = randomUUID();
    const dispatch = await dispatchSetpoints(services, { adapters, values, correlation_id, actor: { id: FOLLOW_ACTOR, role: 'operator', tenant_id: row.tenant_id } });
    const failed = dispatch.status === 'failed';
    await services.audit.record({
      actor: FOLLOW_ACTOR, action: 'poultry-climate.follow-write', resource: 'poultry-climate', result: failed ? 'error' : 'success', correlation_id, tenant_id: row.tenant_id,
      details: {
        house_id: row.house_id, batch_id: flock.batch_id, age_days: Math.round(age * 1000) / 1000, values, held: known, dispatch_status: dispatch.status,
        controller_id: dispatch.controller_id, message: dispatch.message, written: dispatch.written,
      },
    });
    if (failed) {
      await update(row, checked);
      const refused = keys.filter((k) => !dispatch.written.some((w) => w.key === k && w.verified));
      // The field service's own answer stays as it said it; without one the box words it.
      await pause(row, 'write_failed', refused.length ? refused : keys, dispatch.message ?? 'the controller did not accept the write', correlation_id, values[refused[0] ?? keys[0]!] ?? null, now,
        { message_key: dispatch.message ? null : 'box.follow.refused.message', params: {} });
      return { ...base, action: 'failed', age_days: age, keys, correlation_id };
    }
    // The write's time is when it was done: the poller shares the bus queue, so a poll answered
    // after this moment was read after the write and must show it (observeNow judges from here).
    await update(row, { ...checked, last_write_at: clockOf(services).toISOString(), last_written: { ...numbers(row.last_written), ...values }, last_correlation_id: correlation_id });
    return { ...base, action: 'written', age_days: age, keys, correlation_id };
  }

  async function tickNow(): Promise<TickOutcome[]> {
    const now = clockOf(services);
    const rows = (await db().orm.select().from(t()).where(and(eq(c('enabled'), true), eq(c('paused'), false)))) as FollowRow[];
    const out: TickOutcome[] = [];
    for (const row of rows) {
      if (row.last_check_at && now.getTime() - Date.parse(row.last_check_at) < row.interval_s * 1000) continue;
      try {
        out.push(await follow(row, now));
      } catch (err) {
        // One house's trouble (a database hiccup) must not keep the other houses from their curve.
        services.log.error('curve following of a house failed', { tenant_id: row.tenant_id, house_id: row.house_id, error: (err as Error).message });
      }
    }
    return out;
  }

  return {
    tick: () => serial(tickNow),
    observe: (ev) => serial(() => observeNow(ev)),
    idle: () => serial(async () => undefined),
    exclusive: (fn) => serial(fn, false),
    heldOf: (tenant, house) => lastHeld.get(`${tenant}\u0000${house}`),
  };
}

/** Starts following: device_readings feed the follower, a pass every `periodMs` (each house keeps its own interval). */
export function startCurveFollower(services: Services, periodMs: number): { follower: CurveFollower; stop(): Promise<void> } {
  const follower = createCurveFollower(services);
  const off = services.bus.on('device_readings', (ev) => {
    void follower.observe(ev).catch(() => undefined);
  });
  const stopPasses = every(services.clock, periodMs, () => {
    void follower.tick().catch(() => undefined);
  });
  return {
    follower,
    async stop() {
      off();
      stopPasses();
      await follower.idle();
    },
  };
}
