// release-rollouts/scheme|list|{id} and commands create, pause, resume, abort (fleet admins,
// master scope). How waves advance: engine.ts. The list and a record are recomputed before every
// read (a rollout whose sites reported while nobody looked shows where it really is).
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import type { Caller, Services } from '../../kernel/context.js';
import type { HandlerContext } from '../../kernel/route.js';
import { timeId } from '../../kernel/ids.js';
import { Store } from '../../db/store.js';
import { colOf, tableOf } from '../../db/sql.js';
import { and, eq, inArray } from 'drizzle-orm';
import { syncSites, type SyncSiteRow } from '../tenant-master-sync/schema.js';
import { evaluateRollouts, ineligibility, readFleet, siteKey, startWave, type RolloutProgress } from './engine.js';
import { releaseRollouts, releases, rolloutRecord, type ReleaseRow, type RolloutRow } from './schema.js';

const actorOf = (caller: Caller | undefined) => caller?.subject ?? 'system';
const nowIso = (services: Services) => new Date(services.clock.now()).toISOString();
const json = (x: unknown) => (typeof x === 'string' ? (JSON.parse(x) as unknown) : x);

const siteId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}@[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'a sync-sites id: site@tenant'));
const idInput = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
const reasonInput = v.optional(v.pipe(v.string(), v.trim(), v.maxLength(1000)));

const createBody = v.strictObject({
  release_id: idInput,
  canary_site_ids: v.optional(v.pipe(v.array(siteId), v.maxLength(100)), []),
  waves: v.optional(v.pipe(
    v.array(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))), v.minLength(1), v.maxLength(20),
    v.check((w) => w.every((p, i) => i === 0 || p > w[i - 1]!), 'percentages that grow from wave to wave'),
  ), [100]),
  failure_threshold_percent: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100)), 20),
  proof_timeout_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(30), v.maxValue(86_400)), 600),
});

const store = (services: Services) => new Store<RolloutRow>(services.db, releaseRollouts);

const toItem = ({ accepted_failures: _internal, ...row }: RolloutRow) => ({
  ...row, canary_site_ids: json(row.canary_site_ids), waves: json(row.waves), progress: json(row.progress) ?? null, failure_threshold_percent: Number(row.failure_threshold_percent),
});

async function audit(ctx: HandlerContext<unknown>, action: string, rollout: RolloutRow, details: Record<string, unknown>): Promise<void> {
  await ctx.services.audit.record({ actor: actorOf(ctx.caller), action, resource: 'release-rollouts', result: 'success', correlation_id: ctx.requestId, details: { rollout_id: rollout.id, release_id: rollout.release_id, ...details }, tenant_id: null });
}

async function rolloutOr404(services: Services, id: string): Promise<RolloutRow> {
  const row = await store(services).find({ id });
  if (!row) throw new ApiError('not_found', `rollout ${id} not found`);
  return row;
}

/** Moves a rollout from one of `from` to `to`; 409 naming its state otherwise. */
async function transition(ctx: HandlerContext<{ id: string; reason?: string }>, from: RolloutRow['state'][], to: RolloutRow['state'], patch: Partial<RolloutRow>, action: string): Promise<RolloutRow> {
  const current = await rolloutOr404(ctx.services, ctx.body.id);
  if (!from.includes(current.state)) throw new ApiError('lifecycle_conflict', `rollout ${current.id} is ${current.state}; it can be ${action === 'release_rollout.resumed' ? 'resumed' : action === 'release_rollout.paused' ? 'paused' : 'aborted'} only when ${from.join(' or ')}`, [{ field: 'state', reason: current.state }]);
  const saved = await store(ctx.services).update({ id: current.id, state: current.state }, { ...patch, state: to, updated_at: nowIso(ctx.services) });
  if (!saved) throw new ApiError('lifecycle_conflict', `rollout ${current.id} changed meanwhile; ask again`);
  await audit(ctx as HandlerContext<unknown>, action, saved, { from: current.state, reason: ctx.body.reason ?? null });
  return saved;
}

export const rolloutResource = defineResource<RolloutRow>({
  name: 'release-rollouts',
  module: 'releases',
  title: 'Release rollouts',
  record: rolloutRecord,
  access: { resource: 'release-rollouts', scope: 'master' },
  defaultSort: { field: 'created_at', order: 'desc' },
  toItem,
  beforeRead: async (ctx) => { await evaluateRollouts(ctx.services); },
  commands: {
    create: command({
      summary: 'Take a published release to the sites whose version policies allow it, in waves: the canary sites first, then each percentage of the other eligible sites; a wave starts when the previous ones have finished with a failure rate at or below failure_threshold_percent, above it the rollout pauses',
      action: 'create',
      body: createBody,
      status: 201,
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx) => {
        const { db } = ctx.services;
        const b = ctx.body;
        const release = (await new Store<ReleaseRow>(db, releases).find({ id: b.release_id }));
        if (!release) throw new ApiError('not_found', `release ${b.release_id} not found`, [{ field: 'release_id', reason: 'not_found' }]);
        if (release.state !== 'published') throw new ApiError('lifecycle_conflict', `release ${release.id} is ${release.state}; only a published release is rolled out`, [{ field: 'release_id', reason: release.state }]);
        if (b.canary_site_ids.length) {
          const sites = (await db.orm.select().from(tableOf(syncSites, db))
            .where(inArray(colOf(syncSites, db, 'tenant_id'), [...new Set(b.canary_site_ids.map((id) => id.split('@')[1]!))]))) as SyncSiteRow[];
          const known = new Set(sites.map(siteKey));
          const unknown = b.canary_site_ids.filter((id) => !known.has(id));
          if (unknown.length) throw new ApiError('validation_error', `canary_site_ids names sites that are not registered: ${unknown.join(', ')}`, unknown.map(() => ({ field: 'canary_site_ids', reason: 'not_registered' })));
        }
        const rc = (n: string) => colOf(releaseRollouts, db, n);
        const active = (await db.orm.select().from(tableOf(releaseRollouts, db))
          .where(and(eq(rc('release_id'), release.id), inArray(rc('state'), ['running', 'paused'])))) as RolloutRow[];
        if (active.length) throw new ApiError('lifecycle_conflict', `release ${release.id} has a rollout in progress already (${active[0]!.id}, ${active[0]!.state})`, [{ field: 'release_id', reason: 'rollout_in_progress' }]);
        const now = nowIso(ctx.services);
        const row: RolloutRow = {
          id: `ro-${timeId(ctx.services.clock.now())}`, release_id: release.id, canary_site_ids: [...new Set(b.canary_site_ids)], waves: b.waves,
          failure_threshold_percent: b.failure_threshold_percent, proof_timeout_s: b.proof_timeout_s, state: 'running', wave: 0, paused_reason: null,
          accepted_failures: [], created_by: actorOf(ctx.caller), created_at: now, updated_at: now, finished_at: null, progress: null,
        };
        await store(ctx.services).insert(row);
        await audit(ctx as HandlerContext<unknown>, 'release_rollout.create', row, { canary_site_ids: row.canary_site_ids, waves: row.waves, failure_threshold_percent: row.failure_threshold_percent, proof_timeout_s: row.proof_timeout_s });
        // Wave 0 (the canaries) starts now; then as far as the sites' reports allow.
        const fleet = await readFleet(db);
        const pkgArches = new Set(((json(release.packages) ?? []) as { arch: string; complete: boolean }[]).filter((p) => p.complete).map((p) => p.arch));
        const eligible = fleet.sites.filter((s) => ineligibility(s, release.version, pkgArches, fleet.policies) === null);
        await startWave(ctx.services, { ...row, wave: 0 }, 0, eligible, [], { actor: actorOf(ctx.caller), correlationId: ctx.requestId });
        const [after] = await evaluateRollouts(ctx.services, { rolloutId: row.id, actor: actorOf(ctx.caller), correlationId: ctx.requestId });
        return toItem(after ?? row);
      },
    }),
    pause: command({
      summary: 'Pause a running rollout: no site that has not begun the update starts it (those that have go on)',
      action: 'execute',
      body: v.strictObject({ id: idInput, reason: reasonInput }),
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx) => toItem(await transition(ctx, ['running'], 'paused', { paused_reason: `paused by ${actorOf(ctx.caller)}${ctx.body.reason ? `: ${ctx.body.reason}` : ''}` }, 'release_rollout.paused')),
    }),
    resume: command({
      summary: 'Resume a paused rollout: the failures counted so far are accepted (left out of the failure rate from now on) and waves start again as the sites finish',
      action: 'execute',
      body: v.strictObject({ id: idInput, reason: reasonInput }),
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx) => {
        const current = await rolloutOr404(ctx.services, ctx.body.id);
        // The failures as they are now (the evaluation recomputes the stored progress).
        const [fresh] = await evaluateRollouts(ctx.services, { rolloutId: current.id });
        const progress = json((fresh ?? current).progress) as RolloutProgress | null;
        const failed = progress?.waves.flatMap((w) => w.sites.filter((s) => s.outcome === 'failed').map((s) => s.id)) ?? [];
        const accepted = [...new Set([...((json(current.accepted_failures) as string[] | null) ?? []), ...failed])];
        const saved = await transition(ctx, ['paused'], 'running', { paused_reason: null, accepted_failures: accepted }, 'release_rollout.resumed');
        const [after] = await evaluateRollouts(ctx.services, { rolloutId: saved.id, actor: actorOf(ctx.caller), correlationId: ctx.requestId });
        return toItem(after ?? saved);
      },
    }),
    abort: command({
      summary: 'Abort a rollout: no site is offered the release through it any more (boxes that installed it keep it; one in the middle of an update finishes or goes back by itself)',
      action: 'execute',
      body: v.strictObject({ id: idInput, reason: reasonInput }),
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx) => toItem(await transition(ctx, ['running', 'paused'], 'aborted', { paused_reason: `aborted by ${actorOf(ctx.caller)}${ctx.body.reason ? `: ${ctx.body.reason}` : ''}`, finished_at: nowIso(ctx.services) }, 'release_rollout.aborted')),
    }),
  },
});
