// The master's side of the sync: registering a site (a passkey is its credential), ingesting
// pushes (idempotent by (tenant, site, seq), in order per site, one transaction per push),
// answering pulls with the master-owned state (version policies, module site policies, published
// industry profiles), and computing each tenant's sync record from
// what the sites reported about their real outboxes.
import { createHash } from 'node:crypto';
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client.js';
import type { Caller, Services } from '../../../kernel/context.js';
import { ApiError } from '../../../kernel/errors.js';
import { Store } from '../../../db/store.js';
import { colOf, rowsPerInsert, tableOf } from '../../../db/sql.js';
import { scopeString } from '../../../auth/scope.js';
import { passkeys, type PasskeyRow } from '../../passkeys/schema.js';
import { newPasskeyId, qrCredential } from '../../passkeys/credentials.js';
import { versionPolicies, type VersionPolicyRow } from '../../version-policies/schema.js';
import { sitePolicies } from '../../core/registry/tables.js';
import { industryProfiles, type ProfileRow } from '../../../industry/profiles.js';
import {
  syncAlarms, syncHeartbeats, syncInbox, syncSites, syncTelemetry, syncTenants,
  type SyncMode, type SyncSiteRow, type SyncTenantRow,
} from '../schema.js';
import type { PullAnswer, PullBody, PushAnswer, PushBody } from './protocol.js';
import { differing, masterDigests, type Held } from './held.js';
import { addRollups, type RollupBatch } from './rollup.js';
import { ALARM_CHANGE_SET } from './alarms.js';
import { inboxed, projectionOf, rollupBucketsOf, telemetryKey, type Aggregate, type Fresh } from './projection.js';
import { onePushFits, pushInOne } from './push-pg.js';
import { eventsAfter } from './columns.js';
import { evaluateRollouts, offerFor, reportMoved } from '../../releases/engine.js';

const SITE_CREDENTIAL_DAYS = 10 * 365;

export async function registerSite(services: Services, input: { tenant_id: string; site_id: string; industry_code?: string | null }, actor: string) {
  const { db } = services;
  const credential = qrCredential();
  const now = new Date();
  const keys = new Store<PasskeyRow>(db, passkeys);
  const sites = new Store<SyncSiteRow>(db, syncSites);
  const passkey: PasskeyRow = {
    id: newPasskeyId(), type: 'qr', holder: `site ${input.tenant_id}/${input.site_id}`,
    scope: scopeString({ scope_type: 'tenant', tenant_id: input.tenant_id, site_id: input.site_id }),
    scope_type: 'tenant', tenant_id: input.tenant_id, site_id: input.site_id, role: 'operator', status: 'active',
    issued_at: now.toISOString(), issued_by: actor, expires_at: new Date(now.getTime() + SITE_CREDENTIAL_DAYS * 86_400_000).toISOString(),
    last_used_at: null, revoked_at: null, credential_digest: services.sessions.digest(credential), language: null,
  };
  const site = await db.transaction(async () => {
    const old = await sites.find({ tenant_id: input.tenant_id, site_id: input.site_id });
    // A new credential replaces the old one: the old passkey is revoked, its sessions end.
    if (old) await keys.update({ id: old.passkey_id }, { status: 'revoked', revoked_at: now.toISOString() });
    await keys.insert(passkey);
    const row: SyncSiteRow = old
      ? { ...old, passkey_id: passkey.id, industry_code: input.industry_code ?? old.industry_code }
      : {
          tenant_id: input.tenant_id, site_id: input.site_id, id: siteKeyOf(input), passkey_id: passkey.id, industry_code: input.industry_code ?? null,
          registered_at: now.toISOString(), last_seen_at: null, applied_seq: 0, events_received: 0, reported_pending: 0,
          reported_oldest_at: null, down_revision: null, last_rtt_ms: null,
        };
    if (old) await sites.update({ tenant_id: row.tenant_id, site_id: row.site_id }, { passkey_id: row.passkey_id, industry_code: row.industry_code });
    else await sites.insert(row);
    const tenants = new Store<SyncTenantRow>(db, syncTenants);
    if (!(await tenants.find({ tenant_id: input.tenant_id }))) await tenants.insert(emptyRecord(input.tenant_id, now.toISOString()));
    return row;
  });
  await services.audit.record({ actor, action: 'sync.register_site', resource: 'tenant-master-sync', result: 'success', details: { site_id: site.site_id, passkey_id: passkey.id }, tenant_id: site.tenant_id });
  return { tenant_id: site.tenant_id, site_id: site.site_id, industry_code: site.industry_code, passkey_id: passkey.id, credential };
}

/** A site's id in the fleet view: site@tenant (idents may not hold @, so it is unambiguous). */
export const siteKeyOf = (s: { tenant_id: string; site_id: string }) => `${s.site_id}@${s.tenant_id}`;

const emptyRecord = (tenant: string, now: string): SyncTenantRow => ({
  tenant_id: tenant, status: 'stopped', mode: 'auto', lag_seconds: 0, pending_up: 0, pending_down: 0, pending: 0, sites: 0, sites_live: 0,
  events_received: 0, last_seen_at: null, run_requested_at: null, sites_run_done: null, updated_at: now,
});

const notTheCredential = (caller: Caller) => new ApiError('rbac_forbidden', `this session is not the registered credential of site ${caller.tenant_id}/${caller.site_id}`);
const noRecord = (tenant: string) => new ApiError('not_found', `tenant ${tenant} has no sync record`);
const pausedPush = (tenant: string) => new ApiError('lifecycle_conflict', `sync of tenant ${tenant} is paused; events are kept in the site outbox until it is resumed`, [{ field: 'mode', reason: 'paused' }]);

/** The caller as a site's session, or 403: only a site credential session may sync. */
function siteCaller(caller: Caller | undefined): Caller & { tenant_id: string; site_id: string } {
  if (!caller || caller.scope_type !== 'tenant' || !caller.tenant_id || !caller.site_id) {
    throw new ApiError('rbac_forbidden', 'only a site credential session may sync');
  }
  return caller as Caller & { tenant_id: string; site_id: string };
}

/** The site a session belongs to, or 403: only a registered site's current credential may sync. */
export async function siteOf(services: Services, caller: Caller | undefined): Promise<SyncSiteRow> {
  const who = siteCaller(caller);
  const site = await new Store<SyncSiteRow>(services.db, syncSites).find({ tenant_id: who.tenant_id, site_id: who.site_id });
  if (!site || site.passkey_id !== who.subject) throw notTheCredential(who);
  return site;
}

async function modeOf(db: Database, tenant: string): Promise<SyncTenantRow> {
  const rec = await new Store<SyncTenantRow>(db, syncTenants).find({ tenant_id: tenant });
  if (!rec) throw noRecord(tenant);
  return rec;
}

/** The site a down state is computed for: its tenant, its id and the industry it runs (null when not known yet). */
export type DownSite = Pick<SyncSiteRow, 'tenant_id' | 'site_id' | 'industry_code'>;

export interface DownState {
  revision: string;
  version_policies: VersionPolicyRow[];
  site_policies: { module_id: string; enabled: boolean }[];
  industry_profiles: ProfileRow[];
}

type SitePolicy = { tenant_id: string; site_id: string; module_id: string; enabled: boolean | number };

/**
 * The master-owned state of one site from rows read for many (each list is filtered here again):
 * the version policies that can apply to it (global, industry, its tenant's), its module site
 * policies, and the published industry profiles of its tenant, tenant-wide (site_id '') or for
 * this site, of the industry the site runs (every industry while the site has not said which one
 * it runs). A box serves one industry, and its own import refuses any other, so profiles of other
 * industries would only be dead rows there.
 */
function composeDown(site: DownSite, policyRows: VersionPolicyRow[], siteRows: SitePolicy[], profileRows: ProfileRow[]): DownState {
  const tenant = site.tenant_id;
  const rows = policyRows.filter((r) => r.scope === 'global' || r.scope === 'industry' || (r.scope === 'tenant' && r.tenant_id === tenant))
    .sort((a, b) => a.id.localeCompare(b.id));
  const policies = siteRows.filter((p) => p.tenant_id === tenant && p.site_id === site.site_id)
    .map((p) => ({ module_id: p.module_id, enabled: Boolean(p.enabled) })).sort((a, b) => a.module_id.localeCompare(b.module_id));
  const key = (r: ProfileRow) => [r.site_id, r.industry_code, r.equipment_profile, r.name].join('\n');
  const profiles = profileRows.filter((p) => p.tenant_id === tenant && p.state === 'published' && (p.site_id === '' || p.site_id === site.site_id)
    && (!site.industry_code || p.industry_code === site.industry_code)).sort((a, b) => key(a).localeCompare(key(b)));
  // The revision covers the rules only, so re-saving an unchanged policy does not resend it;
  // for a profile, its lineage, the master's version in force and its content digest.
  const rules = rows.map((r) => [r.id, r.scope, r.industry_code, r.tenant_id, r.module_id, r.allowed_major, r.min_version, r.max_version, r.pinned_version]);
  const prof = profiles.map((p) => [p.site_id, p.industry_code, p.equipment_profile, p.name, p.version_id, p.content_sha256]);
  // Without profiles the revision is what it was before profiles were pushed down, so an upgraded
  // master does not make every box re-apply an unchanged state.
  const parts = prof.length ? [rules, policies, prof] : [rules, policies];
  return { revision: createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32), version_policies: rows, site_policies: policies, industry_profiles: profiles };
}

/** Three queries for any number of tenants: their version policies, module site policies and published profiles. */
async function downRows(db: Database, tenants: string[]) {
  const c = (n: string) => colOf(versionPolicies, db, n);
  const sp = (n: string) => colOf(sitePolicies, db, n);
  const pc = (n: string) => colOf(industryProfiles, db, n);
  const [policyRows, siteRows, profileRows] = await Promise.all([
    db.orm.select().from(tableOf(versionPolicies, db)).where(or(eq(c('scope'), 'global'), eq(c('scope'), 'industry'), and(eq(c('scope'), 'tenant'), inArray(c('tenant_id'), tenants)))),
    db.orm.select().from(tableOf(sitePolicies, db)).where(inArray(sp('tenant_id'), tenants)),
    db.orm.select().from(tableOf(industryProfiles, db)).where(and(inArray(pc('tenant_id'), tenants), eq(pc('state'), 'published'))),
  ]);
  return { policyRows: policyRows as VersionPolicyRow[], siteRows: siteRows as SitePolicy[], profileRows: profileRows as ProfileRow[] };
}

/** The master-owned state a site receives: the version policies that can apply to it, its module site policies and the published industry profiles for it. */
export async function downState(db: Database, site: DownSite): Promise<DownState> {
  const r = await downRows(db, [site.tenant_id]);
  return composeDown(site, r.policyRows, r.siteRows.filter((p) => p.site_id === site.site_id), r.profileRows);
}

/** downState of many sites, in three queries (the fleet view and the tenant records read every site). */
export async function downStates(db: Database, sites: DownSite[]): Promise<Map<string, DownState>> {
  const out = new Map<string, DownState>();
  if (!sites.length) return out;
  const r = await downRows(db, [...new Set(sites.map((s) => s.tenant_id))]);
  for (const s of sites) out.set(siteKeyOf(s), composeDown(s, r.policyRows, r.siteRows, r.profileRows));
  return out;
}

function reportOf(body: PullBody, now: string): Partial<SyncSiteRow> {
  return {
    last_seen_at: now, reported_pending: body.remaining, reported_oldest_at: body.remaining > 0 ? (body.oldest_remaining_at ?? null) : null,
    ...(body.down_revision !== undefined ? { down_revision: body.down_revision } : {}),
    ...(body.rtt_ms !== undefined && body.rtt_ms !== null ? { last_rtt_ms: body.rtt_ms } : {}),
    ...(body.industry_code ? { industry_code: body.industry_code } : {}),
    ...(body.held ? { held: body.held } : {}),
    ...(body.versions ? { app_version: body.versions.app, module_versions: body.versions.modules, versions_reported_at: now } : {}),
    ...(body.update_state ? updateReportOf(body.update_state) : {}),
    ...runDoneReportOf(body),
  };
}

/**
 * A box that reports run_done sends the field in every report, null until it completes a run: a
 * null keeps what it reported before (a run once completed stays so, across the box's restarts).
 * A report without the field is a box older than run_done (downgraded since): what it reported
 * before is forgotten, so its runs are judged by the old rule instead of waiting all of wait_ms for
 * a report it no longer sends.
 */
export function runDoneReportOf(body: Pick<PullBody, 'run_done'>): Pick<Partial<SyncSiteRow>, 'run_done_at'> {
  if (!('run_done' in body)) return { run_done_at: null };
  return body.run_done ? { run_done_at: body.run_done } : {};
}

/** The box's update report as the site row keeps it (the fleet view's update columns). */
function updateReportOf(u: NonNullable<PullBody['update_state']>): Partial<SyncSiteRow> {
  return {
    update_version: u.target_version, previous_version: u.previous_version, update_step: u.step, update_progress: u.progress,
    update_reason: u.reason, update_reason_code: u.reason_code, update_at: u.at, update_arch: u.arch,
  };
}

/**
 * After a report: the rollouts count a site whose step, update version or running version moved
 * (releases/engine.ts). A failure here is logged, never the box's: its report is stored.
 */
async function countForRollouts(services: Services, before: Pick<SyncSiteRow, 'tenant_id' | 'site_id' | 'update_step' | 'update_version' | 'app_version'>, report: Partial<SyncSiteRow>): Promise<void> {
  if (!services.modules.isInstalled('releases') || !reportMoved(before, report)) return;
  try {
    await evaluateRollouts(services, { runningOnly: true, correlationId: `site-${siteKeyOf(before)}` });
  } catch (err) {
    services.log.error('rollout evaluation failed', { site: siteKeyOf(before), error: (err as Error).message });
  }
}

/**
 * Whether a site holds the master's current state: the digests it reported equal the master's
 * (engine/held.ts). A box that does not report digests (an older version) is judged by the
 * revision of the last state it applied, as before.
 */
export function holdsMasterState(site: Pick<SyncSiteRow, 'held' | 'down_revision'>, down: DownState): boolean {
  const held = typeof site.held === 'string' ? (JSON.parse(site.held) as Partial<Held>) : site.held;
  if (!held) return site.down_revision === down.revision;
  return differing(held, masterDigests(down)).length === 0;
}

export async function pull(services: Services, caller: Caller | undefined, body: PullBody): Promise<PullAnswer> {
  const { db } = services;
  const site = await siteOf(services, caller);
  const rec = await modeOf(db, site.tenant_id);
  const sites = new Store<SyncSiteRow>(db, syncSites);
  const key = { tenant_id: site.tenant_id, site_id: site.site_id };
  const report = reportOf(body, new Date().toISOString());
  const fresh = (await sites.update(key, report)) ?? { ...site, ...report };
  await countForRollouts(services, site, report);
  const down = await downState(db, { ...site, industry_code: body.industry_code ?? site.industry_code });
  // The release the box should install now (releases/engine.ts), kept on its row for the fleet view.
  const update = services.modules.isInstalled('releases') ? await offerFor(db, fresh, down.version_policies) : null;
  const target = { target_version: update?.version ?? null, target_rollout_id: update?.rollout_id ?? null };
  if ((fresh.target_version ?? null) !== target.target_version || (fresh.target_rollout_id ?? null) !== target.target_rollout_id) await sites.update(key, target);
  return { tenant_id: site.tenant_id, site_id: site.site_id, mode: rec.mode as SyncMode, run_requested_at: rec.run_requested_at, applied_seq: Number(site.applied_seq), ...down, update, push_after: true, telemetry_columns: true };
}

/** Pushes of one site are applied one at a time in this process (the row update orders them across processes). */
const queues = new Map<string, Promise<unknown>>();
/** `behind()`: whether another push of the site came into the queue after this one. */
function perSite<T>(key: string, fn: (behind: () => boolean) => Promise<T>): Promise<T> {
  const mine: { tail?: Promise<unknown> } = {};
  const go = () => fn(() => queues.get(key) !== mine.tail);
  const run = (queues.get(key) ?? Promise.resolve()).then(go, go);
  const tail = run.catch(() => undefined);
  mine.tail = tail;
  queues.set(key, tail);
  void tail.then(() => { if (queues.get(key) === tail) queues.delete(key); });
  return run;
}

export async function push(services: Services, caller: Caller | undefined, body: PushBody): Promise<PushAnswer> {
  const { db } = services;
  const who = siteCaller(caller);
  const key = { tenant_id: who.tenant_id, site_id: who.site_id };
  const queue = `${key.tenant_id}\n${key.site_id}`;
  // Its events: those of `events` and the telemetry events sent as columns (engine/columns.ts).
  const sent = eventsAfter(body).count;
  // Not taken because the push named by `after` is not applied yet.
  const early = (applied: number) => body.after !== undefined && sent > 0 && applied < body.after;
  // Null: sent right after the push before it, this one overtook it on the way (both were read,
  // checked and validated at once) and that one is now queued behind it: it is taken after it.
  const once = async (behind: () => boolean): Promise<PushAnswer | null> => {
    const now = new Date().toISOString();
    const report = reportOf(body, now);
    if (onePushFits(db)) {
      const one = await pushInOne(db, { ...key, passkey_id: who.subject }, body, report, now);
      if (!one.before) throw notTheCredential(who);
      if (one.mode === null) throw noRecord(key.tenant_id);
      if (one.mode === 'paused' && sent > 0) throw pausedPush(key.tenant_id);
      if (one.applied_seq !== null) {
        await countForRollouts(services, { ...key, ...one.before }, report);
        return { applied_seq: one.applied_seq, accepted: sent, duplicates: 0, mode: one.mode as SyncMode };
      }
      if (early(one.before.applied_seq) && behind()) return null;
      // Some of these events were applied before (a re-sent batch), or the push before this one
      // (`after`) was not: statement by statement, below.
    }
    const site = await siteOf(services, caller);
    const rec = await modeOf(db, site.tenant_id);
    if (rec.mode === 'paused' && sent > 0) throw pausedPush(site.tenant_id);
    const answer = await applyPush(db, site, body, rec.mode as SyncMode, now);
    await countForRollouts(services, site, report);
    return early(answer.applied_seq) && behind() ? null : answer;
  };
  return (await perSite(queue, once)) ?? (await perSite(queue, async () => (await once(() => false))!));
}

/** A push statement by statement, in one transaction (SQLite; on PostgreSQL a batch re-sent in part or whole). */
async function applyPush(db: Database, site: SyncSiteRow, body: PushBody, mode: SyncMode, now: string): Promise<PushAnswer> {
  const key = { tenant_id: site.tenant_id, site_id: site.site_id };
  return db.transaction(async () => {
    const st = tableOf(syncSites, db);
    const sc = (n: string) => colOf(syncSites, db, n);
    // Updating the site row first locks it (PostgreSQL) until commit: two processes cannot
    // apply pushes of one site at the same time, so the high-water mark below is exact.
    const [locked] = (await db.orm.update(st).set(reportOf(body, now) as never)
      .where(and(eq(sc('tenant_id'), site.tenant_id), eq(sc('site_id'), site.site_id))).returning()) as SyncSiteRow[];
    let applied = Number(locked?.applied_seq ?? 0);
    // Sent before the answer to the push before it, which is not applied (yet): none of it is taken.
    if (body.after !== undefined && applied < body.after) return { applied_seq: applied, accepted: 0, duplicates: 0, mode };
    const fresh = [...body.events].sort((a, b) => a.seq - b.seq).filter((e) => e.seq > applied);
    // Both parts of the body count: the events and the telemetry events sent as columns.
    const taken = eventsAfter(body, applied);
    const duplicates = eventsAfter(body).count - taken.count;
    if (taken.count) {
      await insertInbox(db, key, inboxed(fresh), now);
      const beat = await project(db, site, fresh, now, body.telemetry ? { telemetry: body.telemetry, after: applied } : undefined);
      applied = taken.last!;
      // The newest heartbeat is kept on the site row, so the fleet view reads no heartbeat table.
      const lastBeat = beat && (!locked?.last_heartbeat_at || beat > locked.last_heartbeat_at) ? { last_heartbeat_at: beat } : {};
      await db.orm.update(st).set({ applied_seq: applied, events_received: sql`${sc('events_received')} + ${taken.count}`, ...lastBeat } as never)
        .where(and(eq(sc('tenant_id'), site.tenant_id), eq(sc('site_id'), site.site_id)));
    }
    return { applied_seq: applied, accepted: taken.count, duplicates, mode };
  });
}

/**
 * The rows of a JSON array parameter, one per element (`r`), on either engine: a statement with a
 * few parameters instead of one per value. A push's rows built as bound values cost the master
 * more CPU than everything else it does for them (the query builder visits each value; 3,500
 * for a push of 500 events), and more than the rows' own insert (docs/request-overhead.md).
 */
const jsonRows = (db: Database, json: string, fields: Record<string, 'text' | 'int' | 'real' | 'json'>) => {
  const pgCast = { text: '', int: '::bigint', real: '::double precision', json: '' };
  const cols = Object.entries(fields).map(([f, kind]) => (db.dialect === 'postgres'
    ? (kind === 'json' ? `r->'${f}'` : `(r->>'${f}')${pgCast[kind]}`)
    : `json_extract(r.value, '$.${f}')`));
  return { cols: sql.raw(cols.join(', ')), from: db.dialect === 'postgres' ? sql`jsonb_array_elements(${json}::jsonb) r` : sql`json_each(${json}) r` };
};

async function insertInbox(db: Database, key: { tenant_id: string; site_id: string }, events: Fresh, now: string): Promise<void> {
  if (!events.length) return;
  const json = JSON.stringify(events.map((e) => ({ seq: e.seq, kind: e.kind, created_at: e.created_at, payload: e.payload })));
  const { cols, from } = jsonRows(db, json, { seq: 'int', kind: 'text', created_at: 'text', payload: 'json' });
  await db.run(sql`insert into ${tableOf(syncInbox, db)} ("tenant_id", "site_id", "seq", "kind", "created_at", "payload", "received_at")
    select ${key.tenant_id}, ${key.site_id}, ${cols}, ${now} from ${from}`);
}

/**
 * One upsert of the push's rows, the same SQL on both engines: a minute already stored (from an
 * earlier push) gets the new points added. The CASE keeps min/max right when either is null.
 */
async function upsertTelemetry(db: Database, site: SyncSiteRow, rows: Aggregate[], rollups: RollupBatch): Promise<void> {
  if (!rows.length) return;
  const t = tableOf(syncTelemetry, db);
  const c = (n: string) => colOf(syncTelemetry, db, n);
  const ex = (n: string) => sql.raw(`excluded.${n}`);
  const set = {
    points: sql`${c('points')} + ${ex('points')}`,
    sum: sql`${c('sum')} + ${ex('sum')}`,
    min: sql`case when ${c('min')} is null or ${ex('min')} < ${c('min')} then ${ex('min')} else ${c('min')} end`,
    max: sql`case when ${c('max')} is null or ${ex('max')} > ${c('max')} then ${ex('max')} else ${c('max')} end`,
    last_status: ex('last_status'),
  };
  const target = sql.raw(['tenant_id', 'site_id', 'device_id', 'metric', 'bucket'].map((n) => `"${n}"`).join(', '));
  const { cols, from } = jsonRows(db, JSON.stringify(rows), { device_id: 'text', metric: 'text', bucket: 'text', points: 'int', sum: 'real', min: 'real', max: 'real', last_status: 'text' });
  // One statement per push (projectionOf made the keys unique within it); `where true` tells SQLite's
  // parser that the ON CONFLICT belongs to the INSERT, not to a join.
  const stored = await db.rows<{ device_id: string; metric: string; bucket: string; points: number | string }>(sql`insert into ${t}
      ("tenant_id", "site_id", "device_id", "metric", "bucket", "points", "sum", "min", "max", "last_status")
      select ${site.tenant_id}, ${site.site_id}, ${cols} from ${from} where true
      on conflict (${target}) do update set "points" = ${set.points}, "sum" = ${set.sum}, "min" = ${set.min}, "max" = ${set.max}, "last_status" = ${set.last_status}
      returning "device_id", "metric", "bucket", "points"`);
  // A row whose stored points are exactly this push's was new: an existing minute already held points.
  const pushed = new Map(rows.map((r) => [telemetryKey(r), r.points]));
  const bucketsOf = rollupBucketsOf();
  for (const r of stored) {
    const points = pushed.get(telemetryKey(r)) ?? 0;
    rollups.telemetry(bucketsOf(r.bucket), points, Number(r.points) === points);
  }
}

/** Typed views the fleet reads: alarms (latest state), heartbeats, per-minute telemetry, and their roll-ups; answers the newest heartbeat's time. */
async function project(db: Database, site: SyncSiteRow, events: Fresh, now: string, columns?: Parameters<typeof projectionOf>[3]): Promise<string | null> {
  const p = projectionOf(site, events, now, columns);
  if (p.alarms.length) {
    const set = Object.fromEntries(Object.entries(ALARM_CHANGE_SET).map(([k, v]) => [k, sql.raw(v)]));
    const ac = (n: string) => colOf(syncAlarms, db, n);
    const per = rowsPerInsert(15);
    for (let i = 0; i < p.alarms.length; i += per) {
      await db.orm.insert(tableOf(syncAlarms, db)).values(p.alarms.slice(i, i + per) as never).onConflictDoUpdate({ target: [ac('tenant_id'), ac('alarm_id')] as never, set: set as never });
    }
  }
  await upsertTelemetry(db, site, p.telemetry, p.rollups);
  const per = rowsPerInsert(6);
  for (let i = 0; i < p.heartbeats.length; i += per) await db.orm.insert(tableOf(syncHeartbeats, db)).values(p.heartbeats.slice(i, i + per) as never);
  await addRollups(db, site, p.rollups);
  return p.newestBeat;
}

// ---------------------------------------------------------------- the sync record

export interface SyncTiming {
  /** A site not heard from for longer is out of contact. */
  staleMs: number;
}

/**
 * Recomputes the sync records of the given tenants (all when none) from the sites' rows:
 * status live when every site is in contact, has an empty outbox and has applied the current
 * master-owned state; stopped when the tenant is paused or no site is in contact; otherwise
 * degraded. Lag is the age of the oldest waiting event, or the silence of a site out of contact.
 */
export async function refreshRecords(db: Database, timing: SyncTiming, tenants?: string[]): Promise<void> {
  const sitesTable = tableOf(syncSites, db);
  const sites = (await (tenants?.length
    ? db.orm.select().from(sitesTable).where(inArray(colOf(syncSites, db, 'tenant_id'), tenants))
    : db.orm.select().from(sitesTable))) as SyncSiteRow[];
  const recTable = tableOf(syncTenants, db);
  const records = (await (tenants?.length
    ? db.orm.select().from(recTable).where(inArray(colOf(syncTenants, db, 'tenant_id'), tenants))
    : db.orm.select().from(recTable))) as SyncTenantRow[];
  const now = Date.now();
  const downs = await downStates(db, sites);
  for (const rec of records) {
    const mine = sites.filter((s) => s.tenant_id === rec.tenant_id);
    let lag = 0;
    let live = 0;
    let inContact = 0;
    let pendingUp = 0;
    let pendingDown = 0;
    let lastSeen: string | null = null;
    let received = 0;
    let runDoneSites = 0;
    for (const s of mine) {
      const inSync = holdsMasterState(s, downs.get(siteKeyOf(s))!);
      received += Number(s.events_received);
      const seen = s.last_seen_at ? Date.parse(s.last_seen_at) : null;
      if (s.last_seen_at && (!lastSeen || s.last_seen_at > lastSeen)) lastSeen = s.last_seen_at;
      const contact = seen !== null && now - seen <= timing.staleMs;
      const pending = Number(s.reported_pending);
      pendingUp += pending;
      if (!inSync) pendingDown++;
      if (pending > 0 && s.reported_oldest_at) lag = Math.max(lag, (now - Date.parse(s.reported_oldest_at)) / 1000);
      if (seen !== null && !contact) lag = Math.max(lag, (now - seen) / 1000);
      if (contact) inContact++;
      if (contact && pending === 0 && inSync) live++;
      if (rec.run_requested_at && runDone(s, rec.run_requested_at, downs.get(siteKeyOf(s))!)) runDoneSites++;
    }
    const status = rec.mode === 'paused' || inContact === 0 ? 'stopped' : live === mine.length ? 'live' : 'degraded';
    const next: Partial<SyncTenantRow> = {
      status, lag_seconds: Math.round(lag * 10) / 10, pending_up: pendingUp, pending_down: pendingDown, pending: pendingUp + pendingDown,
      sites: mine.length, sites_live: live, events_received: received, last_seen_at: lastSeen,
      sites_run_done: rec.run_requested_at ? runDoneSites : null, updated_at: new Date(now).toISOString(),
    };
    // A read that finds the record as it is writes nothing (at 1,000 sites, rewriting every
    // tenant's row on every read cost 0.8 s on PostgreSQL).
    const same = (Object.keys(next) as (keyof SyncTenantRow)[]).every((k) => k === 'updated_at' || String(next[k] ?? '') === String(rec[k] ?? ''));
    if (same) continue;
    await new Store<SyncTenantRow>(db, syncTenants).update({ tenant_id: rec.tenant_id }, next);
  }
}

/**
 * Whether a site has completed the forced run requested at `requested`: the box reported that run
 * (or a later one) done, i.e. it pushed everything its outbox held when it took the request, and
 * it holds the master-owned state. A site that never reported a completed run (a box older than
 * run_done) is judged as before: an empty outbox reported after the request.
 */
export function runDone(site: Pick<SyncSiteRow, 'run_done_at' | 'last_seen_at' | 'reported_pending' | 'held' | 'down_revision'>, requested: string, down: DownState): boolean {
  const pushed = site.run_done_at
    ? site.run_done_at >= requested
    : site.last_seen_at !== null && site.last_seen_at > requested && Number(site.reported_pending) === 0;
  return pushed && holdsMasterState(site, down);
}

export async function setMode(db: Database, tenant: string, mode: SyncMode): Promise<void> {
  await modeOf(db, tenant);
  await new Store<SyncTenantRow>(db, syncTenants).update({ tenant_id: tenant }, { mode, updated_at: new Date().toISOString() });
}

/**
 * Asks every site of the tenant to push now (they see the request on their next pull) and,
 * with waitMs, waits until each has completed the run (runDone). Not "an empty outbox": a box
 * appends a heartbeat every sync_heartbeat_ms, and in manual mode does not push it, so an empty
 * outbox was a window of one pull that a poll could miss, and the wait then ran to its end.
 */
export async function requestRun(db: Database, timing: SyncTiming, tenant: string, waitMs: number): Promise<void> {
  const rec = await modeOf(db, tenant);
  if (rec.mode === 'paused') throw new ApiError('lifecycle_conflict', `sync of tenant ${tenant} is paused; set mode auto or manual first`, [{ field: 'mode', reason: 'paused' }]);
  const requested = new Date().toISOString();
  await new Store<SyncTenantRow>(db, syncTenants).update({ tenant_id: tenant }, { run_requested_at: requested });
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const sites = (await db.orm.select().from(tableOf(syncSites, db)).where(eq(colOf(syncSites, db, 'tenant_id'), tenant))) as SyncSiteRow[];
    const downs = await downStates(db, sites);
    if (sites.every((s) => runDone(s, requested, downs.get(siteKeyOf(s))!))) break;
    await new Promise((r) => setTimeout(r, Math.min(100, timing.staleMs)));
  }
  await refreshRecords(db, timing, [tenant]);
}
