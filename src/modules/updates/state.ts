// The box's update state file, shared by the unprivileged service (module `updates`) and the
// privileged installer (`cabinet update apply`, run as root by cabinet-updater.service). It is the
// one place both write, so its shape and its writes live here, with node builtins only (the
// installer loads little).
//
// Files, all in <data_dir>/updates/:
//   state.json                    the state (UpdateState), written atomically by both sides
//   request.json                  the hand-off (UpdateRequest): the service writes it LAST; the
//                                 installer's path unit (PathExists=) starts on it
//   cabinet_<v>_<arch>.deb        a verified package (the target, and the running version's)
//   cabinet_<v>_<arch>.deb.part   a download in progress (chunks appended, fsynced per chunk)
//   cabinet_<v>_<arch>.sig.json   the signed manifest of that package, as the master served it
//
// Who writes which step (one writer at a time, by protocol):
//   service:   idle, downloading, verified, waiting_for_window, then installing (the hand-off: the
//              state is written BEFORE request.json, so the installer never reads an older step);
//              after the hand-off the service writes nothing until it restarts.
//   installer: installing (when it takes the request: it removes request.json then, or the
//              PathExists= unit would start it again; what it needs later is in state.request),
//              proving (with deadline_at, before it restarts the service), rolled_back / failed.
//   service:   done (the NEW version at start, when the state says proving for its own version and
//              the proof holds before deadline_at). The installer reads the state after stopping
//              the service at the deadline, so a late done is either seen or never written.
// Every step is appended to `history` (bounded) with a fresh id; the service audits each entry
// once (correlation id `update-<id>`), including those the installer wrote while it was down.
import { randomUUID } from 'node:crypto';
import { chownSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const UPDATE_STEPS = ['idle', 'downloading', 'verified', 'waiting_for_window', 'installing', 'proving', 'done', 'rolled_back', 'failed'] as const;
export type UpdateStep = (typeof UPDATE_STEPS)[number];

/** Steps after which nothing is in flight: the box runs a version and may take a new target. */
export const SETTLED_STEPS: readonly UpdateStep[] = ['idle', 'done', 'rolled_back', 'failed'];
/** Steps the installer owns: the service does not write the state while one of these holds (except done when proving). */
export const INSTALLER_STEPS: readonly UpdateStep[] = ['installing', 'proving'];

export type UpdateActor = 'service' | 'installer';
export type ReasonParams = Record<string, string | number>;

/** What the service hands to the installer (request.json), also kept in state.request. */
export interface UpdateRequest {
  /** Absolute path of the verified target package. The installer verifies it again with the root-owned key. */
  package: string;
  /** Absolute path of its signed manifest (.sig.json). */
  signature: string;
  version: string;
  arch: string;
  /** Absolute path of the package of the version running now (to go back to) and its manifest. */
  previous_package: string;
  previous_signature: string;
  previous_version: string;
  /** Seconds the new version has to prove itself from the moment the installer restarts it. */
  proof_timeout_s: number;
  /** Controllers the poller read successfully at hand-off: the new version must read at least as many. */
  answering_controllers_before: number;
  /** The master's rollout this update belongs to (null: none named). */
  rollout_id: string | null;
  requested_at: string;
}

export interface UpdateHistoryEntry {
  /** Unique per entry: the audit record's correlation id is `update-<id>`. */
  id: string;
  step: UpdateStep;
  at: string;
  by: UpdateActor;
  /** The version that was running when the entry was written (the writer's view). */
  running_version: string | null;
  target_version: string | null;
  reason: string | null;
  reason_code: string | null;
}

export interface UpdateState {
  schema: 1;
  step: UpdateStep;
  /** The version being installed (or last installed / refused); null when none. */
  target_version: string | null;
  /** The version the box ran before this update (the one to go back to). */
  previous_version: string | null;
  arch: string;
  /** 0..1: the download's progress while downloading; 1 once verified. */
  progress: number;
  /** Why the box is where it is, in English words (shown and reported); null when nothing to say. */
  reason: string | null;
  /** A stable code of the reason (no_release_key, bad_signature, bad_checksum, proof_timeout, dpkg_failed...). */
  reason_code: string | null;
  /** The parameters of the reason's words (catalogue key `updates.reason.<reason_code>`): data, never worded English. */
  reason_params: ReasonParams | null;
  /** When the step was entered. */
  at: string;
  rollout_id: string | null;
  /** The hand-off, once made (the installer needs it after request.json is gone). */
  request: UpdateRequest | null;
  /** When proving must be done by (the installer sets it with proving). */
  deadline_at: string | null;
  /** Versions that rolled back or failed here: the service does not try them again by itself. */
  given_up: string[];
  history: UpdateHistoryEntry[];
}

/** History entries kept (several updates' worth). */
export const HISTORY_MAX = 60;

export const updatesDir = (dataDir: string): string => join(dataDir, 'updates');
export const statePath = (dataDir: string): string => join(updatesDir(dataDir), 'state.json');
export const requestPath = (dataDir: string): string => join(updatesDir(dataDir), 'request.json');
export const packagePath = (dataDir: string, version: string, arch: string): string => join(updatesDir(dataDir), `cabinet_${version}_${arch}.deb`);
export const partPath = (dataDir: string, version: string, arch: string): string => `${packagePath(dataDir, version, arch)}.part`;
export const signaturePath = (dataDir: string, version: string, arch: string): string => join(updatesDir(dataDir), `cabinet_${version}_${arch}.sig.json`);

/** The Debian architecture of this process (the name release packages carry). */
export function debianArch(arch: string = process.arch): string {
  return arch === 'x64' ? 'amd64' : arch === 'arm64' ? 'arm64' : arch;
}

export function initialState(arch: string, at: string): UpdateState {
  return {
    schema: 1, step: 'idle', target_version: null, previous_version: null, arch, progress: 0, reason: null, reason_code: null, reason_params: null,
    at, rollout_id: null, request: null, deadline_at: null, given_up: [], history: [],
  };
}

/** Makes <data_dir>/updates (owner-only, like the data directory). */
export function ensureUpdatesDir(dataDir: string): string {
  const dir = updatesDir(dataDir);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    /* some file systems refuse fsync on a directory; the rename is still atomic */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes a file atomically: a temporary file in the same directory, fsynced, renamed over the
 * target, the directory fsynced. A reader (or a power cut, or SIGKILL at any point) sees the old
 * file or the new one, never a part. Run as root (the installer), the file gets the directory's
 * owner, so the unprivileged service can still read and replace it.
 */
export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${randomUUID()}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    const buf = Buffer.from(text);
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (process.getuid?.() === 0) {
      const owner = statSync(dir);
      chownSync(tmp, owner.uid, owner.gid);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  fsyncDir(dir);
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

function isStep(x: unknown): x is UpdateStep {
  return typeof x === 'string' && (UPDATE_STEPS as readonly string[]).includes(x);
}

const str = (x: unknown): string | null => (typeof x === 'string' ? x : null);

/**
 * Reads the state; null when there is none. A file that is not a state (hand-edited, another
 * program's) is an error with its reason, never taken for idle: the caller reports it.
 */
export function readState(dataDir: string): UpdateState | null {
  let text: string;
  try {
    text = readFileSync(statePath(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return parseState(text);
}

function paramsOf(x: unknown): ReasonParams | null {
  if (!x || typeof x !== 'object' || Array.isArray(x)) return null;
  const out: ReasonParams = {};
  for (const [k, v] of Object.entries(x as Record<string, unknown>)) if (typeof v === 'string' || typeof v === 'number') out[k] = v;
  return out;
}

export function parseState(text: string): UpdateState {
  const raw = JSON.parse(text) as Record<string, unknown>;
  if (!raw || typeof raw !== 'object' || raw.schema !== 1 || !isStep(raw.step)) throw new Error('the update state file is not a state of schema 1');
  const history = Array.isArray(raw.history) ? (raw.history as Record<string, unknown>[]).filter((h) => h && typeof h.id === 'string' && isStep(h.step)).map((h): UpdateHistoryEntry => ({
    id: h.id as string, step: h.step as UpdateStep, at: str(h.at) ?? '', by: h.by === 'installer' ? 'installer' : 'service',
    running_version: str(h.running_version), target_version: str(h.target_version), reason: str(h.reason), reason_code: str(h.reason_code),
  })) : [];
  return {
    schema: 1,
    step: raw.step,
    target_version: str(raw.target_version),
    previous_version: str(raw.previous_version),
    arch: str(raw.arch) ?? debianArch(),
    progress: typeof raw.progress === 'number' && raw.progress >= 0 && raw.progress <= 1 ? raw.progress : 0,
    reason: str(raw.reason),
    reason_code: str(raw.reason_code),
    reason_params: paramsOf(raw.reason_params),
    at: str(raw.at) ?? '',
    rollout_id: str(raw.rollout_id),
    request: raw.request && typeof raw.request === 'object' ? raw.request as UpdateRequest : null,
    deadline_at: str(raw.deadline_at),
    given_up: Array.isArray(raw.given_up) ? raw.given_up.filter((x): x is string => typeof x === 'string') : [],
    history,
  };
}

export function writeState(dataDir: string, state: UpdateState): void {
  ensureUpdatesDir(dataDir);
  writeJsonAtomic(statePath(dataDir), state);
}

export interface StepChange {
  step: UpdateStep;
  by: UpdateActor;
  /** The version running in the writer's process (its package version). */
  running_version: string | null;
  reason?: string | null;
  reason_code?: string | null;
  reason_params?: ReasonParams | null;
  at?: string;
  /** Other fields to set with the step (target_version, progress, request, deadline_at, ...). */
  patch?: Partial<Omit<UpdateState, 'schema' | 'step' | 'history' | 'reason' | 'reason_code' | 'reason_params' | 'at'>>;
}

/**
 * Moves the state to a step: reads the file, sets the step and its fields, appends a history
 * entry, writes it atomically, and returns the new state. A missing file starts from idle.
 */
export function changeStep(dataDir: string, change: StepChange): UpdateState {
  const at = change.at ?? new Date().toISOString();
  const before = readState(dataDir) ?? initialState(change.patch?.arch ?? debianArch(), at);
  const next: UpdateState = {
    ...before,
    ...change.patch,
    schema: 1,
    step: change.step,
    reason: change.reason ?? null,
    reason_code: change.reason_code ?? null,
    reason_params: change.reason_params ?? null,
    at,
  };
  const entry: UpdateHistoryEntry = {
    id: randomUUID(), step: change.step, at, by: change.by, running_version: change.running_version,
    target_version: next.target_version, reason: next.reason, reason_code: next.reason_code,
  };
  next.history = [...before.history, entry].slice(-HISTORY_MAX);
  writeState(dataDir, next);
  return next;
}

/** Updates fields without a step change (download progress): no history entry. */
export function patchState(dataDir: string, patch: Partial<Omit<UpdateState, 'schema' | 'history'>>): UpdateState | null {
  const before = readState(dataDir);
  if (!before) return null;
  const next: UpdateState = { ...before, ...patch, schema: 1 };
  writeState(dataDir, next);
  return next;
}

export function readRequest(dataDir: string): UpdateRequest | null {
  try {
    return JSON.parse(readFileSync(requestPath(dataDir), 'utf8')) as UpdateRequest;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The hand-off file: written last, atomically (the installer's path unit starts on it). */
export function writeRequest(dataDir: string, request: UpdateRequest): void {
  ensureUpdatesDir(dataDir);
  writeJsonAtomic(requestPath(dataDir), request);
}

/** The installer takes the request: removes request.json (its data is in state.request). */
export function removeRequest(dataDir: string): void {
  rmSync(requestPath(dataDir), { force: true });
  fsyncDir(updatesDir(dataDir));
}
