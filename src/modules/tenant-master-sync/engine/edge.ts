// The edge's side of the sync. Alarms and their acks, status events, telemetry batches (as
// per-minute aggregates) and audit records go into the durable outbox in the transaction that
// stores them (the bus's stage phase), so a crash never keeps a record and loses its event, or
// the reverse; heartbeats are appended on their own. A loop logs in to the master with the site
// credential (a passkey, through the ordinary login routes), pulls the master-owned state
// (version policies, module site policies, published industry profiles) and the sync mode, and
// pushes the outbox in bounded batches, oldest first. Master-owned state is applied whenever what
// the box holds differs from what the master sends (a digest per kind, engine/held.ts), whether
// the master changed it or the box did; the box reports what it holds with every request. While
// the master is unreachable it backs off (doubling up to sync_backoff_max_ms); nothing is lost,
// because a row leaves the outbox only after the master answered that it applied it, and the
// master ignores sequence numbers it has.
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Services } from '../../../kernel/context.js';
import type { TelemetryPoint } from '../../../realtime/bus.js';
import { Outbox } from './outbox.js';
import { toColumns } from './columns.js';
import { applyDownState } from './apply.js';
import { basisOf, differing, heldDigests, masterDigests, type Held, type HeldBasis } from './held.js';
import { PUSH_MAX_BYTES, type EventKind, type PullAnswer, type PushAnswer, type ReportedVersions, type UpdateOffer, type UpdateStateReport } from './protocol.js';
import { registryOf } from '../../core/registry/runtime.js';
import pkg from '../../../../package.json' with { type: 'json' };

export interface EdgeSyncStatus {
  state: 'off' | 'starting' | 'live' | 'degraded' | 'stopped';
  master_url: string | null;
  tenant_id: string | null;
  site_id: string | null;
  mode: string | null;
  pending: number;
  oldest_pending_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  failures: number;
  down_revision: string | null;
}

/**
 * The box's updater (module updates) as the sync sees it: what it reports with every request, and
 * the master's offer of every pull answer (null: stay on the running version).
 */
export interface SyncUpdater {
  report(): UpdateStateReport;
  offered(update: UpdateOffer | null): void;
}

/** Fields of the report an older master may refuse as unknown: the box then syncs without them. */
const OPTIONAL_REPORTS = ['versions', 'update_state', 'run_done'] as const;

declare module '../../../kernel/context.js' {
  interface Services {
    /** The edge sync (edge-single with sync_master_url set). */
    edgeSync?: EdgeSync;
  }
}

/** Per-minute aggregates of one telemetry batch (device, metric, minute). */
export function aggregate(points: TelemetryPoint[]) {
  const groups = new Map<string, { device_id: string; metric: string; site_id: string | null; bucket: string; points: number; sum: number; min: number | null; max: number | null; last_status: string; last_ts: string }>();
  for (const p of points) {
    const bucket = `${p.ts.slice(0, 16)}:00.000Z`;
    const key = `${p.device_id}\n${p.metric}\n${bucket}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { device_id: p.device_id, metric: p.metric, site_id: p.site_id, bucket, points: 0, sum: 0, min: null, max: null, last_status: p.status, last_ts: p.ts }));
    g.points++;
    if (p.value !== null) {
      g.sum += p.value;
      g.min = g.min === null ? p.value : Math.min(g.min, p.value);
      g.max = g.max === null ? p.value : Math.max(g.max, p.value);
    }
    if (p.ts >= g.last_ts) { g.last_ts = p.ts; g.last_status = p.status; }
  }
  return [...groups.values()].map(({ last_ts: _t, ...g }) => g);
}

const AGGREGATES_PER_EVENT = 500;

export class EdgeSync {
  readonly outbox: Outbox;
  private readonly unsubscribe: (() => void)[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private token: { value: string; expires: number } | undefined;
  private lastRtt: number | null = null;
  /** The newest forced run (the master's run_requested_at) completed: reported as run_done. */
  private lastRun: string | null = null;
  private basis: HeldBasis | undefined;
  private held: Held | undefined;
  /** Report fields the master refused as unknown (a master older than them): left out from then on. */
  private readonly refused = new Set<string>();
  private updater: SyncUpdater | undefined;
  private readonly started = Date.now();
  private readonly st: EdgeSyncStatus;

  constructor(private readonly services: Services) {
    this.outbox = new Outbox(services.db);
    this.st = {
      state: 'starting', master_url: services.config.sync_master_url || null, tenant_id: null, site_id: null, mode: null,
      pending: 0, oldest_pending_at: null, last_success_at: null, last_error: null, failures: 0, down_revision: null,
    };
  }

  private get cfg() {
    return this.services.config;
  }

  credentialPath(): string {
    const f = this.cfg.sync_credential_file || 'site-credential';
    return isAbsolute(f) ? f : join(this.cfg.data_dir, f);
  }

  async start(): Promise<void> {
    await this.outbox.init();
    this.st.down_revision = (await this.outbox.getState<string>('down_revision')) ?? null;
    this.lastRun = (await this.outbox.getState<string>('last_run')) ?? null;
    this.basis = await this.outbox.getState<HeldBasis>('held_basis');
    const append = async (events: { kind: EventKind; payload: Record<string, unknown> }[]) => { await this.outbox.append(events); };
    // The bus is the composition root's, built before any module: the outbox stages on it from
    // the first record on, audit included.
    const bus = this.services.bus;
    this.unsubscribe.push(bus.onStage('alarm', (e) => append([{ kind: 'alarm', payload: { kind: e.kind, alarm: e.alarm } }])));
    this.unsubscribe.push(bus.onStage('status', (e) => append([{ kind: 'status', payload: { ...e } }])));
    this.unsubscribe.push(bus.onStage('audit', ({ created_at, ...row }) => append([{ kind: 'audit', payload: { ...row, at: created_at } }])));
    this.unsubscribe.push(bus.onStage('telemetry', (points) => {
      const all = aggregate(points);
      const events: { kind: EventKind; payload: Record<string, unknown> }[] = [];
      for (let i = 0; i < all.length; i += AGGREGATES_PER_EVENT) events.push({ kind: 'telemetry', payload: { aggregates: all.slice(i, i + AGGREGATES_PER_EVENT) } });
      return append(events);
    }));
    const beat = () => this.enqueue('heartbeat', { at: new Date().toISOString(), interval_ms: this.cfg.sync_heartbeat_ms, rtt_ms: this.lastRtt, uptime_s: Math.round((Date.now() - this.started) / 1000) });
    beat();
    this.heartbeat = setInterval(beat, this.cfg.sync_heartbeat_ms);
    this.heartbeat.unref();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const u of this.unsubscribe.splice(0)) u();
    await this.running?.catch(() => undefined);
    await this.chain.catch(() => undefined);
  }

  /** Events not tied to a stored record (heartbeats): appended in order; a failed append is logged. */
  enqueue(kind: EventKind, payload: Record<string, unknown>): void {
    this.chain = this.chain.then(() => this.outbox.append([{ kind, payload }])).catch((err: Error) =>
      this.services.log.error('sync outbox append failed', { kind, error: err.message }));
  }

  /** Waits until every event handed to enqueue() so far is in the outbox. */
  flushed(): Promise<void> {
    return this.chain.then(() => undefined);
  }

  async status(): Promise<EdgeSyncStatus> {
    const s = await this.outbox.stats();
    return { ...this.st, pending: s.pending, oldest_pending_at: s.oldest_at };
  }

  /** The updates module registers its updater here (one per box). */
  setUpdater(updater: SyncUpdater | undefined): void {
    this.updater = updater;
  }

  /**
   * A GET of a master path over the site's session (the updater's package chunks): the status and
   * the raw bytes, with the sha256 the master says they have (x-chunk-sha256). A refused session
   * is opened again once.
   */
  async download(path: string): Promise<{ status: number; bytes: Buffer; error: string | null; sha256: string | null }> {
    const base = this.cfg.sync_master_url.replace(/\/+$/, '');
    for (let attempt = 0; ; attempt++) {
      const token = this.token && this.token.expires - Date.now() > 60_000 ? this.token.value : await this.login();
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(this.cfg.sync_request_timeout_ms) });
      const bytes = Buffer.from(await res.arrayBuffer());
      if (res.status === 401 && attempt === 0) { this.token = undefined; continue; }
      let error: string | null = null;
      if (res.status !== 200) {
        try { error = (JSON.parse(bytes.toString('utf8')) as { error?: { message?: string } }).error?.message ?? null; } catch { error = null; }
      }
      return { status: res.status, bytes, error, sha256: res.headers.get('x-chunk-sha256') };
    }
  }

  /** Runs one cycle now (tests, and the CLI), unless one is already running. */
  syncNow(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    return this.cycle();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.cycle(), ms);
    this.timer.unref();
  }

  private cycle(): Promise<void> {
    if (this.running) return this.running;
    this.running = (async () => {
      try {
        await this.once();
        this.st.failures = 0;
        this.st.last_error = null;
        this.st.last_success_at = new Date().toISOString();
        this.schedule(this.cfg.sync_interval_ms);
      } catch (err) {
        this.st.failures++;
        this.st.last_error = (err as Error).message;
        this.st.state = this.st.failures > 3 ? 'stopped' : 'degraded';
        // Doubling back-off with +-20 % jitter, so a fleet does not reconnect in step.
        const base = Math.min(this.cfg.sync_backoff_max_ms, this.cfg.sync_interval_ms * 2 ** Math.min(this.st.failures, 20));
        const wait = Math.round(base * (0.8 + Math.random() * 0.4));
        this.services.log.warn('sync with the master failed; retrying', { error: this.st.last_error, failures: this.st.failures, retry_in_ms: wait });
        this.schedule(wait);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async once(): Promise<void> {
    await this.chain;
    const stats = await this.outbox.stats();
    this.held = await heldDigests(this.services, this.basis);
    const reported = this.held;
    const pulled = await this.call<PullAnswer>('/api/v1/site-sync/commands/pull', this.report(stats.pending, stats.oldest_at));
    this.st.tenant_id = pulled.tenant_id;
    this.st.site_id = pulled.site_id;
    this.st.mode = pulled.mode;
    await this.holdMasterState(pulled);
    try {
      this.updater?.offered(pulled.update ?? null);
    } catch (err) {
      this.services.log.warn('the updater refused the pull answer\'s update', { error: (err as Error).message });
    }
    // The master already holds everything up to applied_seq (an answer lost to a crash). A box
    // whose database was replaced numbers its new events after that, or they would be taken
    // for duplicates.
    if (pulled.applied_seq > 0) {
      await this.outbox.ack(pulled.applied_seq);
      await this.outbox.advanceTo(pulled.applied_seq);
    }
    const forced = pulled.run_requested_at !== null && pulled.run_requested_at !== this.lastRun;
    if (pulled.mode === 'paused' || (pulled.mode === 'manual' && !forced)) {
      // Nothing is pushed, but the master learns at once what the box now holds.
      if (differing(reported, this.held).length) await this.call<PushAnswer>('/api/v1/site-sync/commands/push', { events: [], ...this.report(stats.pending, stats.oldest_at) });
      this.st.state = 'stopped';
      return;
    }
    // A forced run is complete once nothing the outbox held as the box took the request is left
    // in it: what came in since (a heartbeat) does not make the fleet wait for it.
    const heldAtRequest = forced ? ((await this.outbox.ends()).last ?? 0) : 0;
    // Telemetry as columns when the master says it takes them and has not refused them since.
    await this.pushOutbox(pulled.push_after === true, pulled.telemetry_columns === true && !this.refused.has('telemetry'));
    if (forced && ((await this.outbox.ends()).first ?? Infinity) > heldAtRequest) {
      this.lastRun = pulled.run_requested_at;
      await this.outbox.setState('last_run', this.lastRun);
      // The fleet may be waiting for it (commands/run with wait_ms): reported now, not at the
      // next cycle, which in manual mode pushes nothing and would report the newest heartbeat as
      // pending. A run not complete stays forced: the next cycle pushes again.
      const left = await this.outbox.stats();
      await this.call<PushAnswer>('/api/v1/site-sync/commands/push', { events: [], ...this.report(left.pending, left.oldest_at) });
    }
    this.st.state = 'live';
  }

  /**
   * Master wins, always: when what the box holds of a kind differs from what the master sends, the
   * master's state is applied (a local change discarded is audited by applyDownState as
   * sync.conflict), whether or not the master changed it since. A read per kind and lineage when
   * nothing differs. A failure is logged and retried next cycle; it does not hold back the push,
   * and the box goes on reporting what it really holds, so the master does not call it live.
   */
  private async holdMasterState(pulled: PullAnswer): Promise<void> {
    const basis = basisOf(pulled);
    if (JSON.stringify(basis) !== JSON.stringify(this.basis)) {
      this.basis = basis;
      await this.outbox.setState('held_basis', basis);
      this.held = await heldDigests(this.services, basis);
    }
    const want = masterDigests(pulled);
    const stale = differing(this.held, want);
    if (stale.length) {
      try {
        await applyDownState(this.services, pulled);
      } catch (err) {
        this.services.log.warn('applying the master state failed; retrying next cycle', { kinds: stale, error: (err as Error).message });
      }
      this.held = await heldDigests(this.services, basis);
      const left = differing(this.held, want);
      if (left.length) this.services.log.warn('the box does not hold the master state after applying it', { kinds: left });
    }
    if (pulled.revision !== this.st.down_revision) {
      this.st.down_revision = pulled.revision;
      await this.outbox.setState('down_revision', pulled.revision);
    }
  }

  /**
   * Pushes the outbox, batch by batch, until it is empty. While the master applies a batch, the
   * next one is read; it is sent at once when the master reads a push's `after` (`pipelined`: the
   * master then takes it only once the batch before is applied), else after the answer, and only
   * if the master took the batch before whole: a batch after a gap would be taken past the events
   * missing before it. A batch not taken whole (its `after` was not applied) is read again from
   * the oldest event.
   */
  private async pushOutbox(pipelined: boolean, columns: boolean): Promise<void> {
    const path = '/api/v1/site-sync/commands/push';
    // Acknowledges what the master applied; whether it took the batch whole.
    const settle = async (sent: { answer: Promise<PushAnswer>; last: number }) => {
      const answer = await sent.answer;
      if (answer.applied_seq > 0) await this.outbox.ack(answer.applied_seq);
      return answer.applied_seq >= sent.last;
    };
    let next = await this.nextBatch(0, columns);
    // The batch sent before this one whose answer is not read yet (pipelined only).
    let before: { answer: Promise<PushAnswer>; last: number } | undefined;
    for (;;) {
      const { batch, last, remaining, oldest } = next;
      const sent = { answer: this.call<PushAnswer>(path, { ...(before ? { after: before.last } : {}), ...this.report(remaining, oldest) }, batch), last };
      // Read below, after the answer before it; a cycle that fails first must not leave it unhandled.
      sent.answer.catch(() => undefined);
      const more = batch.length > 0 && remaining > 0;
      const ahead = more ? this.nextBatch(last, columns) : undefined;
      ahead?.catch(() => undefined);
      if (before && !(await settle(before))) {
        // The master refuses this batch too (its `after` is not applied): from the oldest event again.
        await settle(sent);
        before = undefined;
        next = await this.nextBatch(0, columns);
        continue;
      }
      before = undefined;
      if (pipelined && ahead) {
        before = sent;
        next = await ahead;
        continue;
      }
      const whole = await settle(sent);
      if (!ahead) break;
      next = whole ? await ahead : await this.nextBatch(0, columns);
    }
  }

  /**
   * The events to push after `after` (0: the oldest) as the JSON text of the push's events array
   * (with `columns`, its telemetry events apart, as the JSON text of their columns: engine/columns.ts),
   * how many wait behind them, and the oldest of those.
   */
  private async nextBatch(after: number, columns: boolean) {
    const { events, nextAt } = await this.outbox.peekWire(this.cfg.sync_batch_max, PUSH_MAX_BYTES, after);
    const last = events[events.length - 1]?.seq ?? after;
    const remaining = nextAt !== null ? await this.outbox.countAfter(last) : 0;
    let batch: { length: number; text: string; telemetry?: string };
    if (columns) {
      const telemetry = events.filter((e) => e.kind === 'telemetry');
      const rest = telemetry.length ? events.filter((e) => e.kind !== 'telemetry') : events;
      batch = { length: events.length, text: `[${rest.map((e) => e.text).join(',')}]`, telemetry: JSON.stringify(toColumns(telemetry)) };
    } else {
      batch = { length: events.length, text: `[${events.map((e) => e.text).join(',')}]` };
    }
    return { batch, last, remaining, oldest: remaining > 0 ? nextAt : null };
  }

  private report(remaining: number, oldest: string | null) {
    return { remaining, oldest_remaining_at: oldest, down_revision: this.st.down_revision, rtt_ms: this.lastRtt, industry_code: this.cfg.industry, ...(this.held ? { held: this.held } : {}), ...(this.refused.has('versions') ? {} : { versions: this.versions() }), ...(this.updater && !this.refused.has('update_state') ? { update_state: this.updater.report() } : {}), ...(this.refused.has('run_done') ? {} : { run_done: this.lastRun }) };
  }

  /** What the box runs, read from the registry at every report (modules are installed and removed at run time). */
  private versions(): ReportedVersions {
    let industryOf = (_id: string): string | null => null;
    try {
      const registry = registryOf(this.services);
      industryOf = (id) => registry.manifest(id)?.industry_code ?? null;
    } catch { /* the static registry (core did not start): the modules are reported without their industry */ }
    const modules = this.services.modules.states().filter((m) => m.installed)
      .map((m) => ({ id: m.id, version: m.version, industry_code: industryOf(m.id) }))
      .sort((a, b) => a.id.localeCompare(b.id));
    return { app: pkg.version, modules };
  }

  // ---------------------------------------------------------------- HTTP

  private credential(): string {
    const file = this.credentialPath();
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      throw new Error(`no site credential at ${file} (issue one on the master: tenant-master-sync/commands/register-site)`);
    }
    // Like ssh with a private key: a credential others can read is refused, not used.
    if (mode & 0o077) throw new Error(`site credential ${file} has mode ${mode.toString(8)}; it must be 0600`);
    return readFileSync(file, 'utf8').trim();
  }

  private async login(): Promise<string> {
    const base = this.cfg.sync_master_url.replace(/\/+$/, '');
    const start = await this.http('POST', `${base}/api/v1/auth/passkey/commands/start`, { method: 'qr' });
    const challenge = (start.body as { item?: { challenge_id?: string } }).item?.challenge_id;
    if (start.status !== 201 || !challenge) throw new Error(`login start answered ${start.status}`);
    const done = await this.http('POST', `${base}/api/v1/auth/passkey/commands/complete`, { challenge_id: challenge, credential: this.credential() });
    const cookie = /cabinet_session=([^;]+)/.exec(done.setCookie ?? '')?.[1];
    if (done.status !== 200 || !cookie) throw new Error(`the master refused the site credential (${done.status})`);
    const expires = Date.parse((done.body as { item?: { expires_at?: string } }).item?.expires_at ?? '') || Date.now() + 600_000;
    this.token = { value: cookie, expires };
    return cookie;
  }

  /**
   * `events`: a push's events as JSON text (nextBatch), sent first in the body as they are, and
   * its telemetry columns' text when it has them.
   */
  private async call<T>(path: string, sent: Record<string, unknown>, events?: { text: string; telemetry?: string }): Promise<T> {
    const base = this.cfg.sync_master_url.replace(/\/+$/, '');
    let body = sent;
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = this.token && this.token.expires - Date.now() > 60_000 ? this.token.value : await this.login();
      const t0 = performance.now();
      const rest = JSON.stringify(body);
      const columns = events?.telemetry !== undefined ? `,"telemetry":${events.telemetry}` : '';
      const res = await this.http('POST', `${base}${path}`, events ? `{"events":${events.text}${columns}${rest === '{}' ? '' : `,${rest.slice(1, -1)}`}}` : rest, token);
      // A push sent before the answer to the one before it also waits for that one's apply: not a round trip.
      if (!('after' in body)) this.lastRtt = Math.round((performance.now() - t0) * 10) / 10;
      if (res.status === 401) { this.token = undefined; continue; }
      const err = (res.body as { error?: { code?: string; message?: string; details?: { field?: string; reason?: string }[] } } | null)?.error;
      // A master older than the versions (or update) report refuses the field: the box syncs
      // without it (the master shows its versions as unknown, and offers no update) instead of not
      // syncing at all.
      const unknown = res.status === 400 ? OPTIONAL_REPORTS.find((f) => f in body && err?.details?.some((d) => d.field === f && d.reason === 'unknown_field')) : undefined;
      if (unknown) {
        this.refused.add(unknown);
        this.services.log.warn(`the master does not take the ${unknown} report (it is older than this box); syncing without it`);
        const { [unknown]: _left, ...rest } = body;
        body = rest;
        attempt--;
        continue;
      }
      // A master that said it takes telemetry columns and refuses them (it was replaced by an
      // older one since the pull): nothing of the push was taken; the cycle fails, and the next
      // one sends the object form (until the box restarts).
      if (res.status === 400 && columns && err?.details?.some((d) => d.field === 'telemetry' && d.reason === 'unknown_field')) {
        this.refused.add('telemetry');
        this.services.log.warn('the master does not take telemetry columns (it is older than this box); pushing telemetry events as objects');
        throw new Error(`${path} answered 400: the master does not take telemetry columns`);
      }
      if (res.status !== 200) {
        throw new Error(`${path} answered ${res.status} ${err?.code ?? ''}: ${err?.message ?? ''}`.trim());
      }
      return (res.body as { item: T }).item;
    }
    throw new Error('the master did not accept a fresh session');
  }

  /** `body`: a value, or JSON text already made (call). */
  private async http(method: string, url: string, body: unknown, token?: string) {
    const res = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(this.cfg.sync_request_timeout_ms),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try { parsed = text ? JSON.parse(text) : null; } catch { parsed = null; }
    return { status: res.status, body: parsed, setCookie: res.headers.get('set-cookie') };
  }
}
