// The privileged installer: `cabinet update apply` (and `cabinet update recover`), run as root by
// cabinet-updater.service when the unprivileged service hands an update over (request.json, see
// src/modules/updates/state.ts for who writes which step) and once at every boot.
//
// It trusts nothing the service wrote except as a request: the package and its signed manifest
// are copied into a root-only directory and verified there with the ROOT-OWNED release key
// (setting release_public_key) before dpkg sees them, and dpkg installs that copy, so the
// unprivileged service cannot swap the bytes between the check and the install.
//
// One run, in order; every step is written down BEFORE it is done (state.json for the steps the
// service and the master see, run.json in the root directory for the installer's own details), so
// a power cut anywhere resumes at the next boot (recover()):
//   installing  copy + verify both packages; stop the service; dpkg -i (the package's preinst backs
//               the data up, with the version still installed, to the path this run chose:
//               CABINET_BACKUP_TO); the service is not started by the maintainer scripts
//               (CABINET_UPDATER=1);
//   proving     deadline_at written, the service started; the NEW version writes `done` when its
//               proof holds. At the deadline the service is stopped and the state read again.
//   rolled_back dpkg -i of the previous package, `cabinet restore` of the backup taken before the
//               upgrade (by the previous version's own executable), the service started again.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import * as sea from 'node:sea';
import type { Config } from '../config.js';
import { signedShape, verifyPackageFile } from '../runtime/release-signature.js';
import {
  changeStep,
  debianArch,
  readRequest,
  readState,
  removeRequest,
  writeJsonAtomic,
  type ReasonParams,
  type UpdateRequest,
  type UpdateState,
} from '../modules/updates/state.js';

export const SERVICE_UNIT = 'cabinet.service';
/** Root-only working directory: verified copies of the packages and run.json. */
export const defaultRootDir = (env: NodeJS.ProcessEnv = process.env): string => env.CABINET_UPDATER_DIR ?? '/var/lib/cabinet-updater';
/** Where the package's maintainer scripts keep the upgrade backups (systemd/debian/preinst). */
export const defaultBackupsDir = (env: NodeJS.ProcessEnv = process.env): string => env.CABINET_BACKUPS_DIR ?? '/var/backups/cabinet';
/** Install attempts of one request that a power cut may interrupt before the installer gives up and goes back. */
export const MAX_ATTEMPTS = 3;
/** The new version exiting this many times while it should prove itself: it cannot become healthy, go back at once. */
export const EXITS_BEFORE_ROLLBACK = 3;

type Phase = 'verifying' | 'stopping' | 'installing' | 'starting' | 'proving' | 'rolling_back';

/** The installer's own record of a run (root-only, beside the package copies). */
export interface InstallRun {
  schema: 1;
  /** The id of the history entry `installing` this run wrote: names the run. */
  run_id: string;
  version: string;
  previous_version: string;
  arch: string;
  /** Root-owned verified copies. */
  package: string;
  previous_package: string;
  /** The backup the package's preinst writes before the upgrade; the rollback restores exactly this file. */
  backup: string;
  phase: Phase;
  attempts: number;
  rollback: { reason: string; reason_code: string; reason_params: ReasonParams } | null;
}

export interface InstallerOptions {
  config: Config;
  /** The --config file, handed on to `cabinet restore`. */
  configFile?: string;
  rootDir?: string;
  backupsDir?: string;
  /** How often the state is read while proving (ms). */
  pollMs?: number;
  log?: (line: string) => void;
  now?: () => number;
  /** The command that runs this program (`cabinet restore`); default selfCommand(). */
  self?: string[];
}

export type Outcome = 'nothing' | 'busy' | 'done' | 'rolled_back' | 'failed' | 'refused';

class Refused extends Error {
  constructor(readonly code: string, message: string, readonly params: ReasonParams) {
    super(message);
  }
}

const words = (command: string): string[] => command.split(/\s+/).filter(Boolean);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface RunResult { code: number; out: string }

/** Runs a command, its output passed on to the installer's log (the journal) and kept for parsing. */
function run(argv: string[], env: NodeJS.ProcessEnv, log: (line: string) => void, quiet = false): Promise<RunResult> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv as [string, ...string[]];
    let child;
    try {
      child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ code: 127, out: (err as Error).message });
      return;
    }
    let out = '';
    const take = (d: Buffer) => {
      out += d.toString();
      if (!quiet) for (const line of d.toString().split('\n')) if (line.trim()) log(`  ${basename(cmd)}: ${line}`);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (err) => resolve({ code: 127, out: `${out}${err.message}` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), out }));
  });
}

/** How to run this same program again as a child (`cabinet restore`): the executable, or node with its loader and main.ts. */
export function selfCommand(): string[] {
  if (sea.isSea()) return [process.execPath];
  return [process.execPath, ...process.execArgv, process.argv[1] as string];
}

/** A file written whole or not at all, fsynced (a package copy). */
function copyDurably(from: string, to: string): void {
  const tmp = `${to}.${randomUUID()}.tmp`;
  copyFileSync(from, tmp);
  chmodSync(tmp, 0o600);
  const fd = openSync(tmp, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // Same directory: the rename is atomic.
  renameSync(tmp, to);
}

export class Installer {
  private readonly config: Config;
  private readonly dataDir: string;
  private readonly rootDir: string;
  private readonly backupsDir: string;
  private readonly pollMs: number;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private readonly dpkg: string[];
  private readonly control: string[];
  private readonly configFile?: string;
  private readonly self: string[];

  constructor(o: InstallerOptions) {
    this.config = o.config;
    this.dataDir = o.config.data_dir;
    this.rootDir = o.rootDir ?? defaultRootDir();
    this.backupsDir = o.backupsDir ?? defaultBackupsDir();
    this.pollMs = o.pollMs ?? 1000;
    this.log = o.log ?? ((line) => process.stdout.write(`${line}\n`));
    this.now = o.now ?? Date.now;
    this.dpkg = words(o.config.update_dpkg_command);
    this.control = words(o.config.update_service_control);
    this.configFile = o.configFile;
    this.self = o.self ?? selfCommand();
  }

  private get runFile(): string {
    return join(this.rootDir, 'run.json');
  }

  private readRun(): InstallRun | null {
    try {
      const run = JSON.parse(readFileSync(this.runFile, 'utf8')) as InstallRun;
      return run && run.schema === 1 && typeof run.run_id === 'string' ? run : null;
    } catch {
      return null;
    }
  }

  private writeRun(run: InstallRun): void {
    writeJsonAtomic(this.runFile, run);
  }

  private phase(run: InstallRun, phase: Phase, extra: Partial<InstallRun> = {}): InstallRun {
    const next = { ...run, ...extra, phase };
    this.writeRun(next);
    this.log(`installer: ${phase} (${run.previous_version} -> ${run.version})`);
    return next;
  }

  /** Removes the run's copies and record: the box is settled. */
  private finish(run: InstallRun | null): void {
    if (run) for (const f of [run.package, run.previous_package]) rmSync(f, { force: true });
    rmSync(this.runFile, { force: true });
  }

  private ensureRootDir(): void {
    mkdirSync(this.rootDir, { recursive: true, mode: 0o700 });
    chmodSync(this.rootDir, 0o700);
  }

  // ---- locking: one installer at a time (the path unit and the boot run may meet) ----------
  private lockFile(): string {
    return join(this.rootDir, 'installer.lock');
  }

  private lock(): boolean {
    const file = this.lockFile();
    for (let i = 0; i < 2; i++) {
      try {
        const fd = openSync(file, 'wx', 0o600);
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) return false;
        // Left by a run a power cut or SIGKILL ended: nobody holds it.
        rmSync(file, { force: true });
      }
    }
    return false;
  }

  private unlock(): void {
    rmSync(this.lockFile(), { force: true });
  }

  // ---- the service and dpkg ---------------------------------------------------------------
  private async service(verb: 'stop' | 'start' | 'restart'): Promise<boolean> {
    const r = await run([...this.control, verb, SERVICE_UNIT], process.env, this.log);
    if (r.code !== 0) this.log(`installer: ${this.control.join(' ')} ${verb} ${SERVICE_UNIT} exited with ${r.code}`);
    return r.code === 0;
  }

  /** How many times systemd restarted the service (it exits at start); undefined when unknown. */
  private async restarts(): Promise<number | undefined> {
    const r = await run([...this.control, 'show', '-p', 'NRestarts', '--value', SERVICE_UNIT], process.env, this.log, true);
    const n = Number.parseInt(r.out.trim(), 10);
    return r.code === 0 && Number.isInteger(n) ? n : undefined;
  }

  private dpkgEnv(backupTo?: string): NodeJS.ProcessEnv {
    // CABINET_UPDATER: the maintainer scripts leave starting the service to this installer (it
    // records proving first). CABINET_BACKUP_TO: where preinst writes the pre-upgrade backup.
    const env: NodeJS.ProcessEnv = { ...process.env, CABINET_UPDATER: '1', DEBIAN_FRONTEND: 'noninteractive' };
    if (backupTo) env.CABINET_BACKUP_TO = backupTo;
    else delete env.CABINET_BACKUP_TO;
    return env;
  }

  private async dpkgInstall(file: string, backupTo?: string): Promise<boolean> {
    // confdef/confold: an admin's edited /etc/cabinet/cabinet.yaml is kept without a prompt (no one answers one).
    const r = await run([...this.dpkg, '--force-confdef', '--force-confold', '-i', file], this.dpkgEnv(backupTo), this.log);
    return r.code === 0;
  }

  /** The installed cabinet package: version and whether dpkg finished configuring it. */
  private async installed(): Promise<{ version: string | null; ok: boolean }> {
    const r = await run([...this.dpkg, '-s', 'cabinet'], process.env, this.log, true);
    const status = /^Status: (.*)$/m.exec(r.out)?.[1]?.trim() ?? '';
    const version = /^Version: (.*)$/m.exec(r.out)?.[1]?.trim() ?? null;
    return { version, ok: status === 'install ok installed' };
  }

  // ---- verification ------------------------------------------------------------------------
  private releaseKey(): string {
    const path = this.config.release_public_key;
    if (!path) throw new Refused('no_release_key', 'No release key is configured on this box (setting release_public_key): it does not update itself.', {});
    let st;
    try {
      st = statSync(path);
    } catch (err) {
      throw new Refused('release_key_unreadable', `The release key ${path} cannot be read: ${(err as Error).message}`, { path, error: (err as Error).message });
    }
    // The key decides what root installs: only root may be able to change it.
    if (st.uid !== 0 || (st.mode & 0o022) !== 0) {
      throw new Refused('release_key_unsafe', `The release key ${path} must belong to root and be writable by root only (it is uid ${st.uid}, mode ${(st.mode & 0o777).toString(8)}).`, { path });
    }
    return readFileSync(path, 'utf8');
  }

  /** Copies a package and its manifest into the root directory and verifies the copy. */
  private async verifiedCopy(key: string, pkgFile: string, sigFile: string, version: string, what: 'target' | 'previous'): Promise<string> {
    const arch = debianArch();
    const copy = join(this.rootDir, `cabinet_${version}_${arch}.deb`);
    let signed: unknown;
    try {
      signed = JSON.parse(readFileSync(sigFile, 'utf8'));
    } catch (err) {
      throw new Refused('bad_signature', `The signature of version ${version} cannot be read (${(err as Error).message}). It was refused.`, { version, detail: (err as Error).message });
    }
    const shape = signedShape(signed);
    if (!shape.ok) throw new Refused('bad_signature', `The signature of version ${version} does not verify with this box's release key (${shape.reason}). It was refused.`, { version, detail: shape.reason });
    const m = shape.signed.manifest;
    if (m.package !== 'cabinet' || m.version !== version || m.arch !== arch) {
      const detail = `signed for ${m.package} ${m.version} ${m.arch}, wanted cabinet ${version} ${arch}`;
      throw new Refused('manifest_mismatch', `The signed manifest of version ${version} does not match the package (${detail}). It was refused.`, { version, detail });
    }
    if (!existsSync(pkgFile)) throw new Refused('package_missing', `The package of version ${version} (${pkgFile}) is missing.`, { version, path: pkgFile });
    copyDurably(pkgFile, copy);
    const v = await verifyPackageFile(key, signed, copy);
    if (!v.ok) {
      rmSync(copy, { force: true });
      const checksum = /sha256|bytes/.test(v.reason);
      const words = what === 'previous' ? ' (the package to go back to)' : '';
      throw new Refused(
        checksum ? 'bad_checksum' : 'bad_signature',
        checksum
          ? `The package of version ${version}${words} does not match its signed manifest (${v.reason}). It was refused.`
          : `The signature of version ${version}${words} does not verify with this box's release key (${v.reason}). It was refused.`,
        { version, detail: v.reason },
      );
    }
    return copy;
  }

  // ---- the run -----------------------------------------------------------------------------
  /** `cabinet update apply`: finishes an interrupted run first, then takes a pending request. */
  async apply(): Promise<Outcome> {
    this.ensureRootDir();
    if (!this.lock()) {
      this.log('installer: another installer run is working; nothing to do');
      return 'busy';
    }
    try {
      const recovered = await this.recoverLocked();
      if (recovered !== 'nothing') return recovered;
      return await this.takeRequest();
    } finally {
      this.unlock();
    }
  }

  /** `cabinet update recover` (at boot): only finishes what a power cut interrupted. */
  async recover(): Promise<Outcome> {
    this.ensureRootDir();
    if (!this.lock()) return 'busy';
    try {
      return await this.recoverLocked();
    } finally {
      this.unlock();
    }
  }

  private async takeRequest(): Promise<Outcome> {
    const request = readRequest(this.dataDir);
    if (!request) return 'nothing';
    const state = readState(this.dataDir);
    if (!state || state.step !== 'installing') {
      // The service writes installing before request.json; anything else is not a hand-off.
      this.log(`installer: request.json without the step installing (step ${state?.step ?? 'none'}); removed, nothing installed`);
      removeRequest(this.dataDir);
      return 'nothing';
    }
    const taken = changeStep(this.dataDir, {
      step: 'installing', by: 'installer', running_version: request.previous_version,
      patch: { request, target_version: request.version, previous_version: request.previous_version, rollout_id: request.rollout_id, deadline_at: null },
    });
    // The PathExists= unit would start again while the file exists; its data is in state.request now.
    removeRequest(this.dataDir);
    const entry = taken.history[taken.history.length - 1]!;
    const arch = debianArch();
    const run: InstallRun = {
      schema: 1, run_id: entry.id, version: request.version, previous_version: request.previous_version, arch,
      package: join(this.rootDir, `cabinet_${request.version}_${arch}.deb`),
      previous_package: join(this.rootDir, `cabinet_${request.previous_version}_${arch}.deb`),
      backup: join(this.backupsDir, `cabinet-${request.previous_version}-before-${request.version}-${entry.id.slice(0, 8)}.tar.gz`),
      phase: 'verifying', attempts: 0, rollback: null,
    };
    this.writeRun(run);
    return this.install(run, request);
  }

  /** Verify, stop, dpkg -i, then prove. Nothing is installed unless both packages verify. */
  private async install(run: InstallRun, request: UpdateRequest): Promise<Outcome> {
    run = this.phase(run, 'verifying', { attempts: run.attempts + 1 });
    try {
      const key = this.releaseKey();
      await this.verifiedCopy(key, request.package, request.signature, request.version, 'target');
      await this.verifiedCopy(key, request.previous_package, request.previous_signature, request.previous_version, 'previous');
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      this.log(`installer: refused before anything was installed: ${err.message}`);
      this.settle(run, 'failed', err.message, err.code, err.params, request.version);
      this.finish(run);
      return 'refused';
    }
    run = this.phase(run, 'stopping');
    // Stopped first: the backup is then the data as the service left it, nothing written after it is lost by a rollback.
    await this.service('stop');
    run = this.phase(run, 'installing');
    const ok = await this.dpkgInstall(run.package, run.backup);
    const now = await this.installed();
    if (!ok || !now.ok || now.version !== run.version) {
      return this.rollback(run, 'dpkg_failed', 'The package could not be installed; the previous version was put back.', { version: run.version });
    }
    return this.prove(run, request.proof_timeout_s);
  }

  /** proving: the deadline written, the service started, then done or the deadline. */
  private async prove(run: InstallRun, proofTimeoutS: number, deadlineAt?: string): Promise<Outcome> {
    const deadline = deadlineAt ?? new Date(this.now() + proofTimeoutS * 1000).toISOString();
    if (!deadlineAt) {
      changeStep(this.dataDir, { step: 'proving', by: 'installer', running_version: run.version, patch: { deadline_at: deadline } });
    }
    run = this.phase(run, 'proving');
    await this.service(deadlineAt ? 'start' : 'restart');
    const base = await this.restarts();
    while (this.now() < Date.parse(deadline)) {
      const state = this.state();
      if (state?.step === 'done') return this.succeeded(run);
      if (state && state.step !== 'proving') {
        return this.rollback(run, 'proof_failed', `The new version reported ${state.step} instead of proving itself; the previous version was put back.`, { version: run.version, step: state.step });
      }
      const n = base === undefined ? undefined : await this.restarts();
      if (base !== undefined && n !== undefined && n - base >= EXITS_BEFORE_ROLLBACK) {
        return this.rollback(run, 'new_version_exits', `Version ${run.version} exited ${n - base} times at start; the previous version was put back.`, { version: run.version, exits: n - base });
      }
      await sleep(Math.min(this.pollMs, Math.max(10, Date.parse(deadline) - this.now())));
    }
    // Stopped BEFORE the last look: a done written after it is impossible, one written before it is seen.
    await this.service('stop');
    if (this.state()?.step === 'done') {
      await this.service('start');
      return this.succeeded(run);
    }
    return this.rollback(run, 'proof_timeout', 'The new version did not prove itself healthy in time; the previous version was put back.', { version: run.version });
  }

  private state(): UpdateState | null {
    try {
      return readState(this.dataDir);
    } catch (err) {
      this.log(`installer: the state file cannot be read: ${(err as Error).message}`);
      return null;
    }
  }

  private succeeded(run: InstallRun): Outcome {
    this.log(`installer: version ${run.version} proved itself; done`);
    this.finish(run);
    return 'done';
  }

  /**
   * Back to the previous version: its package, the backup taken before the upgrade, the service.
   * Recorded first (run.json phase rolling_back), so a power cut in the middle does it again.
   */
  private async rollback(run: InstallRun, code: string, reason: string, params: ReasonParams): Promise<Outcome> {
    run = this.phase(run, 'rolling_back', { rollback: run.rollback ?? { reason, reason_code: code, reason_params: params } });
    const why = run.rollback!;
    this.log(`installer: rolling back: ${why.reason}`);
    await this.service('stop');
    let reinstalled = await this.dpkgInstall(run.previous_package);
    if (!reinstalled) {
      // A dpkg run cut short leaves the database locked or half-configured: finish it, then again.
      await this.configurePending();
      reinstalled = await this.dpkgInstall(run.previous_package);
    }
    const now = await this.installed();
    if (!reinstalled || !now.ok || now.version !== run.previous_version) {
      const message = `The previous version ${run.previous_version} could not be installed again (dpkg: ${now.version ?? 'none'}, ${now.ok ? 'configured' : 'not configured'}); ${why.reason}`;
      await this.service('start');
      this.settle(run, 'failed', message, 'rollback_failed', { ...why.reason_params, previous_version: run.previous_version }, run.version);
      this.finish(run);
      return 'failed';
    }
    if (existsSync(run.backup)) {
      const restored = await this.restore(run.backup);
      if (!restored) {
        await this.service('start');
        const message = `Version ${run.previous_version} is back, but the backup ${run.backup} could not be restored; ${why.reason}`;
        this.settle(run, 'failed', message, 'restore_failed', { ...why.reason_params, backup: run.backup }, run.version);
        this.finish(run);
        return 'failed';
      }
    } else {
      // preinst takes it before dpkg unpacks anything: no backup means the new version never ran on this data.
      this.log(`installer: no backup at ${run.backup}: the upgrade stopped before its preinst wrote one; the data was not touched`);
    }
    await this.service('start');
    this.settle(run, 'rolled_back', why.reason, why.reason_code, why.reason_params, run.version);
    this.finish(run);
    return 'rolled_back';
  }

  /** `cabinet restore` by the executable installed now (the previous version's), as a child. */
  private async restore(backup: string): Promise<boolean> {
    // Root's own addon cache, thrown away: root-owned files in the service's cache would stop it.
    const cache = mkdtempSync(join(tmpdir(), 'cabinet-updater-'));
    try {
      const args = ['restore', '--from', backup, ...(this.configFile ? ['--config', this.configFile] : ['--data-dir', this.dataDir])];
      const r = await run([...this.self, ...args], { ...process.env, CABINET_CACHE_DIR: cache }, this.log);
      return r.code === 0;
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }

  /** Writes a settled step (rolled_back / failed) for the service and the master to see. */
  private settle(run: InstallRun, step: 'rolled_back' | 'failed', reason: string, code: string, params: ReasonParams, givenUp: string): void {
    const state = this.state();
    const given = [...new Set([...(state?.given_up ?? []), givenUp])];
    changeStep(this.dataDir, {
      step, by: 'installer', running_version: step === 'rolled_back' ? run.previous_version : null, reason, reason_code: code, reason_params: params,
      patch: { deadline_at: null, given_up: given, target_version: run.version, previous_version: run.previous_version },
    });
    this.log(`installer: ${step}: ${reason}`);
  }

  // ---- recovery ------------------------------------------------------------------------------
  /** Finishes a run a power cut (or SIGKILL) interrupted; 'nothing' when none was in flight. */
  private async recoverLocked(): Promise<Outcome> {
    const state = this.state();
    const run = this.readRun();
    if (!state || (state.step !== 'installing' && state.step !== 'proving')) {
      if (run) {
        this.log('installer: a run record without an update in flight; removed');
        this.finish(run);
      }
      return 'nothing';
    }
    const last = state.history[state.history.length - 1];
    if (state.step === 'installing' && (!run || last?.by === 'service')) {
      // The service handed over but no installer took it yet: request.json is the hand-off.
      if (readRequest(this.dataDir)) return 'nothing';
      // A power cut between the two writes of the hand-off: nothing was installed; the service may try again.
      changeStep(this.dataDir, {
        step: 'failed', by: 'installer', running_version: state.previous_version, reason: 'The hand-off to the installer was interrupted; nothing was installed.',
        reason_code: 'handoff_lost', reason_params: {}, patch: { deadline_at: null },
      });
      if (run) this.finish(run);
      return 'failed';
    }
    if (!run) {
      // installing/proving written by the installer, but its record is gone (it is written before either).
      return this.rollbackWithoutRecord(state);
    }
    this.log(`installer: resuming an interrupted update ${run.previous_version} -> ${run.version} (phase ${run.phase})`);
    if (run.phase === 'rolling_back') return this.rollback(run, run.rollback?.reason_code ?? 'install_interrupted', run.rollback?.reason ?? '', run.rollback?.reason_params ?? {});
    const request = state.request;
    if (state.step === 'proving') {
      const deadline = state.deadline_at ?? new Date(this.now()).toISOString();
      return this.prove(run, request?.proof_timeout_s ?? this.config.update_proof_timeout_s, deadline);
    }
    // installing: where did dpkg get to?
    let now = await this.installed();
    if (!now.ok) {
      await this.configurePending();
      now = await this.installed();
    }
    if (now.ok && now.version === run.version && run.phase === 'installing') {
      // dpkg finished (or --configure -a finished it): the new version has not run yet; prove it.
      return this.prove(run, request?.proof_timeout_s ?? this.config.update_proof_timeout_s);
    }
    // The previous version still installed (cut before dpkg unpacked anything), or a package dpkg
    // left half-installed: dpkg -i of the new package again finishes either (the backup of the
    // first attempt is kept: preinst does not overwrite CABINET_BACKUP_TO).
    if (request && run.attempts < MAX_ATTEMPTS) {
      const where = now.ok && now.version === run.previous_version ? 'the previous version is still installed' : `dpkg left ${now.version ?? 'no version'} ${now.ok ? 'installed' : 'half-installed'}`;
      this.log(`installer: ${where}; installing again (attempt ${run.attempts + 1} of ${MAX_ATTEMPTS})`);
      return this.install(run, request);
    }
    return this.rollback(run, 'install_interrupted', `The installation of version ${run.version} was interrupted; the previous version was put back.`, { version: run.version });
  }

  /** installing/proving with no run record: go back to the version the state names, without a backup to restore. */
  private async rollbackWithoutRecord(state: UpdateState): Promise<Outcome> {
    const arch = debianArch();
    const request = state.request;
    this.log('installer: an update in flight without its run record; going back to the previous version');
    const run: InstallRun = {
      schema: 1, run_id: randomUUID(), version: state.target_version ?? '', previous_version: state.previous_version ?? request?.previous_version ?? '', arch,
      package: join(this.rootDir, `cabinet_${state.target_version ?? 'none'}_${arch}.deb`),
      previous_package: join(this.rootDir, `cabinet_${state.previous_version ?? 'none'}_${arch}.deb`),
      backup: join(this.backupsDir, 'none'), phase: 'rolling_back', attempts: MAX_ATTEMPTS, rollback: null,
    };
    if (request) {
      try {
        await this.verifiedCopy(this.releaseKey(), request.previous_package, request.previous_signature, request.previous_version, 'previous');
      } catch (err) {
        this.log(`installer: the previous package does not verify: ${(err as Error).message}`);
      }
    }
    return this.rollback(run, 'install_interrupted', `The installation of version ${run.version} was interrupted; the previous version was put back.`, { version: run.version });
  }

  /** `dpkg --configure -a`: finishes what a dpkg run cut short left half-configured. */
  private async configurePending(): Promise<void> {
    const r = await run([...this.dpkg, '--force-confdef', '--force-confold', '--configure', '-a'], this.dpkgEnv(), this.log);
    if (r.code !== 0) this.log(`installer: dpkg --configure -a exited with ${r.code}`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A pid reused by another program after a reboot is not an installer.
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('update');
  } catch {
    return true;
  }
}
