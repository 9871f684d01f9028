// The shell's one alarm store: every listed alarm this person may see, as the box's alarm view
// decides it (GET alarm-view/list and /summary), kept current by the `alarm_changed` status events
// (each carries the alarm's new state: applied at once). The list is read again when the live feed
// reconnects and when the summary, read every 30 s, shows another revision than the one held, so a
// missed event cannot leave a stale count. Every element reads this store: the top bar, the banner
// and its tone, the house cards and the house screen, the inbox. The shell never derives
// annunciation itself: `annunciated`, `urgent` and `tone` are the box's.
// Silencing is per alarm and per tablet: the alarms sounding at that moment (their key and
// last_raised_at) are kept quiet until a time; a new P1, or one raised again, sounds.

import { ApiError, getItem, getList, post, query } from './api';
import { t } from './i18n';
import { liveState, type LiveState } from './live';
import { session, type Session } from './session';
import { observable, on, type Observable } from './observable';
import type { AlarmAction, AlarmSummary, AlarmViewItem, StatusEvent } from './types';
// The box's own list order, for an event's alarm placed between two reads of the list.
import { viewOrder } from '../../../industry/alarm-view-item';

export type AlarmItem = AlarmViewItem;
export type { AlarmAction };

export interface AlarmStoreState {
  /** Listed alarms in the box's order; null until read, or when this person cannot read alarms. */
  items: AlarmItem[] | null;
  summary: AlarmSummary | null;
  /** The last read answered and the live feed is up: what the store holds is the box's truth. */
  reachable: boolean;
  /** Since when (epoch ms) the store could not confirm the alarms: the last time it knew them. */
  unknownSince: number | null;
  error: unknown;
}

const API = '/api/v1';
/** The most the list answers at once; past it the top bar counts from the summary. */
export const LIST_LIMIT = 500;
const SUMMARY_MS = 30_000;
/**
 * A master: the farms' alarms arrive with each farm's sync push, which raises no live event there,
 * so the summary is what brings them; read as often as the fleet's list was before (15 s).
 */
const MASTER_SUMMARY_MS = 15_000;

const EMPTY: AlarmStoreState = { items: null, summary: null, reachable: true, unknownSince: null, error: null };
export const alarmStore: Observable<AlarmStoreState> = observable<AlarmStoreState>(EMPTY);

const patch = (p: Partial<AlarmStoreState>) => alarmStore.set({ ...alarmStore.get(), ...p });

/** The item an `alarm_changed` status event carries, checked enough to trust its shape. */
function changedItem(e: StatusEvent): AlarmItem | undefined {
  if (e.event !== 'alarm_changed' || !e.details || typeof e.details !== 'object') return undefined;
  const item = (e.details as { item?: unknown }).item;
  if (!item || typeof item !== 'object') return undefined;
  const a = item as Partial<AlarmItem>;
  return typeof a.key === 'string' && typeof a.state === 'string' && typeof a.resource === 'string' ? (a as AlarmItem) : undefined;
}

/** An event's alarm into the list at once: its new state replaces the old, normal leaves the list. */
export function applyChange(items: AlarmItem[], a: AlarmItem): AlarmItem[] {
  const rest = items.filter((x) => x.key !== a.key);
  if (a.state === 'normal') return rest;
  return [...rest, a].sort(viewOrder);
}

/**
 * A list read and the events that came while it was on the way: each event's item applied in turn,
 * so a change is never lost from the screen while the next read is on its way (a P2 raised during
 * one read and a P1 during the next both stay counted).
 */
export function withChanges(items: AlarmItem[], changes: AlarmItem[]): AlarmItem[] {
  return changes.reduce(applyChange, items);
}

/** May this person read the alarm view? Unknown to an older policy map: try, and a 403/404 says no. */
function mayRead(s: Session): boolean {
  return s.ctx.policy.permissions.api[`api:GET ${API}/alarm-view/list`] !== false;
}

let running = false;
let loading = false;
let again = false;
/**
 * The items of the events that came while a read was on the way, in arrival order. The answer may
 * predate them: they are applied to it again (never dropped, not even for the moment until the
 * next read), and the list is read once more.
 */
let meanwhile: AlarmItem[] = [];
let summaryTimer: ReturnType<typeof setInterval> | undefined;
/** The live feed was up once since start, and then went down (a reconnect reads the list again). */
let seenLive = false;
let dropped = false;
let offs: (() => void)[] = [];

function markUnknown(err: unknown, since?: number): void {
  const st = alarmStore.get();
  patch({ reachable: false, unknownSince: st.unknownSince ?? since ?? Date.now(), error: err });
}

function markKnown(): void {
  patch({ reachable: true, unknownSince: null, error: null });
}

async function load(): Promise<void> {
  const s = session.get();
  if (!s || !running) return;
  if (loading) {
    again = true;
    return;
  }
  if (!mayRead(s)) {
    alarmStore.set({ ...EMPTY });
    return;
  }
  loading = true;
  meanwhile = [];
  try {
    const [list, summary] = await Promise.all([
      getList<AlarmItem>(`${API}/alarm-view/list${query({ limit: LIST_LIMIT })}`),
      getItem<AlarmSummary>(`${API}/alarm-view/summary`).catch(() => null),
    ]);
    if (!running) return;
    if (meanwhile.length) again = true;
    if (list.stale) {
      // The box did not answer: the last list this tablet saw, marked unknown since it was read.
      patch({ items: alarmStore.get().items ?? list.data.items, summary: summary ?? alarmStore.get().summary });
      markUnknown(new ApiError(0, 'offline', t('shell.offline.box')), Date.parse(list.at));
      return;
    }
    patch({ items: withChanges(list.data.items, meanwhile), summary: summary ?? alarmStore.get().summary });
    if (liveState.get() !== 'offline') markKnown();
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) alarmStore.set({ ...EMPTY, error: err });
    else markUnknown(err);
  } finally {
    loading = false;
    if (again && running) {
      again = false;
      void load();
    }
  }
}

/** The summary, every 30 s: a revision other than the one held means the list changed unseen. */
async function checkSummary(): Promise<void> {
  const s = session.get();
  if (!s || !running || !mayRead(s) || loading) return;
  try {
    const summary = await getItem<AlarmSummary>(`${API}/alarm-view/summary`);
    const held = alarmStore.get();
    if (!held.reachable || held.summary?.revision !== summary.revision) await load();
    else patch({ summary });
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) return;
    markUnknown(err);
  }
}

/**
 * What the top bar's live pill says, from the state the shell holds (one truth for every screen):
 * offline while the shell shows kept data; `degraded` while the feed (the WebSocket, or its polling)
 * is up but the alarm store cannot confirm the alarms (reads failing: the count says "Alarms
 * unknown"), since "Live" beside "Alarms unknown" tells an operator two things; else the feed's state.
 */
export type PillState = LiveState | 'degraded';
export function pillState(live: LiveState, stale: boolean, alarms: Pick<AlarmStoreState, 'reachable'>): PillState {
  if (stale) return 'offline';
  if (!alarms.reachable && (live === 'live' || live === 'polling')) return 'degraded';
  return live;
}

/** Reads the list now (a screen opening, after a command). */
export function refreshAlarms(): Promise<void> {
  return load();
}

export function startAlarms(): void {
  stopAlarms();
  running = true;
  seenLive = false;
  dropped = false;
  alarmStore.set({ ...EMPTY });
  void load();
  summaryTimer = setInterval(() => void checkSummary(), session.get()?.ctx.deployment_mode === 'cloud-multi' ? MASTER_SUMMARY_MS : SUMMARY_MS);
  offs = [
    on('status-event', (payload) => {
      const a = changedItem(payload as StatusEvent);
      if (!a) return;
      const st = alarmStore.get();
      if (loading) meanwhile.push(a);
      if (st.items) patch({ items: applyChange(st.items, a) });
    }),
    // The WebSocket reconnected: events may have been missed while it was down. (Its first
    // connection follows the first read, and resumes from the events before it: no second read.)
    liveState.subscribe((state) => {
      if (state === 'live') {
        if (dropped) void load();
        seenLive = true;
        dropped = false;
      } else if (seenLive && state !== 'stopped') {
        dropped = true;
      }
      if (state === 'offline') markUnknown(new ApiError(0, 'offline', t('shell.offline.live')));
    }),
    // Another read answered while the store was cut off: the box is back, read the alarms again.
    on('reachable', (up) => {
      if (up === true && !alarmStore.get().reachable && !loading) void load();
      else if (up === false) markUnknown(new ApiError(0, 'offline', t('shell.offline.box')));
    }),
  ];
}

export function stopAlarms(): void {
  running = false;
  if (summaryTimer) clearInterval(summaryTimer);
  summaryTimer = undefined;
  for (const off of offs) off();
  offs = [];
}

/** The alarm's command applies in its state, the alarm is the box's own, and this role may post it. */
export function mayDo(s: Session, a: AlarmItem, action: AlarmAction): boolean {
  if (a.resource === 'sync-alarms' || !a.applicable.includes(action)) return false;
  return s.ctx.policy.permissions.api[`api:POST ${API}/${a.resource}/commands/${action}`] === true;
}

/** Runs the command on the alarm's own resource (`{id, ...body}`), then reads the list again. */
export async function alarmCommand(a: AlarmItem, action: AlarmAction, body: Record<string, unknown> = {}): Promise<void> {
  if (a.resource === 'sync-alarms') throw new Error(a.farm ? t('alarms.error.atFarmNamed', { farm: a.farm }) : t('alarms.error.atFarm'));
  await post(`${API}/${a.resource}/commands/${action}`, { ...body, id: a.id });
  await load();
}

// ---- the tone: what sounds, and the per-alarm silence of this tablet ----

const SILENCE_KEY = 'cabinet.silence';
const TABLET_KEY = 'cabinet.tablet_id';

/** Alarms silenced on this tablet: each by its key and the raise it was silenced at, until a time. */
export interface Silence { until: number; alarms: { key: string; last_raised_at: string }[] }

function readSilence(): Silence {
  try {
    const raw = JSON.parse(localStorage.getItem(SILENCE_KEY) ?? 'null') as Partial<Silence> | null;
    if (raw && typeof raw.until === 'number' && Array.isArray(raw.alarms) && raw.until > Date.now()) return { until: raw.until, alarms: raw.alarms };
  } catch {
    // a damaged entry silences nothing
  }
  return { until: 0, alarms: [] };
}

export const silence = observable<Silence>(readSilence());

/** This tablet's name in the audit record: made once, kept in local storage. */
export function tabletId(): string {
  let id = localStorage.getItem(TABLET_KEY);
  if (!id) {
    id = `tablet-${Math.random().toString(36).slice(2, 10)}`;
    localStorage.setItem(TABLET_KEY, id);
  }
  return id;
}

/** Silenced here: this very raise of the alarm was sounding when someone silenced the tablet. */
export function isSilenced(a: AlarmItem, s: Silence, now = Date.now()): boolean {
  return s.until > now && s.alarms.some((x) => x.key === a.key && x.last_raised_at === a.last_raised_at);
}

/** The alarms that sound now: urgent, and not silenced at this raise. */
export function soundingAlarms(items: AlarmItem[] | null, s: Silence, now = Date.now()): AlarmItem[] {
  return (items ?? []).filter((a) => a.urgent && !isSilenced(a, s, now));
}

/** Silences the alarms sounding now on this tablet for `minutes`; the box audits who, where and which. */
export async function silenceTone(minutes: number): Promise<void> {
  const now = Date.now();
  const sounding = soundingAlarms(alarmStore.get().items, silence.get(), now);
  const s = session.get();
  // The audit record lives with the industry alarms; a person without that command silences this tablet only.
  if (s && s.ctx.policy.permissions.api[`api:POST ${API}/industry-alarms/commands/silence`] === true) {
    await post(`${API}/industry-alarms/commands/silence`, { minutes, tablet: tabletId(), alarm_ids: sounding.filter((a) => a.resource !== 'sync-alarms').map((a) => a.id) });
  }
  const until = now + minutes * 60_000;
  // Still-silenced alarms of an earlier silence keep their (shorter) quiet only until the new end: one list, one time.
  const kept = silence.get().until > now ? silence.get().alarms.filter((x) => !sounding.some((a) => a.key === x.key)) : [];
  const next: Silence = { until, alarms: [...kept, ...sounding.map((a) => ({ key: a.key, last_raised_at: a.last_raised_at }))] };
  localStorage.setItem(SILENCE_KEY, JSON.stringify(next));
  silence.set(next);
}
