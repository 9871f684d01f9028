// releases/scheme|list|{id} and commands create, attach, publish, withdraw (fleet admins, master
// scope); the package upload in chunks (PUT .../chunks/{idx}, raw bytes, resumable, idempotent per
// chunk), the upload's state (GET .../packages/{arch}) and the chunk download for boxes (GET
// .../chunks/{idx}: a site session for a release its target allows, or a fleet admin).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { and, asc, eq } from 'drizzle-orm';
import * as v from 'valibot';
import semver from '../../runtime/semver.js';
import { signedShape, verifySigned, type SignedRelease } from '../../runtime/release-signature.js';
import { command, defineResource } from '../../kernel/resource.js';
import { defineRoute, type AnyRoute, type HandlerContext } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import { BodyTooLarge, readBodyBytes } from '../../kernel/body.js';
import { requestHeader } from '../../kernel/headers.js';
import type { Caller, Services } from '../../kernel/context.js';
import { colOf, tableOf } from '../../db/sql.js';
import { Store } from '../../db/store.js';
import type { Database } from '../../db/client.js';
import { short } from '../tenant-master/input.js';
import { downState, siteOf } from '../tenant-master-sync/engine/master.js';
import { offerFor, siteKey } from './engine.js';
import {
  CHUNK_SIZE, RELEASE_ARCHES, releaseChunks, releasePackages, releaseRecord, releaseRollouts, releases,
  type ReleasePackageRow, type ReleaseRow, type RolloutRow,
} from './schema.js';

const actorOf = (caller: Caller | undefined) => caller?.subject ?? 'system';
const nowIso = (services: Services) => new Date(services.clock.now()).toISOString();

async function audit(ctx: HandlerContext<unknown>, action: string, release: string, details: Record<string, unknown>, result: 'success' | 'denied' | 'error' = 'success'): Promise<void> {
  await ctx.services.audit.record({ actor: actorOf(ctx.caller), action, resource: 'releases', result, correlation_id: ctx.requestId, details: { release_id: release, ...details }, tenant_id: null });
}

/** A release version: a semantic version without build metadata (it is a path segment and a Debian version). */
const versionInput = v.pipe(v.string(), v.trim(), v.check((s) => semver.valid(s) === s && !s.includes('+'), 'a semantic version such as 0.2.0 (no build metadata)'));
const archInput = v.picklist(RELEASE_ARCHES);
const idInput = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

const releaseStore = (db: Database) => new Store<ReleaseRow>(db, releases);
const packageStore = (db: Database) => new Store<ReleasePackageRow>(db, releasePackages);

async function releaseOr404(db: Database, id: string): Promise<ReleaseRow> {
  const row = await releaseStore(db).find({ id });
  if (!row) throw new ApiError('not_found', `release ${id} not found`);
  return row;
}

function draftOnly(release: ReleaseRow, what: string): void {
  if (release.state !== 'draft') throw new ApiError('lifecycle_conflict', `release ${release.id} is ${release.state}: ${what} only while it is a draft`, [{ field: 'state', reason: release.state }]);
}

async function receivedOf(db: Database, release: string, arch: string): Promise<{ idx: number; size: number; sha256: string }[]> {
  const c = (n: string) => colOf(releaseChunks, db, n);
  const rows = (await db.orm.select({ idx: c('idx'), size: c('size'), sha256: c('sha256') }).from(tableOf(releaseChunks, db))
    .where(and(eq(c('release_id'), release), eq(c('arch'), arch))).orderBy(asc(c('idx')))) as { idx: number; size: number; sha256: string }[];
  return rows.map((r) => ({ idx: Number(r.idx), size: Number(r.size), sha256: r.sha256 }));
}

/** The release row's `packages` summary, rewritten after each change of a package. */
async function refreshSummary(db: Database, release: ReleaseRow, now: string): Promise<ReleaseRow> {
  const pkgs = (await db.orm.select().from(tableOf(releasePackages, db)).where(eq(colOf(releasePackages, db, 'release_id'), release.id))) as ReleasePackageRow[];
  const packages = [];
  for (const p of pkgs.sort((a, b) => a.arch.localeCompare(b.arch))) {
    const received = (await receivedOf(db, release.id, p.arch)).length;
    packages.push({
      arch: p.arch, size: p.size === null ? null : Number(p.size), sha256: p.sha256, chunk_size: Number(p.chunk_size), chunks: p.chunks === null ? null : Number(p.chunks),
      received, signed: p.signed !== null, key_id: p.key_id, complete: Boolean(p.complete),
    });
  }
  return (await releaseStore(db).update({ id: release.id }, { packages, updated_at: now })) ?? release;
}

const toItem = (row: ReleaseRow) => ({
  ...row, packages: typeof row.packages === 'string' ? (JSON.parse(row.packages) as unknown) : row.packages,
});

/** The master's release public key, or a 409 saying it has none (then nothing can be published). */
function masterKey(services: Services): string {
  const path = services.config.release_public_key;
  if (!path) throw new ApiError('lifecycle_conflict', 'this master has no release_public_key: set it to the fleet\'s release.pub (cabinet release keygen) to publish releases', [{ field: 'release_public_key', reason: 'no_release_key' }]);
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ApiError('lifecycle_conflict', `the release public key ${path} cannot be read: ${(err as Error).message}`, [{ field: 'release_public_key', reason: 'unreadable' }]);
  }
}

/** Why a package cannot be published (one reason code and its words), or undefined when it can. */
async function packageProblem(db: Database, release: ReleaseRow, pkg: ReleasePackageRow, publicPem: string): Promise<{ reason: string; message: string } | undefined> {
  const arch = pkg.arch;
  if (!pkg.signed) return { reason: 'no_signature', message: `the ${arch} package has no signature attached (releases/commands/attach)` };
  const signed = JSON.parse(pkg.signed) as SignedRelease;
  const m = signed.manifest;
  if (m.version !== release.version) return { reason: 'wrong_version', message: `the ${arch} package is signed as version ${m.version}, the release is ${release.version}` };
  if (m.arch !== arch) return { reason: 'wrong_arch', message: `the ${arch} package is signed for ${m.arch}` };
  const chunks = Number(pkg.chunks);
  const have = await receivedOf(db, release.id, arch);
  const present = new Set(have.map((c) => c.idx));
  const missing = Array.from({ length: chunks }, (_, i) => i).filter((i) => !present.has(i));
  if (missing.length) return { reason: 'missing_chunks', message: `the ${arch} package misses ${missing.length} of its ${chunks} chunks (first: ${missing.slice(0, 10).join(', ')})` };
  const extra = have.filter((c) => c.idx >= chunks);
  if (extra.length) return { reason: 'bad_size', message: `the ${arch} package has chunks beyond its ${chunks} (index ${extra[0]!.idx}): the upload is not the signed file` };
  // The bytes, chunk by chunk in order: a chunk at a time in memory, never the whole package.
  const hash = createHash('sha256');
  let size = 0;
  const c = (n: string) => colOf(releaseChunks, db, n);
  for (let idx = 0; idx < chunks; idx++) {
    const [row] = (await db.orm.select({ bytes: c('bytes') }).from(tableOf(releaseChunks, db))
      .where(and(eq(c('release_id'), release.id), eq(c('arch'), arch), eq(c('idx'), idx)))) as { bytes: Buffer }[];
    const bytes = row!.bytes;
    const expected = idx < chunks - 1 ? Number(pkg.chunk_size) : m.size - idx * Number(pkg.chunk_size);
    if (bytes.length !== expected) return { reason: 'bad_size', message: `chunk ${idx} of the ${arch} package is ${bytes.length} bytes, ${expected} expected for a ${m.size}-byte package` };
    hash.update(bytes);
    size += bytes.length;
  }
  if (size !== m.size) return { reason: 'bad_size', message: `the ${arch} package is ${size} bytes, the signed manifest says ${m.size}` };
  const digest = hash.digest('hex');
  if (digest !== m.sha256) return { reason: 'bad_checksum', message: `the ${arch} package's sha256 is ${digest}, the signed manifest says ${m.sha256}` };
  const verdict = verifySigned(publicPem, signed);
  if (!verdict.ok) return { reason: 'bad_signature', message: `the ${arch} package's signature is refused: ${verdict.reason}` };
  return undefined;
}

const packageResponse = {
  type: 'object', required: ['release_id', 'arch', 'chunk_size', 'received', 'received_sha256', 'complete'],
  properties: {
    release_id: { type: 'string' }, arch: { type: 'string' }, size: { anyOf: [{ type: 'integer' }, { type: 'null' }] }, sha256: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    chunk_size: { type: 'integer' }, chunks: { anyOf: [{ type: 'integer' }, { type: 'null' }] }, received: { type: 'array', items: { type: 'integer' }, description: 'Indexes of the chunks stored so far (an upload resumes with the others).' },
    received_sha256: { type: 'array', items: { type: 'string' }, description: 'The sha256 of each chunk in received, in the same order (an upload resends a chunk whose bytes differ).' },
    key_id: { anyOf: [{ type: 'string' }, { type: 'null' }] }, complete: { type: 'boolean' },
  },
};

async function packageState(db: Database, release: string, arch: string) {
  const pkg = await packageStore(db).find({ release_id: release, arch });
  const stored = await receivedOf(db, release, arch);
  const received = stored.map((c) => c.idx);
  return {
    release_id: release, arch, size: pkg?.size === null || pkg?.size === undefined ? null : Number(pkg.size), sha256: pkg?.sha256 ?? null,
    chunk_size: pkg ? Number(pkg.chunk_size) : CHUNK_SIZE, chunks: pkg?.chunks === null || pkg?.chunks === undefined ? null : Number(pkg.chunks), received,
    received_sha256: stored.map((c) => c.sha256),
    key_id: pkg?.key_id ?? null, complete: Boolean(pkg?.complete),
  };
}

export const releaseResource = defineResource<ReleaseRow>({
  name: 'releases',
  module: 'releases',
  title: 'Releases',
  record: releaseRecord,
  access: { resource: 'releases', scope: 'master' },
  defaultSort: { field: 'created_at', order: 'desc' },
  toItem,
  commands: {
    create: command({
      summary: 'Create a draft release of a version, with its notes; its packages are uploaded in chunks next (PUT /api/v1/releases/{id}/packages/{arch}/chunks/{idx}); the release id is its version',
      action: 'create',
      body: v.strictObject({ version: versionInput, notes: v.optional(v.pipe(v.string(), v.maxLength(20_000)), '') }),
      status: 201,
      errors: ['already_exists'],
      handler: async (ctx) => {
        const now = nowIso(ctx.services);
        const row: ReleaseRow = {
          id: ctx.body.version, version: ctx.body.version, notes: ctx.body.notes, state: 'draft', created_by: actorOf(ctx.caller), created_at: now,
          published_at: null, published_by: null, withdrawn_at: null, withdrawn_reason: null, updated_at: now, packages: [],
        };
        const saved = await releaseStore(ctx.services.db).insert(row);
        if (!saved) throw new ApiError('already_exists', `release ${row.id} already exists`, [{ field: 'version', reason: 'exists' }]);
        await audit(ctx, 'release.create', row.id, { version: row.version });
        return toItem(saved);
      },
    }),
    attach: command({
      summary: 'Attach the signature document (the .sig.json `cabinet release sign` wrote, as text) to a draft release\'s package of one architecture; size, sha256 and chunk count come from its manifest',
      action: 'update',
      body: v.strictObject({ id: idInput, arch: archInput, signed: v.pipe(v.string(), v.minLength(2), v.maxLength(16_384)) }),
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx) => {
        const { db } = ctx.services;
        const release = await releaseOr404(db, ctx.body.id);
        draftOnly(release, 'a signature is attached');
        let parsed: unknown;
        try {
          parsed = JSON.parse(ctx.body.signed);
        } catch (err) {
          throw new ApiError('validation_error', `signed is not JSON: ${(err as Error).message}`, [{ field: 'signed', reason: 'malformed_json' }]);
        }
        const shape = signedShape(parsed);
        if (!shape.ok) throw new ApiError('validation_error', `signed: ${shape.reason}`, [{ field: 'signed', reason: shape.reason }]);
        const m = shape.signed.manifest;
        if (m.package !== 'cabinet') throw new ApiError('validation_error', `signed is for package ${m.package}, not cabinet`, [{ field: 'signed', reason: 'wrong_package' }]);
        if (m.version !== release.version) throw new ApiError('validation_error', `signed is for version ${m.version}, the release is ${release.version}`, [{ field: 'signed', reason: 'wrong_version' }]);
        if (m.arch !== ctx.body.arch) throw new ApiError('validation_error', `signed is for ${m.arch}, not ${ctx.body.arch}`, [{ field: 'arch', reason: 'wrong_arch' }]);
        const now = nowIso(ctx.services);
        const chunks = Math.max(1, Math.ceil(m.size / CHUNK_SIZE));
        await db.transaction(async () => {
          const fields = { size: m.size, sha256: m.sha256, signed: ctx.body.signed, key_id: shape.signed.key_id, chunks, chunk_size: CHUNK_SIZE, complete: false, updated_at: now };
          const store = packageStore(db);
          if (!(await store.update({ release_id: release.id, arch: ctx.body.arch }, fields))) await store.insert({ release_id: release.id, arch: ctx.body.arch, ...fields });
        });
        await audit(ctx, 'release.attach', release.id, { arch: ctx.body.arch, size: m.size, sha256: m.sha256, key_id: shape.signed.key_id, chunks });
        return toItem(await refreshSummary(db, release, now));
      },
    }),
    publish: command({
      summary: 'Publish a draft release after checking each package: every chunk present, size and sha256 of the assembled bytes equal its signed manifest, the signature verifies with this master\'s release_public_key, manifest version and arch equal the release\'s; 409 naming the first problem otherwise',
      action: 'update',
      body: v.strictObject({ id: idInput }),
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx) => {
        const { db } = ctx.services;
        const release = await releaseOr404(db, ctx.body.id);
        if (release.state === 'published') return toItem(release);
        draftOnly(release, 'it is published');
        const refuse = async (reason: string, message: string, field: string): Promise<never> => {
          await audit(ctx, 'release.publish', release.id, { refused: reason, message }, 'denied');
          throw new ApiError('lifecycle_conflict', `release ${release.id} is not published: ${message}`, [{ field, reason }]);
        };
        let key: string;
        try {
          key = masterKey(ctx.services);
        } catch (err) {
          return refuse('no_release_key', (err as ApiError).message, 'release_public_key');
        }
        const pkgs = (await db.orm.select().from(tableOf(releasePackages, db)).where(eq(colOf(releasePackages, db, 'release_id'), release.id))) as ReleasePackageRow[];
        if (!pkgs.length) return refuse('no_packages', 'it has no package (upload one, then attach its signature)', 'packages');
        for (const pkg of pkgs.sort((a, b) => a.arch.localeCompare(b.arch))) {
          const problem = await packageProblem(db, release, pkg, key);
          if (problem) return refuse(problem.reason, problem.message, `packages.${pkg.arch}`);
        }
        const now = nowIso(ctx.services);
        const published = await db.transaction(async () => {
          for (const pkg of pkgs) await packageStore(db).update({ release_id: release.id, arch: pkg.arch }, { complete: true, updated_at: now });
          return releaseStore(db).update({ id: release.id, state: 'draft' }, { state: 'published', published_at: now, published_by: actorOf(ctx.caller), updated_at: now });
        });
        if (!published) throw new ApiError('lifecycle_conflict', `release ${release.id} changed while it was checked; ask again`);
        await audit(ctx, 'release.publish', release.id, { arches: pkgs.map((p) => p.arch), key_ids: pkgs.map((p) => p.key_id) });
        return toItem(await refreshSummary(db, published, now));
      },
    }),
    withdraw: command({
      summary: 'Withdraw a release: no site is offered it any more (boxes already running it keep it); its running or paused rollouts are aborted',
      action: 'update',
      body: v.strictObject({ id: idInput, reason: v.optional(short(1000)) }),
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx) => {
        const { db } = ctx.services;
        const release = await releaseOr404(db, ctx.body.id);
        if (release.state === 'withdrawn') return toItem(release);
        const now = nowIso(ctx.services);
        const reason = ctx.body.reason ?? null;
        const rollouts = new Store<RolloutRow>(db, releaseRollouts);
        const aborted: string[] = [];
        const saved = await db.transaction(async () => {
          const rc = (n: string) => colOf(releaseRollouts, db, n);
          const active = (await db.orm.select().from(tableOf(releaseRollouts, db)).where(eq(rc('release_id'), release.id))) as RolloutRow[];
          for (const r of active.filter((x) => x.state === 'running' || x.state === 'paused')) {
            await rollouts.update({ id: r.id }, { state: 'aborted', paused_reason: `release ${release.id} withdrawn${reason ? `: ${reason}` : ''}`, finished_at: now, updated_at: now });
            aborted.push(r.id);
          }
          return releaseStore(db).update({ id: release.id }, { state: 'withdrawn', withdrawn_at: now, withdrawn_reason: reason, updated_at: now });
        });
        await audit(ctx, 'release.withdraw', release.id, { reason, aborted_rollouts: aborted });
        return toItem(saved ?? release);
      },
    }),
  },
});

/** The request body as bytes, at most `max` (413 beyond): the kit's reader (src/kernel/body.ts). */
async function bodyBytes(c: HandlerContext<unknown>['c'], max: number): Promise<Buffer> {
  try {
    return await readBodyBytes(c, max);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new ApiError('payload_too_large', `a chunk is at most ${max} bytes`);
    throw err;
  }
}

const chunkParams = { idx: { type: 'integer' as const, min: 0, max: 65_535 } };
const archOf = (params: Record<string, string>): string => {
  const arch = params.arch as string;
  if (!(RELEASE_ARCHES as readonly string[]).includes(arch)) throw new ApiError('validation_error', `arch must be one of ${RELEASE_ARCHES.join(', ')}`, [{ field: 'arch', reason: 'unknown_arch' }]);
  return arch;
};

const chunkAnswer = {
  type: 'object', required: ['release_id', 'arch', 'idx', 'size', 'sha256', 'stored', 'received'],
  properties: {
    release_id: { type: 'string' }, arch: { type: 'string' }, idx: { type: 'integer' }, size: { type: 'integer' }, sha256: { type: 'string' },
    stored: { type: 'boolean', description: 'false when the same bytes were stored already (a repeated PUT changes nothing).' }, received: { type: 'integer', description: 'Chunks of this package stored so far.' },
  },
};

export const releaseRoutes: AnyRoute[] = [
  defineRoute({
    method: 'put', path: '/api/v1/releases/{id}/packages/{arch}/chunks/{idx}', module: 'releases', tags: ['releases'],
    summary: 'Upload one chunk of a draft release\'s package (raw bytes, application/octet-stream, at most 1 MiB): chunk idx holds bytes idx*1048576 onwards, every chunk but the last exactly 1 MiB; repeating a PUT is harmless, so an upload cut off resumes with the chunks GET .../packages/{arch} does not list',
    access: { resource: 'releases', action: 'update', scope: 'master' },
    params: chunkParams,
    rawBody: { contentType: 'application/octet-stream', description: 'The chunk\'s bytes.' },
    errors: ['not_found', 'lifecycle_conflict'],
    response: { kind: 'single', item: chunkAnswer },
    handler: async (ctx) => {
      const { db } = ctx.services;
      const arch = archOf(ctx.params);
      const idx = Number(ctx.params.idx);
      const type = (requestHeader(ctx.c, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/octet-stream') throw new ApiError('unsupported_media_type', `a chunk is sent as application/octet-stream (got ${type || 'no content type'})`);
      const release = await releaseOr404(db, ctx.params.id as string);
      draftOnly(release, 'its packages change');
      const bytes = await bodyBytes(ctx.c, Math.min(CHUNK_SIZE, ctx.services.config.max_body_bytes));
      if (!bytes.length) throw new ApiError('validation_error', 'a chunk has at least one byte', [{ field: 'body', reason: 'empty' }]);
      const pkg = await packageStore(db).find({ release_id: release.id, arch });
      if (pkg?.chunks !== null && pkg?.chunks !== undefined && pkg.size !== null) {
        const chunks = Number(pkg.chunks);
        if (idx >= chunks) throw new ApiError('validation_error', `the signed ${arch} package has ${chunks} chunks (0 to ${chunks - 1})`, [{ field: 'idx', reason: 'beyond_package' }]);
        const expected = idx < chunks - 1 ? CHUNK_SIZE : Number(pkg.size) - idx * CHUNK_SIZE;
        if (bytes.length !== expected) throw new ApiError('validation_error', `chunk ${idx} of the ${arch} package is ${expected} bytes, got ${bytes.length}`, [{ field: 'body', reason: 'wrong_chunk_size' }]);
      }
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const now = nowIso(ctx.services);
      const c = (n: string) => colOf(releaseChunks, db, n);
      const key = and(eq(c('release_id'), release.id), eq(c('arch'), arch), eq(c('idx'), idx));
      const stored = await db.transaction(async () => {
        const [old] = (await db.orm.select({ sha256: c('sha256') }).from(tableOf(releaseChunks, db)).where(key)) as { sha256: string }[];
        if (old?.sha256 === sha256) return false;
        if (old) await db.orm.delete(tableOf(releaseChunks, db)).where(key);
        await db.orm.insert(tableOf(releaseChunks, db)).values({ release_id: release.id, arch, idx, size: bytes.length, sha256, bytes, stored_at: now } as never);
        if (!pkg) await packageStore(db).insert({ release_id: release.id, arch, size: null, sha256: null, signed: null, key_id: null, chunk_size: CHUNK_SIZE, chunks: null, complete: false, updated_at: now });
        return true;
      });
      const summary = stored ? await refreshSummary(db, release, now) : release;
      const received = ((typeof summary.packages === 'string' ? JSON.parse(summary.packages) : summary.packages) as { arch: string; received: number }[]).find((p) => p.arch === arch)?.received
        ?? (await receivedOf(db, release.id, arch)).length;
      if (stored) await audit(ctx as HandlerContext<unknown>, 'release.chunk', release.id, { arch, idx, size: bytes.length, sha256 });
      return { release_id: release.id, arch, idx, size: bytes.length, sha256, stored, received };
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/releases/{id}/packages/{arch}', module: 'releases', tags: ['releases'],
    summary: 'The upload state of a release\'s package: the chunks stored so far (an upload resumes with the others), and size, sha256 and chunk count once its signature is attached',
    access: { resource: 'releases', action: 'read', scope: 'master' },
    errors: ['not_found'],
    response: { kind: 'single', item: packageResponse },
    handler: async (ctx) => {
      const release = await releaseOr404(ctx.services.db, ctx.params.id as string);
      return packageState(ctx.services.db, release.id, archOf(ctx.params));
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/releases/{id}/packages/{arch}/chunks/{idx}', module: 'releases', tags: ['releases'],
    summary: 'Download one chunk of a release\'s package (raw bytes; the release id is its version)',
    description: 'A site box calls it with its sync session (the site credential) for the release its target allows (the pull answer\'s update) or for the version it runs (update.previous, to go back to); a fleet admin (master scope) for any release. Any other session gets 403 rbac_forbidden naming why. The answer carries x-chunk-sha256 (of this chunk) and the package\'s x-package-sha256.',
    access: { resource: 'release-packages', action: 'download', scope: 'any' },
    params: chunkParams,
    errors: ['not_found'],
    response: { kind: 'raw', contentType: 'application/octet-stream', description: 'The chunk\'s bytes.', schema: { type: 'string', format: 'binary' } },
    handler: async (ctx) => {
      const { db } = ctx.services;
      const arch = archOf(ctx.params);
      const idx = Number(ctx.params.idx);
      const release = await releaseOr404(db, ctx.params.id as string);
      const pkg = await packageStore(db).find({ release_id: release.id, arch });
      const caller = ctx.caller;
      let site: string | undefined;
      if (caller?.scope_type === 'master' && caller.role !== 'admin') {
        throw new ApiError('rbac_forbidden', 'a package is downloaded by a site box (its sync session) or a fleet admin', [{ field: 'role', reason: caller.role }]);
      }
      if (caller?.scope_type !== 'master') {
        const row = await siteOf(ctx.services, caller);
        site = siteKey(row);
        // The version it runs (to go back to) even once withdrawn; a target only while published.
        const allowed = Boolean(pkg?.complete) && ((row.app_version === release.version && release.state !== 'draft')
          || (release.state === 'published' && (await offerFor(db, row, (await downState(db, row)).version_policies))?.version === release.version));
        if (!allowed) {
          throw new ApiError('rbac_forbidden', `release ${release.id} (${arch}) is not the target of site ${site}, nor the version it runs`, [{ field: 'id', reason: 'not_the_site_target' }]);
        }
      }
      if (!pkg) throw new ApiError('not_found', `release ${release.id} has no ${arch} package`);
      const c = (n: string) => colOf(releaseChunks, db, n);
      const [row] = (await db.orm.select({ bytes: c('bytes'), sha256: c('sha256') }).from(tableOf(releaseChunks, db))
        .where(and(eq(c('release_id'), release.id), eq(c('arch'), arch), eq(c('idx'), idx)))) as { bytes: Buffer; sha256: string }[];
      if (!row) throw new ApiError('not_found', `release ${release.id} has no chunk ${idx} of its ${arch} package`, [{ field: 'idx', reason: 'no_such_chunk' }]);
      // One record per site and package download (its first chunk), not per chunk.
      if (idx === 0) {
        await ctx.services.audit.record({
          actor: caller?.subject ?? 'unknown', action: 'release.download', resource: 'releases', result: 'success', correlation_id: ctx.requestId,
          details: { release_id: release.id, arch, site: site ?? null }, tenant_id: caller?.tenant_id ?? null,
        });
      }
      return ctx.c.body(new Uint8Array(row.bytes), 200, {
        'content-type': 'application/octet-stream', 'cache-control': 'no-store',
        'x-chunk-sha256': row.sha256, ...(pkg.sha256 ? { 'x-package-sha256': pkg.sha256 } : {}),
      });
    },
  }),
];
