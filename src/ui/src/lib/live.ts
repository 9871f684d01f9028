// The live status feed: the WebSocket GET /api/v1/status/stream (resumed with ?since=<last id>),
// reconnecting with exponential back-off; while it is broken the shell polls status/list over
// HTTP so it keeps updating (contract 6).
import { ApiError, getList, getLoaded, query } from './api';
import { emit, observable } from './observable';
import type { StatusEvent } from './types';
import { pageLocation } from './page';

export type LiveState = 'connecting' | 'live' | 'polling' | 'offline' | 'stopped';

export const liveState = observable<LiveState>('stopped');
export const recentEvents = observable<StatusEvent[]>([]);
/** Increments whenever new data arrived by either path; screens refresh on it. */
export const dataTick = observable(0);

export interface LiveOptions { pollMs?: number; backoffMinMs?: number; backoffMaxMs?: number }

const KEEP = 50;
let ws: WebSocket | undefined;
let lastId = 0;
let attempt = 0;
let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
let pollTimer: ReturnType<typeof setInterval> | undefined;
let running = false;
let opts: Required<LiveOptions> = { pollMs: 3000, backoffMinMs: 1000, backoffMaxMs: 30_000 };

function add(events: StatusEvent[]): void {
  const fresh = events.filter((e) => e.id > lastId).sort((a, b) => a.id - b.id);
  if (!fresh.length) return;
  lastId = fresh[fresh.length - 1]!.id;
  recentEvents.set([...fresh.reverse(), ...recentEvents.get()].slice(0, KEEP));
  dataTick.set(dataTick.get() + 1);
  for (const e of fresh) emit('status-event', e);
}

/** Delay before reconnect attempt n: doubling from min to max, with jitter so tablets spread out. */
export function backoff(n: number, min = opts.backoffMinMs, max = opts.backoffMaxMs): number {
  const base = Math.min(max, min * 2 ** Math.max(0, n));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

let sinceSupported = true;

async function poll(): Promise<void> {
  try {
    // After the first fill: every event after the last one seen (status/list?since=, oldest first),
    // so a burst between two polls is not cut to the page size.
    const url =
      lastId !== 0 && sinceSupported
        ? `/api/v1/status/list${query({ since: Math.max(0, lastId), limit: 500 })}`
        : `/api/v1/status/list${query({ limit: KEEP, sort: 'id', order: 'desc' })}`;
    const r = await getList<StatusEvent>(url).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 400 && url.includes('since=')) {
        sinceSupported = false;
        return getList<StatusEvent>(`/api/v1/status/list${query({ limit: KEEP, sort: 'id', order: 'desc' })}`);
      }
      throw err;
    });
    if (r.stale) {
      liveState.set('offline');
      return;
    }
    if (liveState.get() !== 'live') liveState.set('polling');
    if (lastId === 0) {
      // first fill: the recent history, not flagged as new
      const items = [...r.data.items].sort((a, b) => b.id - a.id);
      recentEvents.set(items);
      lastId = items[0]?.id ?? 0;
      if (!lastId) lastId = -1;
      return;
    }
    add(r.data.items);
  } catch {
    if (liveState.get() !== 'live') liveState.set('offline');
  }
}

function startPolling(): void {
  if (pollTimer || !running) return;
  void poll();
  pollTimer = setInterval(() => void poll(), opts.pollMs);
}

function stopPolling(): void {
  if (pollTimer) clearInterval(pollTimer);
  pollTimer = undefined;
}

function connect(): void {
  if (!running) return;
  liveState.set(pollTimer ? 'polling' : 'connecting');
  const location = pageLocation();
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/status/stream${lastId > 0 ? `?since=${lastId}` : ''}`;
  let socket: WebSocket;
  try {
    socket = new WebSocket(url);
  } catch {
    scheduleReconnect();
    return;
  }
  ws = socket;
  socket.onmessage = (m) => {
    let msg: { type: string; data?: StatusEvent; last_id?: number };
    try {
      msg = JSON.parse(String(m.data)) as typeof msg;
    } catch {
      return;
    }
    if (msg.type === 'ready' || msg.type === 'heartbeat') {
      attempt = 0;
      liveState.set('live');
      stopPolling();
      emit('reachable', true);
    } else if (msg.type === 'event' && msg.data) {
      add([msg.data]);
    }
  };
  socket.onclose = (e) => {
    if (ws !== socket) return;
    ws = undefined;
    if (e.code === 4401) {
      emit('session-ended');
      return;
    }
    if (e.code === 1008) {
      // "session no longer valid": ask who we are; a 401 there ends the session in the shell
      void getLoaded<{ item: { authenticated: boolean } }>('/api/v1/auth/me')
        .then((r) => !r.stale && !r.data.item.authenticated && emit('session-ended'))
        .catch(() => undefined);
    }
    if (!running) return;
    startPolling();
    scheduleReconnect();
  };
  socket.onerror = () => undefined;
}

function scheduleReconnect(): void {
  if (!running || reconnectTimer) return;
  const delay = backoff(attempt++);
  reconnectTimer = setTimeout(() => {
    reconnectTimer = undefined;
    connect();
  }, delay);
}

export async function startLive(options: LiveOptions = {}): Promise<void> {
  stopLive();
  opts = { ...opts, ...options };
  running = true;
  attempt = 0;
  lastId = 0;
  recentEvents.set([]);
  // Recent history first (HTTP), then live from the last id seen.
  await poll();
  if (liveState.get() === 'polling' || liveState.get() === 'offline') liveState.set('connecting');
  connect();
}

export function stopLive(): void {
  running = false;
  stopPolling();
  if (reconnectTimer) clearTimeout(reconnectTimer);
  reconnectTimer = undefined;
  if (ws) {
    const s = ws;
    ws = undefined;
    s.onclose = null;
    s.close();
  }
  liveState.set('stopped');
}
