// What must hold before the box hands an update to the installer, besides the package: the
// maintenance window, no unacknowledged P1 alarm, no setpoint write in progress, the package of the
// running version on disk. Each is read live when asked; the runtime asks again on its timer.
import { and, count, eq, inArray } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import { colOf, tableOf } from '../../db/sql.js';
import { industryAlarmEvents } from '../../industry/alarm-schema.js';
import { inWindow, nextOpening, parseWindow } from './window.js';

/** What the box waits for before handing over, in the order the status names them. */
export const WAITS = ['window', 'p1_alarm', 'setpoint_write', 'previous_package'] as const;
export type Wait = (typeof WAITS)[number];

/**
 * Unacknowledged P1 alarms of the box: industry alarm events of priority P1 whose ISA-18.2 state is
 * unacknowledged (active, or back to normal and not yet acknowledged), shelved ones included (a
 * shelve is temporary: the alarm still waits for a person), out-of-service ones left out (their
 * unit is under maintenance: they would hold updates back for as long as it is). Site alarms
 * (`alarms`) have no priority. The same rows the alarm view lists as P1 and not acknowledged.
 */
export async function unacknowledgedP1(services: Pick<Services, 'db'>): Promise<number> {
  const { db } = services;
  const c = (n: string) => colOf(industryAlarmEvents, db, n);
  const [row] = await db.orm.select({ n: count() }).from(tableOf(industryAlarmEvents, db)).where(and(
    eq(c('priority'), 'P1'),
    inArray(c('alarm_state'), ['unacknowledged_active', 'unacknowledged_cleared']),
    eq(c('out_of_service'), false),
  ));
  return Number(row?.n ?? 0);
}

/** Setpoint and other field writes running now (the field service's count; routine watchdog writes left out). */
export function writesInFlight(services: Pick<Services, 'field'>): number {
  return services.field.writesInFlight?.() ?? 0;
}

/** Controllers the poller reads successfully now (link state ok). */
export function answeringControllers(services: Pick<Services, 'poller'>): number {
  return services.poller.snapshot().filter((d) => d.state === 'ok').length;
}

export interface GateReport {
  /** Empty when the box may hand over now. */
  waiting_for: Wait[];
  p1_unacknowledged: number;
  writes_in_flight: number;
  in_window: boolean;
  /** When the window next opens (ISO), null when open or with no window. */
  window_opens_at: string | null;
}

/** Reads every gate now. `previousPresent`: the package of the running version is on disk. */
export async function readGates(services: Pick<Services, 'db' | 'field' | 'config'>, at: number, previousPresent: boolean): Promise<GateReport> {
  const window = parseWindow(services.config.update_window);
  const tz = services.config.site_timezone;
  const open = inWindow(at, window, tz);
  const p1 = await unacknowledgedP1(services);
  const writes = writesInFlight(services);
  const waiting_for: Wait[] = [];
  if (!open) waiting_for.push('window');
  if (p1 > 0) waiting_for.push('p1_alarm');
  if (writes > 0) waiting_for.push('setpoint_write');
  if (!previousPresent) waiting_for.push('previous_package');
  const opens = open ? null : nextOpening(at, window, tz);
  return { waiting_for, p1_unacknowledged: p1, writes_in_flight: writes, in_window: open, window_opens_at: opens === null ? null : new Date(opens).toISOString() };
}
