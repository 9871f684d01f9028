// The alarm relay and the box watchdog (issue 22, item 5).
//
// siren: energised while an annunciated industry alarm of its priorities with its condition active
//   exists on the box's tenant (the stored `annunciated`, which alarm-states.ts decides in the
//   transaction of every change: not acknowledged, neither shelved nor out of service), released
//   when the last one is acknowledged, cleared, shelved or taken out of service. Driven on every
//   alarm event on the bus (every state change is one), re-asserted every period_s as a safety net
//   (an I/O module that rebooted has lost its coil). A shelve of its priorities ends at its own
//   instant: the relay ends it then (expireShelves) rather than at the escalator's next pass.
// watchdog: toggled every period_s while the box is healthy (the tick came on time, so the event
//   loop answers, and the database answers `select 1`), so that an external dialler sounds when the
//   box stops.
// Every write is a field-service request (its bus queue, read-back verification, one audit record
// with a correlation id). A write that fails raises a P1 industry alarm in farm words (rule
// alarm-relay:<output>), cleared by the next write that succeeds.
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import type { FieldService } from '../../field/index.js';
import type { IndustryAlarmService } from '../../industry/alarm-service.js';
import { industryAlarmEvents, INDUSTRY_CODES, type AlarmEventRow } from '../../industry/alarm-schema.js';
import { colOf, tableOf } from '../../db/sql.js';
import { siteOf, type BoxIdentity } from '../../runtime/first-run.js';
import { alarmRelayOutputs, OUTPUTS, type OutputName, type OutputRow } from './schema.js';
import { describeOutput, outputParams, writeRequest } from './output.js';

export const ACTOR = 'alarm-relay';
export const failureRule = (output: OutputName) => `${ACTOR}:${output}`;
/** A watchdog tick later than this means the event loop is not answering: no toggle. */
export const LOOP_LATE_MS = 2000;
/** The database must answer `select 1` within this to count as healthy. */
export const DB_DEADLINE_MS = 2000;

export interface OutputState {
  output: OutputName;
  /** The state last written and verified; null before the first good write. */
  energised: boolean | null;
  /** siren: unacknowledged active alarms of its priorities at the last drive. */
  driving_alarms: number;
  /** watchdog: whether the last tick found the box healthy (null before the first tick). */
  healthy: boolean | null;
  /** The output does not answer: its P1 alarm is open. */
  failing: boolean;
  /** While failing: since when (the open drive-failure alarm's raise, which may be older than this run). */
  failing_since: string | null;
  /** While failing: the open drive-failure alarm (industry-alarms id), so a screen can point at it. */
  alarm_id: string | null;
  last_write_at: string | null;
  last_ok_at: string | null;
  last_error: string | null;
  /** siren: a test pulse holds it energised until then. */
  pulse_until: string | null;
}

export interface AlarmRelay {
  /** The box's tenant and site, or undefined in cloud-multi (the relay is an edge box's). */
  box(): BoxIdentity | undefined;
  config(output: OutputName): OutputRow | undefined;
  state(output: OutputName): OutputState;
  /** Re-reads the settings (after configure): restarts the timers and drives both outputs now. */
  reload(): Promise<void>;
  /** Energises the siren for `seconds` whatever the alarms; answers the first write's outcome. */
  pulse(seconds: number, correlationId: string): Promise<{ ok: boolean; message: string | null }>;
}

declare module '../../kernel/context.js' {
  interface Services {
    alarmRelay?: AlarmRelay;
  }
}

interface Deps {
  services: Readonly<Services>;
  field: FieldService;
  industryAlarms: IndustryAlarmService;
}

const blank = (output: OutputName): OutputState => ({ output, energised: null, driving_alarms: 0, healthy: null, failing: false, failing_since: null, alarm_id: null, last_write_at: null, last_ok_at: null, last_error: null, pulse_until: null });

/** Serialises runs of one job; a request while one runs makes exactly one more run afterwards. */
function coalesced(run: () => Promise<void>, onError: (err: Error) => void) {
  let busy: Promise<void> | null = null;
  let again = false;
  const kick = (): Promise<void> => {
    if (busy) {
      again = true;
      return busy;
    }
    busy = (async () => {
      do {
        again = false;
        await run().catch(onError);
      } while (again);
    })().finally(() => {
      busy = null;
    });
    return busy;
  };
  return { kick, idle: () => busy ?? Promise.resolve() };
}

export function createAlarmRelay({ services, field, industryAlarms }: Deps) {
  const { log } = services;
  const box = siteOf(services.config);
  const industry = (INDUSTRY_CODES as readonly string[]).includes(services.config.industry) ? (services.config.industry as AlarmEventRow['industry_code']) : 'poultry';
  const rows = new Map<OutputName, OutputRow>();
  const states = new Map<OutputName, OutputState>(OUTPUTS.map((o) => [o, blank(o)]));
  const st = (o: OutputName) => states.get(o)!;
  /** Whether an open failure alarm may be left from an earlier run: the first good write clears it. */
  const maybeFailing = new Set<OutputName>(OUTPUTS);
  let stopped = false;
  let sirenTimer: NodeJS.Timeout | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  /** The shelve end the expiry timer is set for (ms), so a drive that finds the same one leaves it. */
  let expiryAt: number | undefined;
  let pulseTimer: NodeJS.Timeout | undefined;
  let watchdogTimer: NodeJS.Timeout | undefined;
  let pendingCorrelation: string | undefined;
  let pulseUntil = 0;
  let watchdogValue = false;
  let watchdogTick: Promise<void> = Promise.resolve();
  /** Bumped by every reload: the timers of older settings stop rescheduling themselves. */
  let generation = 0;
  const offs: (() => void)[] = [];

  /** Writes one output through the field service; raises or clears its drive-failure alarm. */
  async function write(output: OutputName, row: OutputRow, on: boolean, correlationId: string, audited = false): Promise<{ ok: boolean; message: string | null }> {
    const s = st(output);
    s.last_write_at = new Date().toISOString();
    // Audited when the siren changes state; watchdog toggles and re-asserts of an unchanged siren
    // (8,640 and 1,440 writes a day at the defaults) only when they fail: the box's audit is on a
    // small eMMC and those records would say nothing the output's state does not.
    // An admin's test pulse is always audited under its command's correlation id, even when a
    // re-assert that saw the pulse starting has energised the siren a moment before.
    const routine = !audited && (output === 'watchdog' || s.energised === on);
    const result = await field.execute(writeRequest(row, on), { id: ACTOR, role: 'system', tenant_id: row.tenant_id }, correlationId, { audit: routine ? 'failures' : 'always' });
    if (result.ok) {
      s.energised = on;
      s.last_ok_at = new Date().toISOString();
      s.last_error = null;
      s.failing_since = null;
      s.alarm_id = null;
      if (s.failing || maybeFailing.has(output)) {
        maybeFailing.delete(output);
        s.failing = false;
        await industryAlarms.clear({ tenant_id: row.tenant_id, industry_code: industry, unit_id: null, rule_id: failureRule(output), actor: ACTOR });
      }
      return { ok: true, message: null };
    }
    const message = result.messages.join('; ');
    s.last_error = message;
    // A write cut short by the box's own stop is not the module's failure.
    if (stopped) return { ok: false, message };
    if (!s.failing) {
      s.failing = true;
      log.warn('alarm relay: output does not answer', { output, target: describeOutput(row), error: message, correlation_id: correlationId });
    }
    const { event } = await industryAlarms.raise({
      tenant_id: row.tenant_id, site_id: row.site_id, industry_code: industry, unit_id: null, rule_id: failureRule(output), metric: 'alarm_relay',
      severity: 'critical', priority: 'P1', source: ACTOR,
      // The output and the field service's answer as data; the box words them in each reader's language.
      text: { title_key: 'box.relay.failed.title', message_key: 'box.relay.failed.message', params: { output, ...outputParams(row), error: message } },
      correlation_id: correlationId, details: { output, target: describeOutput(row), error: message }, actor: ACTOR,
    });
    s.failing_since ??= event.raised_at;
    s.alarm_id = event.id;
    return { ok: false, message };
  }

  /** The alarms of these priorities on the tenant the siren may concern (the siren's own failure left out: it cannot sound itself). */
  function candidates(tenant: string, priorities: readonly string[]): SQL[] {
    const c = (n: string) => colOf(industryAlarmEvents, services.db, n);
    return [eq(c('tenant_id'), tenant), eq(c('condition'), 'active'), inArray(c('priority'), [...priorities]), or(isNull(c('rule_id')), ne(c('rule_id'), failureRule('siren')))!];
  }

  /** Annunciated alarms of these priorities whose condition is active: the stored decision, not derived again here. */
  async function drivingAlarms(tenant: string, priorities: readonly string[]): Promise<number> {
    if (priorities.length === 0) return 0;
    const { db } = services;
    // Not a latched alarm whose readings returned: it waits for a reset, but the process is back, and it does not sound on the tablets either (urgent is false).
    const conds = [...candidates(tenant, priorities), eq(colOf(industryAlarmEvents, db, 'annunciated'), true), isNull(colOf(industryAlarmEvents, db, 'returned_at'))];
    const [row] = (await db.orm.select({ n: sql<number | string>`count(*)` }).from(tableOf(industryAlarmEvents, db)).where(and(...conds))) as { n: number | string }[];
    return Number(row?.n ?? 0);
  }

  /** When the next shelve of an unacknowledged alarm of these priorities ends (ms), if any. */
  async function nextShelveEnd(tenant: string, priorities: readonly string[]): Promise<number | undefined> {
    if (priorities.length === 0) return undefined;
    const { db } = services;
    const c = (n: string) => colOf(industryAlarmEvents, db, n);
    const [row] = (await db.orm.select({ until: c('shelved_until') }).from(tableOf(industryAlarmEvents, db))
      .where(and(...candidates(tenant, priorities), eq(c('shelved'), true), isNull(c('acked_at'))))
      .orderBy(asc(c('shelved_until'))).limit(1)) as { until: string | null }[];
    return row?.until ? Date.parse(row.until) : undefined;
  }

  /**
   * Ends the shelve at its instant. The escalator ends expired shelves too, but only at its next
   * pass (alarm_escalation_interval_ms, 15 s by default): a shelved P1 must sound again when its
   * time is up. expireShelves is conditional, so whichever comes first ends it, once; its
   * shelve_expired event drives the siren like any other.
   */
  function armExpiry(at: number | undefined, gen: number): void {
    if (at === expiryAt) return;
    clearTimeout(expiryTimer);
    expiryAt = at;
    if (at === undefined || stopped) return;
    expiryTimer = setTimeout(() => {
      // expiryAt stays: a drive that still finds this end (the shelve not ended after all) does not
      // arm it again at once; the escalator's pass is left to end it.
      if (stopped || gen !== generation) return;
      void industryAlarms.expireShelves(new Date()).then(() => siren.kick(), (err: Error) => {
        log.error('alarm relay: ending an expired shelve failed', { error: err.message });
        void siren.kick();
      });
      // setTimeout fires a moment early at times; the time compared is the database's string.
    }, Math.max(0, at - Date.now()) + 5);
  }

  async function driveSiren(): Promise<void> {
    const row = rows.get('siren');
    if (stopped || !row?.enabled) return;
    const correlation = pendingCorrelation ?? randomUUID();
    pendingCorrelation = undefined;
    const gen = generation;
    const [driving, shelveEnd] = await Promise.all([drivingAlarms(row.tenant_id, row.priorities), nextShelveEnd(row.tenant_id, row.priorities)]);
    armExpiry(shelveEnd, gen);
    const pulsing = pulseUntil > Date.now();
    await write('siren', row, driving > 0 || pulsing, correlation);
    // Set with the write's outcome, so that the list never shows a count beside an older state.
    const s = st('siren');
    s.driving_alarms = driving;
    s.pulse_until = pulsing ? new Date(pulseUntil).toISOString() : null;
  }
  const siren = coalesced(driveSiren, (err) => log.error('alarm relay: driving the siren failed', { error: err.message }));

  async function dbAnswers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<boolean>((r) => { timer = setTimeout(() => r(false), DB_DEADLINE_MS); });
    try {
      return await Promise.race([services.db.rows(sql`select 1 as one`).then(() => true, () => false), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One watchdog tick at its planned instant: toggles only when the box is healthy. */
  async function tickWatchdog(planned: number): Promise<void> {
    const row = rows.get('watchdog');
    if (stopped || !row?.enabled) return;
    const late = Date.now() - planned;
    const healthy = late <= LOOP_LATE_MS && (await dbAnswers());
    if (!healthy) return unhealthy(late);
    st('watchdog').healthy = true;
    const next = !watchdogValue;
    const out = await write('watchdog', row, next, randomUUID());
    if (out.ok) watchdogValue = next;
  }

  function unhealthy(lateMs: number): void {
    const s = st('watchdog');
    if (s.healthy !== false) log.warn('alarm relay: the box is not healthy; the watchdog stops toggling', { late_ms: lateMs });
    s.healthy = false;
  }

  function scheduleWatchdog(planned: number, gen = generation): void {
    const row = rows.get('watchdog');
    // A reload started a new clock: a tick of the old one that was running ends here.
    if (stopped || !row?.enabled || gen !== generation) return;
    watchdogTimer = setTimeout(() => {
      watchdogTick = tickWatchdog(planned).catch((err: Error) => log.error('alarm relay: watchdog tick failed', { error: err.message })).finally(() => {
        const period = (rows.get('watchdog')?.period_s ?? 10) * 1000;
        // The next instant from the planned one (no drift); after a stall, from now (no burst).
        const next = planned + period;
        const overdue = Date.now() - next;
        // A stall that began while this tick's write was in flight passed a whole instant unseen
        // by any tick: it is judged here as that tick would have been (no toggle happened in it).
        if (overdue > LOOP_LATE_MS && !stopped && gen === generation) unhealthy(overdue);
        scheduleWatchdog(overdue < 0 ? next : Date.now() + period, gen);
      });
    }, Math.max(0, planned - Date.now()));
  }

  function scheduleSiren(gen = generation): void {
    const row = rows.get('siren');
    if (stopped || !row?.enabled || gen !== generation) return;
    sirenTimer = setTimeout(() => {
      void siren.kick().finally(() => scheduleSiren(gen));
    }, row.period_s * 1000);
  }

  async function load(): Promise<void> {
    rows.clear();
    if (!box) return;
    const { db } = services;
    const found = (await db.orm.select().from(tableOf(alarmRelayOutputs, db)).where(eq(colOf(alarmRelayOutputs, db, 'tenant_id'), box.tenant_id))) as OutputRow[];
    for (const r of found) rows.set(r.id, r);
  }

  function clearTimers(): void {
    clearTimeout(sirenTimer);
    clearTimeout(expiryTimer);
    expiryAt = undefined;
    clearTimeout(watchdogTimer);
  }

  const relay: AlarmRelay = {
    box: () => box,
    config: (o) => rows.get(o),
    state: (o) => ({ ...st(o) }),
    async reload() {
      generation++;
      clearTimers();
      await Promise.all([siren.idle(), watchdogTick]);
      await load();
      for (const o of OUTPUTS) {
        // New settings, new state; a failure alarm still open is cleared by the first good write,
        // or now when the output is no longer driven (nothing else would ever clear it).
        if (st(o).failing) maybeFailing.add(o);
        states.set(o, blank(o));
        if (!rows.get(o)?.enabled && maybeFailing.delete(o) && box) {
          await industryAlarms.clear({ tenant_id: box.tenant_id, industry_code: industry, unit_id: null, rule_id: failureRule(o), actor: ACTOR });
        }
      }
      await siren.kick();
      scheduleSiren();
      if (rows.get('watchdog')?.enabled) scheduleWatchdog(Date.now());
    },
    async pulse(seconds, correlationId) {
      const row = rows.get('siren');
      if (!row?.enabled) return { ok: false, message: 'the siren output is not configured' };
      pulseUntil = Date.now() + seconds * 1000;
      clearTimeout(pulseTimer);
      pulseTimer = setTimeout(() => void siren.kick(), seconds * 1000 + 5);
      await siren.idle();
      const s = st('siren');
      s.pulse_until = new Date(pulseUntil).toISOString();
      return write('siren', row, true, correlationId, true);
    },
  };

  return {
    relay,
    async start() {
      if (!box) return;
      offs.push(services.bus.on('alarm', (e) => {
        if (e.alarm.tenant_id !== box.tenant_id || e.alarm.industry_code === undefined) return;
        pendingCorrelation = e.alarm.correlation_id;
        void siren.kick();
      }));
      await relay.reload();
    },
    async stop() {
      stopped = true;
      for (const off of offs) off();
      clearTimers();
      clearTimeout(pulseTimer);
      await Promise.all([siren.idle(), watchdogTick]);
    },
  };
}
