// The box's updater (edge-single, with a master): learns its target from every pull answer,
// downloads and verifies the package (and the running version's, to go back to), waits for the
// maintenance window and the floor to be quiet, and hands the package to the privileged installer
// through the state file and request.json (state.ts). After the installer restarts it, the new
// version proves itself (ready, its controllers read, a sync completed) and writes done. Every
// step change is an audit record, the installer's too (audited at the next start).
//
// One piece of work runs at a time (kick() coalesces); it runs on each pull answer, on its clock
// timer (the window opening, an alarm acknowledged) and at start. What it decides it writes to the
// state file first, so a restart at any point carries on from the file.
import { readdirSync, readFileSync } from 'node:fs';
import { inArray } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import { colOf, tableOf } from '../../db/sql.js';
import { auditRecords } from '../audit/schema.js';
import semver from '../../runtime/semver.js';
import type { SyncUpdater } from '../tenant-master-sync/engine/edge.js';
import type { UpdateOffer, UpdatePackage, UpdateStateReport } from '../tenant-master-sync/engine/protocol.js';
import { english } from '../../industry/box-text.js';
import { answeringControllers, readGates, type GateReport, type Wait } from './gates.js';
import { fetchPackage, packageOnDisk, removePackage, UpdateError } from './download.js';
import {
  changeStep, debianArch, ensureUpdatesDir, initialState, INSTALLER_STEPS, packagePath, patchState, readState, signaturePath, updatesDir, writeRequest, writeState,
  type ReasonParams, type UpdateHistoryEntry, type UpdateRequest, type UpdateState, type UpdateStep,
} from './state.js';
import pkg from '../../../package.json' with { type: 'json' };

/** How often the updater looks again by itself (the window, alarms, writes), in the box's clock. */
export const RECHECK_MS = 30_000;
/** How often the proof is checked after a start in proving. */
export const PROOF_CHECK_MS = 500;
/** Longest wait before a failed download is tried again (it doubles from 2 s). */
const RETRY_MAX_MS = 10 * 60_000;

const WAIT_REASON: Record<Wait, string> = { window: 'outside_window', p1_alarm: 'p1_unacknowledged', setpoint_write: 'setpoint_write', previous_package: 'no_previous_package' };
/** Steps in which the updater works towards an install (a withdrawn offer sends them back to idle). */
const UNDERWAY: readonly UpdateStep[] = ['downloading', 'verified', 'waiting_for_window'];

export interface UpdaterStatus {
  state: UpdateState;
  running_version: string;
  offer: UpdateOffer | null;
  offered_at: string | null;
  gates: GateReport | null;
  proof: ProofStatus | null;
}

export interface ProofStatus {
  ready: boolean;
  answering: number;
  answering_before: number;
  synced: boolean;
  deadline_at: string | null;
}

declare module '../../kernel/context.js' {
  interface Services {
    /** The box's updater (module updates; edge-single). */
    updater?: Updater;
  }
}

export class Updater implements SyncUpdater {
  readonly version: string;
  readonly arch: string;
  private state: UpdateState;
  private offer: UpdateOffer | null | undefined;
  private offeredAt: string | null = null;
  private gates: GateReport | null = null;
  private proof: ProofStatus | null = null;
  private busy: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: unknown;
  private proofTimer: unknown;
  private retryAt = 0;
  private failures = 0;
  private readonly audited = new Set<string>();
  /** Packages (by sha256) refused in this process: not fetched again. */
  private readonly refused = new Set<string>();
  private auditing: Promise<void> = Promise.resolve();

  constructor(private readonly services: Readonly<Services>, opts: { version?: string; arch?: string } = {}) {
    this.version = opts.version ?? pkg.version;
    this.arch = opts.arch ?? debianArch();
    this.state = initialState(this.arch, new Date(services.clock.now()).toISOString());
  }

  /** The settings this updater runs with (its data directory, window, key). */
  get config(): Services['config'] {
    return this.services.config;
  }

  private get dataDir(): string {
    return this.services.config.data_dir;
  }

  private now(): number {
    return this.services.clock.now();
  }

  async start(): Promise<void> {
    ensureUpdatesDir(this.dataDir);
    try {
      this.state = readState(this.dataDir) ?? this.state;
    } catch (err) {
      // Not a state: reported, and replaced by the next step written (never taken for a hand-off).
      this.services.log.error('the update state file cannot be read; starting from idle', { file: 'updates/state.json in the data directory', error: (err as Error).message });
    }
    await this.audit();
    if (this.state.step === 'proving' && this.state.target_version === this.version) this.startProof();
    this.services.edgeSync?.setUpdater(this);
    this.arm();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.services.clock.clearTimeout(this.timer);
    this.services.clock.clearTimeout(this.proofTimer);
    this.services.edgeSync?.setUpdater(undefined);
    await this.busy?.catch(() => undefined);
    await this.auditing.catch(() => undefined);
  }

  // ------------------------------------------------------------------ the sync's side

  report(): UpdateStateReport {
    const s = this.state;
    return {
      step: s.step, target_version: s.target_version, previous_version: s.previous_version, progress: s.progress, reason: s.reason,
      reason_code: s.reason_code, at: s.at || new Date(this.now()).toISOString(), arch: this.arch, rollout_id: s.rollout_id,
    };
  }

  offered(update: UpdateOffer | null): void {
    this.offer = update;
    this.offeredAt = new Date(this.now()).toISOString();
    this.kick();
  }

  status(): UpdaterStatus {
    return { state: this.state, running_version: this.version, offer: this.offer ?? null, offered_at: this.offeredAt, gates: this.gates, proof: this.proof };
  }

  /** Waits until the work in hand (and any asked for meanwhile) is done: tests, and the status route. */
  async settled(): Promise<void> {
    while (this.busy) await this.busy.catch(() => undefined);
    await this.auditing.catch(() => undefined);
  }

  /** Runs the work now (or once more after the work in hand). */
  kick(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = (async () => {
      try {
        do {
          this.again = false;
          await this.work();
        } while (this.again && !this.stopped);
      } catch (err) {
        this.services.log.error('the updater failed; it tries again', { error: (err as Error).message });
      } finally {
        this.busy = undefined;
      }
    })();
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.services.clock.setTimeout(() => {
      this.arm();
      this.kick();
    }, RECHECK_MS);
  }

  // ------------------------------------------------------------------ the work

  private async work(): Promise<void> {
    const s = this.refresh();
    // The installer's steps: nothing to do but wait (proving is the proof's).
    if (INSTALLER_STEPS.includes(s.step)) return;
    const cfg = this.services.config;
    if (!cfg.updates_enabled) return this.hold('updates_disabled', {});
    if (!cfg.sync_master_url || !this.services.edgeSync) return this.hold('no_master', {});
    const key = this.releaseKey();
    if (typeof key !== 'string') return this.hold(key.code, key.params);
    // No pull answered yet since start: a download under way waits for the master, nothing else moves.
    if (this.offer === undefined) return;
    const offer = this.offer && this.offer.arch === this.arch ? this.offer : null;
    // A version that rolled back or failed here is not tried again by itself (the installer also lists it in given_up).
    const givenUp = offer && (s.given_up.includes(offer.version) || ((s.step === 'rolled_back' || s.step === 'failed') && s.target_version === offer.version));
    if (!offer || offer.version === this.version || givenUp) {
      // A version given up here needs no bytes on disk (a rolled-back install left its package).
      if (givenUp && offer && offer.version !== this.version) removePackage(this.dataDir, offer.version, this.arch);
      if (UNDERWAY.includes(s.step)) {
        const was = s.target_version;
        if (was) removePackage(this.dataDir, was, this.arch);
        await this.step('idle', offer?.version === this.version ? null : 'withdrawn', { version: was ?? '' }, { target_version: null, progress: 0, rollout_id: null });
      } else if (s.step === 'idle' && s.reason_code) {
        await this.step('idle', null, {});
      }
      return;
    }
    if (!semver.valid(offer.version) || semver.lt(offer.version, this.version)) {
      return this.hold('downgrade_refused', { version: offer.version, running: this.version });
    }
    // A new target replaces one under way (the fleet moved on): its files go.
    if (s.target_version && s.target_version !== offer.version && UNDERWAY.includes(s.step)) removePackage(this.dataDir, s.target_version, this.arch);
    if (this.wants(offer).length) {
      if (this.now() < this.retryAt) return;
      const ok = await this.download(offer, key);
      if (!ok) return;
    }
    const previous = packageOnDisk(this.dataDir, this.version, this.arch);
    const fields = { target_version: offer.version, previous_version: this.version, rollout_id: offer.rollout_id, progress: 1 };
    if (this.refresh().step !== 'verified' && this.state.step !== 'waiting_for_window') await this.step('verified', null, {}, fields);
    const gates = await readGates(this.services, this.now(), previous);
    this.gates = gates;
    const first = gates.waiting_for[0];
    if (first) {
      const params: ReasonParams = first === 'window' ? { window: cfg.update_window, timezone: cfg.site_timezone }
        : first === 'p1_alarm' ? { n: gates.p1_unacknowledged } : first === 'previous_package' ? { version: this.version } : {};
      return this.step('waiting_for_window', WAIT_REASON[first], params, fields);
    }
    await this.handOver(offer);
  }

  /** The packages of an offer still to fetch: the target, and the running version's when the master has it. */
  private wants(offer: UpdateOffer): UpdatePackage[] {
    const wanted: UpdatePackage[] = [offer];
    if (offer.previous && offer.previous.version === this.version && offer.previous.arch === this.arch) wanted.push(offer.previous);
    return wanted.filter((p) => !packageOnDisk(this.dataDir, p.version, p.arch) && !this.refused.has(p.sha256));
  }

  /** Downloads the target and the running version's package (when the master has it); false when it stopped. */
  private async download(offer: UpdateOffer, key: string): Promise<boolean> {
    const edge = this.services.edgeSync;
    if (!edge) return false;
    const missing = this.wants(offer);
    const total = missing.reduce((n, p) => n + p.chunks, 0) || 1;
    let before = 0;
    const fields = { target_version: offer.version, previous_version: this.version, rollout_id: offer.rollout_id };
    try {
      for (const p of missing) {
        let written = -1;
        let writtenAt = 0;
        try {
          await fetchPackage(this.dataDir, p, key, (path) => edge.download(path), (progress) => {
            const value = Math.min(0.999, (before + progress.done) / total);
            if (this.state.step !== 'downloading') {
              this.state = changeStep(this.dataDir, { step: 'downloading', by: 'service', running_version: this.version, at: this.iso(), patch: { ...fields, progress: value } });
              written = value;
              void this.audit();
              return;
            }
            // The report reads memory; the file follows at every tenth, and at most once a second between.
            this.state = { ...this.state, progress: value, reason: null, reason_code: null, reason_params: null };
            const t = Date.now();
            if (Math.floor(value * 10) !== Math.floor(written * 10) || t - writtenAt >= 1000) {
              written = value;
              writtenAt = t;
              this.state = patchState(this.dataDir, { progress: value, reason: null, reason_code: null, reason_params: null }) ?? this.state;
            }
          });
        } catch (err) {
          if (err instanceof UpdateError && err.refused) this.refused.add(p.sha256);
          throw err;
        }
        before += p.chunks;
      }
      this.failures = 0;
      this.retryAt = 0;
      return true;
    } catch (err) {
      const e = err instanceof UpdateError ? err : new UpdateError('download_failed', { chunk: 0, chunks: total, error: (err as Error).message }, (err as Error).message);
      const target = e.params.version === undefined || e.params.version === offer.version;
      if (e.refused && target) {
        // The target's bytes are not what the fleet team signed: refused, never handed over, not tried again.
        this.services.log.error('an update package was refused', { version: offer.version, reason: e.message });
        await this.step('failed', e.code, e.params, { ...fields, progress: 0, given_up: [...new Set([...this.state.given_up, offer.version])] });
        return false;
      }
      if (e.refused) {
        // The running version's package was refused: the update waits for one to go back to.
        this.services.log.error('the package of the running version was refused', { version: this.version, reason: e.message });
        return true;
      }
      this.failures++;
      this.retryAt = this.now() + Math.min(RETRY_MAX_MS, 2_000 * 2 ** Math.min(this.failures - 1, 12));
      this.services.log.warn('an update download stopped; it resumes later', { version: offer.version, reason: e.message, retry_at: new Date(this.retryAt).toISOString() });
      await this.step('downloading', e.code, e.params, fields);
      return false;
    }
  }

  /** Writes the hand-off: the state (installing) first, then request.json, which starts the installer. */
  private async handOver(offer: UpdateOffer): Promise<void> {
    const cfg = this.services.config;
    const dir = this.dataDir;
    const request: UpdateRequest = {
      package: packagePath(dir, offer.version, this.arch), signature: signaturePath(dir, offer.version, this.arch), version: offer.version, arch: this.arch,
      previous_package: packagePath(dir, this.version, this.arch), previous_signature: signaturePath(dir, this.version, this.arch), previous_version: this.version,
      proof_timeout_s: proofTimeout(offer) ?? cfg.update_proof_timeout_s,
      answering_controllers_before: answeringControllers(this.services),
      rollout_id: offer.rollout_id, requested_at: this.iso(),
    };
    await this.step('installing', 'handed_over', {}, { target_version: offer.version, previous_version: this.version, rollout_id: offer.rollout_id, request, deadline_at: null, progress: 1 });
    writeRequest(dir, request);
    this.services.log.info('update handed to the installer', { version: offer.version, previous_version: this.version, proof_timeout_s: request.proof_timeout_s });
  }

  /** Idle with a reason (no key, switched off, a downgrade offered) unless an install is under the installer. */
  private async hold(code: string, params: ReasonParams): Promise<void> {
    const s = this.state;
    if (s.step !== 'idle' && !UNDERWAY.includes(s.step)) {
      // done / rolled_back / failed stay as they are (the master counts them); the reason is not news.
      return;
    }
    await this.step('idle', code, params, UNDERWAY.includes(s.step) ? { progress: 0 } : {});
  }

  /** The release key's PEM, or why there is none. */
  private releaseKey(): string | { code: string; params: ReasonParams } {
    const path = this.services.config.release_public_key;
    if (!path) return { code: 'no_release_key', params: {} };
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      return { code: 'release_key_unreadable', params: { path, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message } };
    }
  }

  // ------------------------------------------------------------------ state and audit

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** The state as on disk now (the installer may have written it). */
  private refresh(): UpdateState {
    try {
      const s = readState(this.dataDir);
      if (s) this.state = s;
    } catch { /* kept from memory; the error was logged at start */ }
    return this.state;
  }

  /**
   * Moves to a step (a history entry and an audit record) or, when only the reason or fields change
   * within the step, updates the file without either. Nothing is written when nothing changed.
   */
  private async step(step: UpdateStep, code: string | null, params: ReasonParams, patch: Partial<UpdateState> = {}): Promise<void> {
    const s = this.state;
    const changed = Object.entries(patch).some(([k, v]) => JSON.stringify(s[k as keyof UpdateState]) !== JSON.stringify(v));
    if (s.step === step && s.reason_code === code && JSON.stringify(s.reason_params ?? {}) === JSON.stringify(code ? params : {}) && !changed) return;
    // Worded only when written: a restart in the same step (idle, no master) reads no catalogue and
    // builds no formatter, which held the English catalogue and ICU's data in the idle box's memory.
    const reason = code ? english(this.services).t(`updates.reason.${code}`, params) : null;
    if (s.step === step) {
      // The first reason of a box that never had a state file (idle, no release key) creates it.
      const next: UpdateState = { ...s, ...patch, reason, reason_code: code, reason_params: code ? params : null, at: s.at || this.iso() };
      writeState(this.dataDir, next);
      this.state = next;
      return;
    }
    this.state = changeStep(this.dataDir, { step, by: 'service', running_version: this.version, reason, reason_code: code, reason_params: code ? params : null, at: this.iso(), patch });
    await this.audit();
  }

  /** Audits the history entries not audited yet; one pass at a time, so none is audited twice. */
  private audit(): Promise<void> {
    this.auditing = this.auditing.then(() => this.auditHistory()).catch((err: Error) => this.services.log.error('update audit failed', { error: err.message }));
    return this.auditing;
  }

  /**
   * One audit record per history entry, once: entries already audited (in this process, or found
   * by their correlation id in the audit records, a previous run's) are skipped. The installer's
   * entries, written while the service was down, are audited here at the next start.
   */
  private async auditHistory(): Promise<void> {
    const entries = this.state.history.filter((h) => !this.audited.has(h.id));
    if (!entries.length) return;
    const { db } = this.services;
    const ids = entries.map((h) => `update-${h.id}`);
    const seen = new Set((await db.orm.select({ id: colOf(auditRecords, db, 'correlation_id') }).from(tableOf(auditRecords, db))
      .where(inArray(colOf(auditRecords, db, 'correlation_id'), ids)) as { id: string }[]).map((r) => r.id));
    for (const h of entries) {
      if (!seen.has(`update-${h.id}`)) await this.services.audit.record(auditEntry(h, this.arch));
      this.audited.add(h.id);
    }
  }

  // ------------------------------------------------------------------ proof

  /** The new version at its first start: checks the proof until it holds (done) or the deadline passes. */
  private startProof(): void {
    const check = async () => {
      if (this.stopped) return;
      const s = this.refresh();
      if (s.step !== 'proving' || s.target_version !== this.version) { this.proof = null; return; }
      const before = s.request?.answering_controllers_before ?? 0;
      const edge = this.services.edgeSync;
      const synced = edge ? (await edge.status()).last_success_at !== null : false;
      const answering = answeringControllers(this.services);
      const ready = this.services.lifecycle.state === 'ready';
      this.proof = { ready, answering, answering_before: before, synced, deadline_at: s.deadline_at };
      const late = s.deadline_at !== null && this.now() > Date.parse(s.deadline_at);
      if (late) {
        // The installer decides now (it rolls back); a done written after its deadline would race it.
        this.services.log.error('the new version did not prove itself before its deadline', { version: this.version, ...this.proof });
        return;
      }
      if (ready && synced && answering >= before) {
        await this.step('done', null, {}, { progress: 1, request: null, deadline_at: null });
        this.proof = null;
        this.prune();
        this.services.log.info('the new version proved itself', { version: this.version, answering, answering_before: before });
        return;
      }
      this.proofTimer = this.services.clock.setTimeout(() => void check().catch((err: Error) => this.services.log.error('update proof check failed', { error: err.message })), PROOF_CHECK_MS);
    };
    this.proofTimer = this.services.clock.setTimeout(() => void check().catch((err: Error) => this.services.log.error('update proof check failed', { error: err.message })), 0);
  }

  /** After done: only the running version's package stays (the next update goes back to it). */
  private prune(): void {
    try {
      for (const f of readdirSync(updatesDir(this.dataDir))) {
        const m = /^cabinet_(.+)_([^_]+)\.(deb|sig\.json|deb\.part|deb\.part\.json)$/.exec(f);
        if (m && m[1] !== this.version) removePackage(this.dataDir, m[1]!, m[2]!);
      }
    } catch (err) {
      this.services.log.warn('old update packages could not be removed', { error: (err as Error).message });
    }
  }
}

/** The rollout's proof time, when the master sends one with the offer (an older master's answer has none). */
function proofTimeout(offer: UpdateOffer): number | undefined {
  const t: unknown = offer.proof_timeout_s;
  return typeof t === 'number' && Number.isInteger(t) && t > 0 ? t : undefined;
}

/** The box's software is the installation's, no tenant's: tenant_id null (the master files it under the site's tenant). */
function auditEntry(h: UpdateHistoryEntry, arch: string) {
  return {
    actor: h.by === 'installer' ? 'system:installer' : 'system:updates',
    action: `updates.${h.step}`,
    resource: 'updates',
    result: h.step === 'failed' || h.step === 'rolled_back' ? 'error' as const : 'success' as const,
    correlation_id: `update-${h.id}`,
    tenant_id: null,
    details: { step: h.step, at: h.at, by: h.by, running_version: h.running_version, target_version: h.target_version, arch, reason: h.reason, reason_code: h.reason_code },
  };
}
