// The annunciator's view of the alarms: every unacknowledged active alarm of every industry this
// person may see (industry-alarms/list?status=active), refreshed when the live feed brings news
// and every 15 s; acknowledging from any screen; silencing the tone on this tablet, audited by the
// box. An acknowledged alarm leaves the annunciator (it stays in the alarm lists while active).
import { ApiError, getList, post, query } from './api';
import { dataTick } from './live';
import { observable } from './store';

export interface ActiveAlarm {
  id: string;
  industry_code: string;
  unit_id: string | null;
  title: string;
  message: string | null;
  priority: string | null;
  severity: string;
  raised_at: string;
}

export interface Annunciation {
  /** Unacknowledged active alarms, newest first; null until loaded or when this person cannot see alarms. */
  alarms: ActiveAlarm[] | null;
  /** Silenced on this tablet until (epoch ms), 0 when sounding is allowed. */
  silencedUntil: number;
}

export const annunciation = observable<Annunciation>({ alarms: null, silencedUntil: 0 });

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

async function refresh(): Promise<void> {
  if (loading) return;
  loading = true;
  try {
    const r = await getList<ActiveAlarm>(`/api/v1/industry-alarms/list${query({ status: 'active', limit: 100, sort: 'raised_at', order: 'desc' })}`);
    annunciation.set({ ...annunciation.get(), alarms: r.data.items });
  } catch (err) {
    // A person who may not read alarms has no annunciator; an unreachable box keeps what it showed.
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) annunciation.set({ ...annunciation.get(), alarms: null });
  } finally {
    loading = false;
  }
}

export function startAnnunciator(): void {
  stopAnnunciator();
  const until = Number(localStorage.getItem(SILENCE_KEY) ?? 0);
  annunciation.set({ alarms: null, silencedUntil: until > Date.now() ? until : 0 });
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

export async function acknowledge(id: string): Promise<void> {
  await post('/api/v1/industry-alarms/commands/ack', { id });
  await refresh();
}

/** Silences this tablet's tone for `minutes`; the box records who, which tablet and which alarms. */
export async function silence(minutes: number): Promise<void> {
  const ids = (annunciation.get().alarms ?? []).map((a) => a.id);
  await post('/api/v1/industry-alarms/commands/silence', { minutes, tablet: tabletId(), alarm_ids: ids });
  const until = Date.now() + minutes * 60_000;
  localStorage.setItem(SILENCE_KEY, String(until));
  annunciation.set({ ...annunciation.get(), silencedUntil: until });
}
