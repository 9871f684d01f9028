// tenant-master-sync/scheme|list|{id} (one record per tenant, recomputed from the sites' reports
// before every read), commands/register-site, commands/run and commands/set-mode; and the two
// routes a site box calls with its credential session: site-sync/commands/pull and /push.
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { ident } from '../tenant-master/input.js';
import { pull, push, refreshRecords, registerSite, requestRun, setMode, siteKeyOf } from './engine/master.js';
import { ApiError } from '../../kernel/errors.js';
import { Store } from '../../db/store.js';
import { evaluateRollouts } from '../releases/engine.js';
import { syncSites, type SyncSiteRow } from './schema.js';
import { pullAnswerSchema, pullBody, pushAnswerSchema, pushBody } from './engine/protocol.js';
import { SYNC_MODES, syncRecord, type SyncTenantRow } from './schema.js';

const timing = (s: { config: { sync_stale_ms: number } }) => ({ staleMs: s.config.sync_stale_ms });

export const STATUS_RULE = 'status is computed, never set: live when every site of the tenant was heard from within sync_stale_ms, has an empty outbox and has applied the current master-owned state; stopped when the mode is paused or no site was heard from within sync_stale_ms; degraded otherwise. Any state can follow any other as the reports change.';

export const syncResource = defineResource<SyncTenantRow>({
  name: 'tenant-master-sync',
  module: 'tenant-master-sync',
  title: 'Tenant-master sync',
  record: syncRecord,
  idColumn: 'tenant_id',
  access: { resource: 'tenant-master-sync', scope: 'master' },
  defaultSort: { field: 'tenant_id', order: 'asc' },
  toItem: (row) => ({ id: row.tenant_id, ...row, lag_seconds: Number(row.lag_seconds) }),
  beforeRead: async (ctx) => refreshRecords(ctx.services.db, timing(ctx.services)),
  commands: {
    'register-site': command({
      summary: 'Register a site box of a tenant; answers its credential once (a passkey: store it 0600 on the box as sync_credential_file)',
      action: 'create',
      body: v.strictObject({ tenant_id: ident, site_id: ident, industry_code: v.optional(ident) }),
      status: 201,
      idempotent: false,
      response: {
        type: 'object', required: ['tenant_id', 'site_id', 'passkey_id', 'credential'],
        properties: { tenant_id: { type: 'string' }, site_id: { type: 'string' }, industry_code: { anyOf: [{ type: 'string' }, { type: 'null' }] }, passkey_id: { type: 'string' }, credential: { type: 'string' } },
      },
      handler: async (ctx) => registerSite(ctx.services, ctx.body, ctx.caller?.subject ?? 'system'),
    }),
    run: command({
      summary: 'Force a sync now: every site of the tenant pushes its outbox on its next pull (also in manual mode); with wait_ms, answers once each has completed the run (or the wait ended)',
      action: 'execute',
      body: v.strictObject({ tenant_id: ident, wait_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000)), 0) }),
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx, kit) => {
        await requestRun(ctx.services.db, timing(ctx.services), ctx.body.tenant_id, ctx.body.wait_ms);
        return kit.toItem(await kit.load(ctx, ctx.body.tenant_id));
      },
    }),
    'hold-updates': command({
      summary: 'Hold a site\'s software where it is (hold: true, with the reason) or let it update again (hold: false): a held site is offered no release and no rollout counts it; site_id is the sync-sites id (site@tenant), or the site id with tenant_id',
      action: 'update',
      body: v.strictObject({
        site_id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}(@[A-Za-z0-9][A-Za-z0-9._:-]{0,127})?$/, 'a site id, or site@tenant')),
        tenant_id: v.optional(ident),
        hold: v.boolean(),
        reason: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(1000))),
      }),
      errors: ['not_found'],
      response: { type: 'object', required: ['id', 'update_hold'], properties: { id: { type: 'string' }, update_hold: { type: 'boolean' }, update_hold_reason: { anyOf: [{ type: 'string' }, { type: 'null' }] }, update_hold_by: { anyOf: [{ type: 'string' }, { type: 'null' }] }, update_hold_at: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
      handler: async (ctx) => {
        const { db } = ctx.services;
        const [site_id, fromId] = ctx.body.site_id.split('@') as [string, string | undefined];
        const tenant_id = fromId ?? ctx.body.tenant_id;
        if (!tenant_id) throw new ApiError('validation_error', 'site_id names no tenant: give site@tenant or tenant_id', [{ field: 'tenant_id', reason: 'required' }]);
        if (fromId && ctx.body.tenant_id && ctx.body.tenant_id !== fromId) throw new ApiError('validation_error', `site_id names tenant ${fromId}, tenant_id ${ctx.body.tenant_id}`, [{ field: 'tenant_id', reason: 'differs_from_site_id' }]);
        const actor = ctx.caller?.subject ?? 'system';
        const at = new Date(ctx.services.clock.now()).toISOString();
        const hold = ctx.body.hold;
        const saved = await new Store<SyncSiteRow>(db, syncSites).update({ tenant_id, site_id }, hold
          ? { update_hold: true, update_hold_reason: ctx.body.reason ?? null, update_hold_by: actor, update_hold_at: at }
          : { update_hold: false, update_hold_reason: null, update_hold_by: actor, update_hold_at: at });
        if (!saved) throw new ApiError('not_found', `site ${site_id}@${tenant_id} is not registered`);
        await ctx.services.audit.record({ actor, action: hold ? 'sync.hold_updates' : 'sync.release_updates', resource: 'sync-sites', result: 'success', correlation_id: ctx.requestId, details: { site: siteKeyOf(saved), hold, reason: ctx.body.reason ?? null }, tenant_id });
        // A held site leaves the rollouts' counts: a wave waiting for it may start now.
        if (ctx.services.modules.isInstalled('releases')) await evaluateRollouts(ctx.services, { runningOnly: true, actor, correlationId: ctx.requestId });
        return { id: siteKeyOf(saved), update_hold: Boolean(saved.update_hold), update_hold_reason: saved.update_hold_reason ?? null, update_hold_by: saved.update_hold_by ?? null, update_hold_at: saved.update_hold_at ?? null };
      },
    }),
    'set-mode': command({
      summary: 'Set the sync mode of a tenant: auto (sites push every cycle), manual (only on commands/run), paused (nothing is pushed; events wait in the site outboxes)',
      action: 'update',
      body: v.strictObject({ tenant_id: ident, mode: v.picklist(SYNC_MODES) }),
      errors: ['not_found'],
      handler: async (ctx, kit) => {
        await setMode(ctx.services.db, ctx.body.tenant_id, ctx.body.mode);
        await refreshRecords(ctx.services.db, timing(ctx.services), [ctx.body.tenant_id]);
        await ctx.services.audit.record({ actor: ctx.caller?.subject ?? 'system', action: 'sync.set_mode', resource: 'tenant-master-sync', result: 'success', correlation_id: ctx.requestId, details: { mode: ctx.body.mode }, tenant_id: ctx.body.tenant_id });
        return kit.toItem(await kit.load(ctx, ctx.body.tenant_id));
      },
    }),
  },
});

export const RUN_RULE = 'A run is complete for a site when its box has pushed everything its outbox held when it took the request and holds the master-owned state (the box reports the run done; sync-sites run_done_at). The answer is the sync record: sites_run_done equal to sites means every site completed this run; pending_up is what waits on the boxes now, and may count events (heartbeats) appended after a box took the request. A site that never reported a completed run (a box older than this report) counts once it reported an empty outbox after the request. 409 lifecycle_conflict while the tenant is paused.';

for (const r of syncResource.routes) if (r.path.endsWith('/list') || r.path.endsWith('/{id}')) r.description = STATUS_RULE;
for (const r of syncResource.routes) if (r.path.endsWith('/commands/run')) r.description = RUN_RULE;

const siteAccess = (action: string) => ({ resource: 'site-sync', action, scope: 'tenant' as const });

export const siteSyncRoutes: AnyRoute[] = [
  defineRoute({
    method: 'post', path: '/api/v1/site-sync/commands/pull', module: 'tenant-master-sync', tags: ['tenant-master-sync'],
    summary: 'A site box reports its outbox and receives the sync mode, a forced-run request and the master-owned state (version policies, module site policies, published industry profiles)',
    description: 'Only the session of a registered site credential (tenant scope with site_id) may call it; other sessions get 403 rbac_forbidden. Conflict rule: master-owned state (version policies, module site policies, published industry profiles) comes down whole and the master wins; the box audits a local change it discards (sync.conflict).',
    access: siteAccess('pull'), body: pullBody, idempotent: false, errors: ['not_found'],
    response: { kind: 'single', item: pullAnswerSchema },
    handler: async (ctx) => pull(ctx.services, ctx.caller, ctx.body),
  }),
  defineRoute({
    method: 'post', path: '/api/v1/site-sync/commands/push', module: 'tenant-master-sync', tags: ['tenant-master-sync'],
    summary: 'A site box pushes outbox events, oldest first; applied once per (tenant, site, seq), in seq order',
    description: 'Events with a seq at or below the site\'s applied_seq are duplicates of a retry and are skipped (counted in duplicates); the answer\'s applied_seq is what the box may delete from its outbox. 409 lifecycle_conflict while the tenant\'s sync is paused.',
    access: siteAccess('push'), body: pushBody, idempotent: false, errors: ['not_found', 'lifecycle_conflict'],
    response: { kind: 'single', item: pushAnswerSchema },
    handler: async (ctx) => push(ctx.services, ctx.caller, ctx.body),
  }),
];
