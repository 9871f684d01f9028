// Simulated site boxes for the multi-master test and the fleet benchmark (bench/fleet.ts): each
// is a lightweight client of the real sync protocol, with its own site credential, logging in
// through the passkey routes and pulling and pushing as engine/edge.ts does, with an in-memory
// outbox fed by a site day (telemetry aggregates, status, alarms, audit, heartbeats). Requests go
// to a round-robin of master URLs, one request to the next master, as a load balancer with no
// stickiness would send them; a request that fails (a master gone, a 5xx) is retried at the next.
import type { EventKind, PullAnswer, PushAnswer, WireEvent } from '../../src/modules/tenant-master-sync/engine/protocol.js';
import { PUSH_MAX_BYTES } from '../../src/modules/tenant-master-sync/engine/protocol.js';

/**
 * A typical site's day, in events: a poll cycle every 10 s gives one telemetry event (the
 * per-minute aggregates of that batch, one per device and metric), a few hundred status
 * events, alarms raised and acknowledged, operator audit records, a heartbeat a minute.
 */
export interface SiteDay {
  telemetry: number;
  /** Device-metric pairs per telemetry event (aggregates per event). */
  metrics: number;
  status: number;
  alarm: number;
  audit: number;
  heartbeat: number;
}
export const TYPICAL_SITE_DAY: SiteDay = { telemetry: 8_640, metrics: 12, status: 500, alarm: 120, audit: 1_000, heartbeat: 1_440 };
export const eventsPerDay = (d: SiteDay) => d.telemetry + d.status + d.alarm + d.audit + d.heartbeat;
const KINDS: EventKind[] = ['telemetry', 'status', 'alarm', 'audit', 'heartbeat'];
const DAY_MS = 86_400_000;

export class RoundRobin {
  private i = 0;
  constructor(public urls: string[]) {}
  next(): string {
    return this.urls[this.i++ % this.urls.length]!;
  }
}

/** What the boxes saw, shared by a fleet. */
export class Recorder {
  pushMs: number[] = [];
  pushes = 0;
  /** Requests retried at the next master, and whole cycles that failed (retried after a pause, as the edge does). */
  failures = 0;
  cycleErrors = 0;
  acked = 0;
  duplicates = 0;
  p(q: number): number {
    if (!this.pushMs.length) return 0;
    const s = [...this.pushMs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  }
  reset(): void {
    this.pushMs = [];
    this.pushes = this.failures = this.cycleErrors = this.acked = this.duplicates = 0;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SimBox {
  /** Last sequence number given to an event; the master has applied everything up to `acked`. */
  seq = 0;
  acked = 0;
  outbox: WireEvent[] = [];
  /** Telemetry points and heartbeats generated, to compare with the master's projections. */
  points = 0;
  heartbeats = 0;
  /** The events the master keeps in its inbox (all but telemetry): how many, and the sum of their seqs. */
  inboxed = 0;
  inboxedSeqSum = 0;
  private token: string | undefined;
  private downRevision: string | null = null;
  private lastRtt: number | null = null;
  private readonly nextAt = new Map<EventKind, number>();
  private alarms = 0;

  constructor(
    readonly tenant: string,
    readonly site: string,
    private readonly credential: string,
    private readonly lb: RoundRobin,
    private readonly rec: Recorder,
    private readonly day: SiteDay = TYPICAL_SITE_DAY,
    private readonly timeoutMs = 15_000,
  ) {}

  /** Moves the box's clocks to `t` without queueing the events before it (the box was not running). */
  skipTo(t: number): void {
    for (const [kind, at] of this.nextAt) if (at < t) this.nextAt.set(kind, t + Math.random() * (DAY_MS / this.day[kind]));
  }

  /** Queues the events of the site's day that fall in [from, to) (epoch ms), in time order. */
  generate(from: number, to: number): number {
    const out: { at: number; kind: EventKind }[] = [];
    for (const kind of KINDS) {
      const every = DAY_MS / this.day[kind];
      // Each box starts its clocks at its own phase, so a fleet is not in step.
      let t = this.nextAt.get(kind) ?? from + Math.random() * every;
      for (; t < to; t += every) out.push({ at: t, kind });
      this.nextAt.set(kind, t);
    }
    out.sort((a, b) => a.at - b.at);
    for (const e of out) {
      this.outbox.push({ seq: ++this.seq, kind: e.kind, created_at: new Date(e.at).toISOString(), payload: this.payload(e.kind, e.at) });
      if (e.kind !== 'telemetry') { this.inboxed++; this.inboxedSeqSum += this.seq; }
    }
    return out.length;
  }

  private payload(kind: EventKind, at: number): Record<string, unknown> {
    const iso = new Date(at).toISOString();
    const n = this.seq;
    switch (kind) {
      case 'telemetry': {
        this.points += this.day.metrics;
        const bucket = `${iso.slice(0, 16)}:00.000Z`;
        return {
          aggregates: Array.from({ length: this.day.metrics }, (_, i) => {
            const v = 20 + ((n + i) % 50) / 10;
            return { device_id: `dev-${i >> 2}`, metric: ['temp', 'rh', 'co2', 'nh3'][i % 4], site_id: this.site, bucket, points: 1, sum: v, min: v, max: v, last_status: 'online' };
          }),
        };
      }
      case 'alarm': {
        // Raised, then acknowledged: two events per alarm.
        const a = this.alarms++;
        const ack = a % 2 === 1;
        const id = `${this.site}-A-${a >> 1}`;
        return { kind: ack ? 'acknowledged' : 'raised', alarm: { id, tenant_id: this.tenant, site_id: this.site, severity: 'high', state: ack ? 'acknowledged' : 'open', source: 'rules', title: 'House 2 temperature high', correlation_id: `c-${id}`, raised_at: iso, acknowledged_by: ack ? 'op' : null } };
      }
      case 'status':
        return { id: n, tenant_id: this.tenant, site_id: this.site, source: 'rules', event: 'threshold_crossed', status: 'warn', correlation_id: `c-${n}`, details: { house: 2 }, timestamp: iso };
      case 'audit':
        return { actor: 'op', action: 'setpoint.update', resource: 'climate', result: 'success', correlation_id: `c-${n}`, details: { house: 2, setpoint: 21.5 }, tenant_id: this.tenant, at: iso };
      case 'heartbeat':
        this.heartbeats++;
        return { at: iso, interval_ms: 60_000, rtt_ms: this.lastRtt, uptime_s: Math.round(n / 8) };
    }
  }

  private report(remaining: number, oldest: string | null) {
    return { remaining, oldest_remaining_at: oldest, down_revision: this.downRevision, rtt_ms: this.lastRtt, industry_code: 'poultry' };
  }

  private drop(applied: number): void {
    if (applied <= this.acked) return;
    this.rec.acked += applied - this.acked;
    this.acked = applied;
    let i = 0;
    while (i < this.outbox.length && this.outbox[i]!.seq <= applied) i++;
    this.outbox.splice(0, i);
  }

  /** One sync cycle as the edge runs it: pull, then push the outbox oldest first until it is empty. */
  async cycle(batchMax = 500): Promise<void> {
    const pulled = await this.call<PullAnswer>('/api/v1/site-sync/commands/pull', this.report(this.outbox.length, this.outbox[0]?.created_at ?? null));
    this.downRevision = pulled.revision;
    this.drop(pulled.applied_seq);
    if (pulled.mode !== 'auto') return;
    while (this.outbox.length) {
      const batch: WireEvent[] = [];
      let bytes = 0;
      for (const e of this.outbox) {
        const size = JSON.stringify(e.payload).length + 100;
        if (batch.length >= batchMax || (batch.length && bytes + size > PUSH_MAX_BYTES)) break;
        bytes += size;
        batch.push(e);
      }
      const rest = this.outbox[batch.length];
      const t0 = performance.now();
      const answer = await this.call<PushAnswer>('/api/v1/site-sync/commands/push', { events: batch, ...this.report(this.outbox.length - batch.length, rest?.created_at ?? null) });
      this.rec.pushMs.push(performance.now() - t0);
      this.rec.pushes++;
      this.rec.duplicates += answer.duplicates;
      this.drop(answer.applied_seq);
    }
  }

  /** A cycle whose failure is counted and followed by a pause with jitter, as the edge backs off. */
  async cycleOrBackOff(batchMax = 500, pauseMs = 1_000): Promise<void> {
    try {
      await this.cycle(batchMax);
    } catch {
      this.rec.cycleErrors++;
      await sleep(pauseMs * (0.8 + Math.random() * 0.4));
    }
  }

  /** Pushes events again as a box does when the answer to its push was lost; answers the master's reply. */
  resend(events: WireEvent[]): Promise<PushAnswer> {
    return this.call<PushAnswer>('/api/v1/site-sync/commands/push', { events, ...this.report(this.outbox.length, this.outbox[0]?.created_at ?? null) });
  }

  private async login(): Promise<string> {
    // A completion retried after a timeout finds its challenge used (401): start a new one.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.loginOnce();
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
  }

  private async loginOnce(): Promise<string> {
    // The challenge is started at one master and completed at the next: it lives in the database.
    const start = await this.send('/api/v1/auth/passkey/commands/start', { method: 'qr' });
    const challenge = (start.body as { item?: { challenge_id?: string } }).item?.challenge_id;
    if (start.status !== 201 || !challenge) throw new Error(`login start answered ${start.status}`);
    // Not resent: a completion that timed out may have used the challenge, and a second one is a
    // failed login, which the per-address throttle counts; login() starts a new challenge instead.
    const done = await this.send('/api/v1/auth/passkey/commands/complete', { challenge_id: challenge, credential: this.credential }, undefined, false);
    const cookie = /cabinet_session=([^;]+)/.exec(done.setCookie ?? '')?.[1];
    if (done.status !== 200 || !cookie) throw new Error(`the master refused the site credential (${done.status})`);
    return (this.token = cookie);
  }

  private async call<T>(path: string, body: unknown): Promise<T> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const token = this.token ?? await this.login();
      const t0 = performance.now();
      const res = await this.send(path, body, token);
      this.lastRtt = Math.round((performance.now() - t0) * 10) / 10;
      if (res.status === 401) { this.token = undefined; continue; }
      if (res.status !== 200) {
        const err = (res.body as { error?: { code?: string; message?: string } } | null)?.error;
        throw new Error(`${path} answered ${res.status} ${err?.code ?? ''}: ${err?.message ?? ''}`);
      }
      return (res.body as { item: T }).item;
    }
    throw new Error('no master accepted a fresh session');
  }

  /** One request at the next master; a connection failure, timeout or 5xx is retried at the next one. */
  private async send(path: string, body: unknown, token?: string, retry = true): Promise<{ status: number; body: unknown; setCookie: string | null }> {
    const json = JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      const url = this.lb.next();
      try {
        const res = await fetch(`${url}${path}`, {
          method: 'POST', body: json, signal: AbortSignal.timeout(this.timeoutMs),
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        });
        const text = await res.text();
        if (res.status >= 500) throw new Error(`${res.status} ${text.slice(0, 200)}`);
        return { status: res.status, body: text ? JSON.parse(text) as unknown : null, setCookie: res.headers.get('set-cookie') };
      } catch (err) {
        this.rec.failures++;
        if (!retry || attempt >= 3 * this.lb.urls.length + 5) throw err;
        await sleep(Math.min(500, 20 * 2 ** Math.min(attempt, 5)));
      }
    }
  }
}
