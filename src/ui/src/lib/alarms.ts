// The annunciator's and the inbox's view of the alarms: one merged source (lib/inbox.ts: every
// alarm resource this person may list), refreshed when the live feed brings news and every 15 s.
// The annunciator counts the unacknowledged ones (active, or cleared and waiting for an
// acknowledgement); the inbox lists them all. Acknowledging from any screen; silencing the tone on
// this tablet, audited by the box.
import { ApiError, post } from './api';
import { ackAlarm, alarmResources, loadInbox, type InboxAlarm } from './inbox';
import { dataTick } from './live';
import { session } from './session';
import { observable } from './store';

export type ActiveAlarm = InboxAlarm;

export interface Annunciation {
  /** Unacknowledged alarms in inbox order; null until loaded or when this person cannot see alarms. */
  alarms: ActiveAlarm[] | null;
  /** Silenced on this tablet until (epoch ms), 0 when sounding is allowed. */
  silencedUntil: number;
}

export const annunciation = observable<Annunciation>({ alarms: null, silencedUntil: 0 });
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
    annunciation.set({ ...annunciation.get(), alarms: null });
    return;
  }
  loading = true;
  try {
    const all = await loadInbox(s);
    inbox.set(all);
    inboxError.set(null);
    // Shelved and out-of-service alarms are listed, not annunciated.
    annunciation.set({ ...annunciation.get(), alarms: all.filter((a) => !a.acknowledged && a.state !== 'shelved' && a.state !== 'out-of-service') });
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
  annunciation.set({ alarms: null, silencedUntil: until > Date.now() ? until : 0 });
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

export async function acknowledge(a: Pick<InboxAlarm, 'resource' | 'id'>): Promise<void> {
  await ackAlarm(a);
  await refresh();
}

/** Silences this tablet's tone for `minutes`; the box records who, which tablet and which alarms. */
export async function silence(minutes: number): Promise<void> {
  const ids = (annunciation.get().alarms ?? []).map((a) => a.id);
  // The audit record lives with the industry alarms; a person without them silences this tablet only.
  const s = session.get();
  if (s && alarmResources(s).includes('industry-alarms')) await post('/api/v1/industry-alarms/commands/silence', { minutes, tablet: tabletId(), alarm_ids: ids });
  const until = Date.now() + minutes * 60_000;
  localStorage.setItem(SILENCE_KEY, String(until));
  annunciation.set({ ...annunciation.get(), silencedUntil: until });
}
