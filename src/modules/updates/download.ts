// A release package, fetched chunk by chunk over the sync's session into
// <data_dir>/updates/cabinet_<v>_<arch>.deb.part: each chunk written at its offset and fsynced
// before the next is asked for, so a restart or a lost link resumes from the chunks complete on
// disk (a chunk half-written when the power went is cut off and fetched again). A side file
// (.part.json) names the package the part belongs to (sha256, chunk size): a part of other bytes
// is started again. Once complete, the file is verified (size, sha256, the signed manifest's
// fields, the signature with the box's release key) and only then renamed to .deb beside its
// .sig.json. Nothing unverified ever carries the .deb name the hand-off uses.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { fileDigest, verifySigned, type SignedRelease } from '../../runtime/release-signature.js';
import type { UpdatePackage } from '../tenant-master-sync/engine/protocol.js';
import { ensureUpdatesDir, packagePath, partPath, signaturePath, writeFileAtomic, writeJsonAtomic, type ReasonParams } from './state.js';

/** Fetches one chunk: the status and the bytes (engine/edge.ts EdgeSync.download). */
export type ChunkFetcher = (path: string) => Promise<{ status: number; bytes: Buffer; error: string | null; sha256?: string | null }>;

/** A refusal or a stop, with the code and parameters of its words (updates.reason.<code>). */
export class UpdateError extends Error {
  constructor(readonly code: string, readonly params: ReasonParams, message: string, readonly refused = false) {
    super(message);
  }
}

export const chunkPath = (version: string, arch: string, idx: number): string =>
  `/api/v1/releases/${encodeURIComponent(version)}/packages/${encodeURIComponent(arch)}/chunks/${idx}`;

const expectedLength = (p: UpdatePackage, idx: number): number => (idx < p.chunks - 1 ? p.chunk_size : p.size - p.chunk_size * (p.chunks - 1));

/** Chunks complete on disk for this package (0 when none, or when the part is another package's). */
export function chunksOnDisk(dataDir: string, p: UpdatePackage): number {
  const part = partPath(dataDir, p.version, p.arch);
  const side = `${part}.json`;
  if (!existsSync(part) || !existsSync(side)) return 0;
  try {
    const meta = JSON.parse(readFileSync(side, 'utf8')) as { sha256?: string; chunk_size?: number; size?: number };
    if (meta.sha256 !== p.sha256 || meta.chunk_size !== p.chunk_size || meta.size !== p.size) return 0;
    const fd = openSync(part, 'r');
    try {
      return Math.min(p.chunks, Math.floor(fstatSync(fd).size / p.chunk_size));
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}

/** Whether the package's verified file is on disk (.deb and .sig.json). */
export function packageOnDisk(dataDir: string, version: string, arch: string): boolean {
  return existsSync(packagePath(dataDir, version, arch)) && existsSync(signaturePath(dataDir, version, arch));
}

/** Parses the signed text the master serves (the .sig.json as the fleet team wrote it). */
function signedOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * Checks a complete file against the offer and the signature; throws UpdateError(refused) naming
 * the first thing wrong. The order: the signature first (a manifest the fleet team did not sign
 * says nothing), then the manifest against the offer, then the bytes against the manifest.
 */
export async function verifyPackage(file: string, p: UpdatePackage, publicPem: string): Promise<void> {
  const v = p.version;
  const signed = signedOf(p.signed);
  const sig = verifySigned(publicPem, signed);
  if (!sig.ok) throw new UpdateError('bad_signature', { version: v, detail: sig.reason }, `the signature of ${v} does not verify: ${sig.reason}`, true);
  const m = (signed as SignedRelease).manifest;
  const wrong = m.package !== 'cabinet' ? `package ${m.package}` : m.version !== v ? `version ${m.version}` : m.arch !== p.arch ? `arch ${m.arch}`
    : m.size !== p.size ? `size ${m.size}` : m.sha256 !== p.sha256 ? `sha256 ${m.sha256.slice(0, 12)}...` : null;
  if (wrong) throw new UpdateError('manifest_mismatch', { version: v, detail: wrong }, `the signed manifest of ${v} names ${wrong}, not what the master offered`, true);
  const got = await fileDigest(file);
  if (got.size !== m.size) throw new UpdateError('bad_size', { version: v, got: got.size, want: m.size }, `the package of ${v} has ${got.size} bytes, its manifest says ${m.size}`, true);
  if (got.sha256 !== m.sha256) throw new UpdateError('bad_checksum', { version: v }, `the package of ${v} has sha256 ${got.sha256}, its manifest says ${m.sha256}`, true);
}

export interface DownloadProgress {
  /** Chunks complete on disk. */
  done: number;
  chunks: number;
}

/**
 * Brings a package onto disk, verified: resumes the part, fetches the chunks missing, verifies,
 * renames. A verified package already there is returned at once. A refusal (bad signature,
 * checksum, size, manifest) deletes the part: its bytes are not used again.
 */
export async function fetchPackage(dataDir: string, p: UpdatePackage, publicPem: string, fetchChunk: ChunkFetcher, onChunk: (progress: DownloadProgress) => void): Promise<void> {
  if (packageOnDisk(dataDir, p.version, p.arch)) return;
  if (!Number.isSafeInteger(p.chunk_size) || p.chunk_size < 1 || p.chunks !== Math.ceil(p.size / p.chunk_size)) {
    throw new UpdateError('manifest_mismatch', { version: p.version, detail: `chunks ${p.chunks} of ${p.chunk_size} bytes for ${p.size} bytes` }, `the offer of ${p.version} does not add up`, true);
  }
  ensureUpdatesDir(dataDir);
  const part = partPath(dataDir, p.version, p.arch);
  let done = chunksOnDisk(dataDir, p);
  if (done === 0) {
    rmSync(part, { force: true });
    writeJsonAtomic(`${part}.json`, { version: p.version, arch: p.arch, sha256: p.sha256, size: p.size, chunk_size: p.chunk_size });
  }
  const fd = openSync(part, existsSync(part) ? 'r+' : 'w+', 0o600);
  try {
    // A chunk half on disk (the power went while it was written) is cut off and fetched again.
    ftruncateSync(fd, done * p.chunk_size);
    onChunk({ done, chunks: p.chunks });
    for (let idx = done; idx < p.chunks; idx++) {
      let res;
      try {
        res = await fetchChunk(chunkPath(p.version, p.arch, idx));
      } catch (err) {
        throw new UpdateError('download_failed', { chunk: idx + 1, chunks: p.chunks, error: (err as Error).message }, `chunk ${idx} of ${p.version}: ${(err as Error).message}`);
      }
      if (res.status !== 200) {
        const error = `the master answered ${res.status}${res.error ? ` (${res.error})` : ''}`;
        throw new UpdateError('download_failed', { chunk: idx + 1, chunks: p.chunks, error }, `chunk ${idx} of ${p.version}: ${error}`);
      }
      const want = expectedLength(p, idx);
      if (res.bytes.length !== want) {
        const error = `${res.bytes.length} bytes instead of ${want}`;
        throw new UpdateError('download_failed', { chunk: idx + 1, chunks: p.chunks, error }, `chunk ${idx} of ${p.version}: ${error}`);
      }
      // A chunk damaged on the way (the master names each chunk's sha256) is fetched again later, not
      // written: the whole package is checked against its signed sha256 at the end anyway.
      if (res.sha256 && createHash('sha256').update(res.bytes).digest('hex') !== res.sha256) {
        const error = 'the chunk does not match its sha256';
        throw new UpdateError('download_failed', { chunk: idx + 1, chunks: p.chunks, error }, `chunk ${idx} of ${p.version}: ${error}`);
      }
      let off = 0;
      while (off < want) off += writeSync(fd, res.bytes, off, want - off, idx * p.chunk_size + off);
      fsyncSync(fd);
      done = idx + 1;
      onChunk({ done, chunks: p.chunks });
    }
  } finally {
    closeSync(fd);
  }
  try {
    await verifyPackage(part, p, publicPem);
  } catch (err) {
    if (err instanceof UpdateError && err.refused) {
      rmSync(part, { force: true });
      rmSync(`${part}.json`, { force: true });
    }
    throw err;
  }
  // The manifest first, then the package under its final name: packageOnDisk() needs both.
  writeFileAtomic(signaturePath(dataDir, p.version, p.arch), p.signed.endsWith('\n') ? p.signed : `${p.signed}\n`);
  renameSync(part, packagePath(dataDir, p.version, p.arch));
  rmSync(`${part}.json`, { force: true });
}

/** Removes a version's files (part, package, manifest). */
export function removePackage(dataDir: string, version: string, arch: string): void {
  for (const f of [partPath(dataDir, version, arch), `${partPath(dataDir, version, arch)}.json`, packagePath(dataDir, version, arch), signaturePath(dataDir, version, arch)]) rmSync(f, { force: true });
}
