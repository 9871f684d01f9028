// The annunciator's and the inbox's view of the alarms: one merged source (lib/inbox.ts: every
// alarm resource this person may list), refreshed when the live feed brings news and every 15 s.
// The annunciator counts the unacknowledged ones (active, or cleared and waiting for an
// acknowledgement); the inbox lists them all. Acknowledging from any screen; silencing the tone on
// this tablet, audited by the box. On a master, the farms' open P1 alarms are annunciated the same
// way (count, banner, tone), read-only: a farm's alarm is acknowledged at the farm, and leaves the
// count when the farm's box syncs its acknowledgement (the 15 s refresh picks it up).
import { ApiError, post } from './api';
import { ackAlarm, alarmResources, farmTotals, loadInbox, type InboxAlarm } from './inbox';
import { dataTick } from './live';
import { session } from './session';
import { observable } from './store';

export type ActiveAlarm = InboxAlarm;

export interface Annunciation {
  /** Unacknowledged alarms in inbox order (a farm's only when it is a P1); null until loaded or when this person cannot see alarms. */
  alarms: ActiveAlarm[] | null;
  /** The farms' open P1 alarms beyond the page the inbox loaded (counted, not listed); 0 on a box. */
  moreP1: number;
  /** Silenced on this tablet until (epoch ms), 0 when sounding is allowed. */
  silencedUntil: number;
}

export const annunciation = observable<Annunciation>({ alarms: null, moreP1: 0, silencedUntil: 0 });
/** Every alarm in the inbox (unacknowledged or still active), null until loaded / not allowed. */
export const inbox = observable<InboxAlarm[] | null>(null);
/** Set when the last refresh failed (the inbox says so instead of showing nothing). */
export const inboxError = observable<unknown>(null);

const SILENCE_KEY = 'cabinet.silenced_until';
const TABLET_KEY = 'cabinet.tablet_id';
const REFRESH_MS = 15_000;

/** This tablet's name in the audit record: made once, kept in local storage. */
export function tabletId(): string {
  let id = localStorage.getItem(TABLET_KEY);
  if (!id) {
    id = `tablet-${Math.random().toString(36).slice(2, 10)}`;
    localStorage.setItem(TABLET_KEY, id);
  }
  return id;
}

let timer: ReturnType<typeof setInterval> | undefined;
let offTick: (() => void) | undefined;
let pending: ReturnType<typeof setTimeout> | undefined;
let loading = false;
let again = false;

async function refresh(): Promise<void> {
  const s = session.get();
  if (!s) return;
  // One load at a time; a refresh asked for meanwhile (an acknowledgement) runs right after it.
  if (loading) {
    again = true;
    return;
  }
  if (alarmResources(s).length === 0) {
    inbox.set(null);
    annunciation.set({ ...annunciation.get(), alarms: null, moreP1: 0 });
    return;
  }
  loading = true;
  try {
    const all = await loadInbox(s);
    inbox.set(all);
    inboxError.set(null);
    // Shelved and out-of-service alarms are listed, not annunciated; of the farms', the P1s only
    // (a fleet of 1,000 farms would sound all day for every P2).
    const sounding = all.filter((a) => !a.acknowledged && a.state !== 'shelved' && a.state !== 'out-of-service' && (a.farm === null || a.priority === 'P1'));
    const farmP1 = sounding.filter((a) => a.farm !== null).length;
    annunciation.set({ ...annunciation.get(), alarms: sounding, moreP1: Math.max(0, (farmTotals.get()?.openP1 ?? 0) - farmP1) });
  } catch (err) {
    // A person who may not read alarms has no annunciator; an unreachable box keeps what it showed.
    inboxError.set(err);
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) annunciation.set({ ...annunciation.get(), alarms: null });
  } finally {
    loading = false;
    if (again) {
      again = false;
      void refresh();
    }
  }
}

/** Loads now (the inbox screen opening, after an action). */
export const refreshAlarms = refresh;

export function startAnnunciator(): void {
  stopAnnunciator();
  const until = Number(localStorage.getItem(SILENCE_KEY) ?? 0);
  annunciation.set({ alarms: null, moreP1: 0, silencedUntil: until > Date.now() ? until : 0 });
  inbox.set(null);
  void refresh();
  timer = setInterval(() => void refresh(), REFRESH_MS);
  // Status events (an alarm raised, acknowledged, cleared) come in bursts: one refresh per burst.
  offTick = dataTick.subscribe(() => {
    if (pending) clearTimeout(pending);
    pending = setTimeout(() => void refresh(), 300);
  });
}

export function stopAnnunciator(): void {
  if (timer) clearInterval(timer);
  if (pending) clearTimeout(pending);
  offTick?.();
  timer = undefined;
  pending = undefined;
  offTick = undefined;
}

export async function acknowledge(a: Pick<InboxAlarm, 'resource' | 'id' | 'farm'>): Promise<void> {
  await ackAlarm(a);
  await refresh();
}

/** Silences this tablet's tone for `minutes`; the box records who, which tablet and which alarms. */
export async function silence(minutes: number): Promise<void> {
  const ids = (annunciation.get().alarms ?? []).filter((a) => a.farm === null).map((a) => a.id);
  // The audit record lives with the industry alarms; a person without them silences this tablet only.
  const s = session.get();
  if (s && alarmResources(s).includes('industry-alarms')) await post('/api/v1/industry-alarms/commands/silence', { minutes, tablet: tabletId(), alarm_ids: ids });
  const until = Date.now() + minutes * 60_000;
  localStorage.setItem(SILENCE_KEY, String(until));
  annunciation.set({ ...annunciation.get(), silencedUntil: until });
}
