// The master's release engine: what a site should install now (its offer, answered in each pull)
// and how a rollout advances (hawkBit-like waves with a failure threshold).
//
// A site's target = the highest published release that (1) the version policies in force for it
// allow (policy.ts: pinned wins), (2) a rollout has reached it with, and (3) is newer than the
// version it runs (the master never offers a downgrade: an older package meets a database a newer
// version migrated; going back is the box's own rollback with the backup it took). A site held by
// the fleet team, or one that does not report its update state (an older box: no arch), has none.
//
// A rollout's waves: wave 0 the named canaries, wave k the first waves[k-1] % of the other eligible
// sites (eligible: not held, reports its arch, a package of that arch, its policy allows the
// release, and it runs an older version or this one) in a stable order (sha256 of site@tenant). The
// sites of a wave are written down when the wave starts (release_rollout_sites) and never move.
// Wave k starts once every site of the waves before it has finished (done, failed or rolled back;
// a held or no longer eligible site is skipped) and the failure rate (failed + rolled back over
// finished, failures accepted by a resume left out) is at or below the threshold; above it the
// whole rollout pauses, with the reasons. Evaluation runs when a site's report changes its step or
// version, when the rollout is read, on its commands, and in the master's 30 s sweep (module.ts):
// the rollout advances on the boxes' reports; time alone never starts a wave.
import { createHash } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import semver from '../../runtime/semver.js';
import type { Database } from '../../db/client.js';
import { colOf, tableOf } from '../../db/sql.js';
import { Store } from '../../db/store.js';
import type { Services } from '../../kernel/context.js';
import { versionPolicies, type VersionPolicyRow } from '../version-policies/schema.js';
import { syncSites, type SyncSiteRow } from '../tenant-master-sync/schema.js';
import type { UpdateOffer, UpdatePackage } from '../tenant-master-sync/engine/protocol.js';
import { refusalOf, softwarePolicies } from './policy.js';
import {
  releasePackages, releaseRollouts, releases, rolloutSites,
  type ReleasePackageRow, type ReleaseRow, type RolloutRow, type RolloutSiteRow,
} from './schema.js';

export const siteKey = (s: { tenant_id: string; site_id: string }): string => `${s.site_id}@${s.tenant_id}`;

/** Steps after which a box has given up a version (it runs its previous one). */
const FAILED_STEPS = new Set(['rolled_back', 'failed']);
/** Steps in which the new version runs but has not proven itself yet. */
const UNPROVEN_STEPS = new Set(['installing', 'proving']);

export type SiteOutcome = 'pending' | 'done' | 'failed' | 'skipped';

/** Where a site stands with a version, from what it reported (and whether it still takes part). */
export function outcomeOf(site: SyncSiteRow, version: string, eligible: boolean): SiteOutcome {
  if (site.update_version && semver.valid(site.update_version) && semver.eq(site.update_version, version) && FAILED_STEPS.has(site.update_step ?? '')) return 'failed';
  const running = site.app_version && semver.valid(site.app_version) ? site.app_version : null;
  if (running && semver.eq(running, version) && !UNPROVEN_STEPS.has(site.update_step ?? '')) return 'done';
  if (!eligible) return 'skipped';
  return 'pending';
}

/** What a rollout's evaluation needs of the fleet, read once. */
export interface Fleet {
  sites: SyncSiteRow[];
  policies: VersionPolicyRow[];
}

export async function readFleet(db: Database): Promise<Fleet> {
  const [sites, policies] = await Promise.all([
    db.orm.select().from(tableOf(syncSites, db)),
    db.orm.select().from(tableOf(versionPolicies, db)).where(eq(colOf(versionPolicies, db, 'module_id'), 'cabinet')),
  ]);
  return { sites: sites as SyncSiteRow[], policies: policies as VersionPolicyRow[] };
}

const tenantPolicies = (all: readonly VersionPolicyRow[], tenant: string) =>
  all.filter((r) => r.scope === 'global' || r.scope === 'industry' || (r.scope === 'tenant' && r.tenant_id === tenant));

/** Null when the site may take the release (of these packages); else why not. */
export function ineligibility(site: SyncSiteRow, version: string, arches: ReadonlySet<string>, policies: readonly VersionPolicyRow[]): string | null {
  if (site.update_hold) return 'held by the fleet team';
  const running = site.app_version && semver.valid(site.app_version) ? site.app_version : null;
  if (!running) return 'does not report the version it runs';
  if (semver.gt(running, version)) return `runs ${running}, newer than ${version}`;
  const refused = refusalOf(softwarePolicies(tenantPolicies(policies, site.tenant_id), site), version);
  if (refused) return refused;
  if (semver.eq(running, version)) return null;
  if (!site.update_arch) return 'does not report its update state (no architecture)';
  if (!arches.has(site.update_arch)) return `no package for ${site.update_arch}`;
  return null;
}

const order = (key: string) => createHash('sha256').update(key).digest('hex');

async function packagesOf(db: Database, releaseIds: string[]): Promise<ReleasePackageRow[]> {
  if (!releaseIds.length) return [];
  return (await db.orm.select().from(tableOf(releasePackages, db)).where(inArray(colOf(releasePackages, db, 'release_id'), releaseIds))) as ReleasePackageRow[];
}

const completeArches = (pkgs: readonly ReleasePackageRow[], release: string) =>
  new Set(pkgs.filter((p) => p.release_id === release && Boolean(p.complete)).map((p) => p.arch));

const asArray = <T>(x: unknown): T[] => (typeof x === 'string' ? (JSON.parse(x) as T[]) : ((x ?? []) as T[]));

export interface WaveView {
  wave: number;
  percent: number | null;
  started: boolean;
  sites: { id: string; outcome: SiteOutcome; step: string | null; progress: number | null; reason: string | null }[];
}

export interface RolloutProgress {
  eligible: number;
  finished: number;
  done: number;
  failed: number;
  pending: number;
  failure_rate_percent: number;
  waves: WaveView[];
}

interface Assessment {
  progress: RolloutProgress;
  /** Failed sites not accepted, with their reasons. */
  failures: { id: string; reason: string | null; step: string | null }[];
  rate: number;
  /** Every site of the waves started so far has finished (or is skipped). */
  settled: boolean;
  eligible: SyncSiteRow[];
}

function assess(rollout: RolloutRow, release: ReleaseRow, pkgs: readonly ReleasePackageRow[], members: readonly RolloutSiteRow[], fleet: Fleet): Assessment {
  const arches = completeArches(pkgs, release.id);
  const byKey = new Map(fleet.sites.map((s) => [siteKey(s), s]));
  const eligible = fleet.sites.filter((s) => ineligibility(s, release.version, arches, fleet.policies) === null);
  const eligibleKeys = new Set(eligible.map(siteKey));
  const accepted = new Set(asArray<string>(rollout.accepted_failures));
  const waves = asArray<number>(rollout.waves);
  const views: WaveView[] = [{ wave: 0, percent: null, started: true, sites: [] }, ...waves.map((p, i) => ({ wave: i + 1, percent: p, started: i + 1 <= Number(rollout.wave), sites: [] }))];
  const failures: Assessment['failures'] = [];
  let done = 0;
  let failed = 0;
  let pending = 0;
  let countedFinished = 0;
  let countedFailed = 0;
  for (const m of [...members].sort((a, b) => Number(a.wave) - Number(b.wave) || order(siteKey(a)).localeCompare(order(siteKey(b))))) {
    const key = siteKey(m);
    const site = byKey.get(key);
    const outcome: SiteOutcome = site ? outcomeOf(site, release.version, eligibleKeys.has(key)) : 'skipped';
    if (outcome === 'done') done++;
    if (outcome === 'failed') failed++;
    if (outcome === 'pending') pending++;
    if ((outcome === 'done' || outcome === 'failed') && !accepted.has(key)) {
      countedFinished++;
      if (outcome === 'failed') {
        countedFailed++;
        failures.push({ id: key, reason: site?.update_reason ?? null, step: site?.update_step ?? null });
      }
    }
    views[Number(m.wave)]?.sites.push({
      id: key, outcome, step: site?.update_step ?? null, progress: site?.update_progress ?? null,
      reason: outcome === 'failed' || outcome === 'pending' ? (site?.update_reason ?? null) : null,
    });
  }
  const rate = countedFinished ? (countedFailed * 100) / countedFinished : 0;
  return {
    progress: { eligible: eligible.length, finished: done + failed, done, failed, pending, failure_rate_percent: Math.round(rate * 10) / 10, waves: views },
    failures, rate, settled: pending === 0, eligible,
  };
}

/** The sites wave k adds: the eligible canaries for 0; else the next sites in the stable order up to waves[k-1] % of the others. */
function waveSites(rollout: RolloutRow, k: number, eligible: readonly SyncSiteRow[], members: readonly RolloutSiteRow[]): SyncSiteRow[] {
  const taken = new Set(members.map(siteKey));
  if (k === 0) {
    const byKey = new Map(eligible.map((s) => [siteKey(s), s]));
    return asArray<string>(rollout.canary_site_ids).map((id) => byKey.get(id)).filter((s): s is SyncSiteRow => !!s && !taken.has(siteKey(s)));
  }
  const canaries = new Set(members.filter((m) => Number(m.wave) === 0).map(siteKey));
  const others = eligible.filter((s) => !canaries.has(siteKey(s)));
  const want = Math.ceil(((asArray<number>(rollout.waves)[k - 1] ?? 100) * others.length) / 100);
  const already = members.filter((m) => Number(m.wave) >= 1).length;
  return others.filter((s) => !taken.has(siteKey(s)))
    .sort((a, b) => order(siteKey(a)).localeCompare(order(siteKey(b))))
    .slice(0, Math.max(0, want - already));
}

export interface EvaluationOptions {
  /** Only this rollout (a command's); every rollout when absent (their progress is refreshed too). */
  rolloutId?: string;
  /** Only the running rollouts (a report, the sweep): nothing is read of the fleet when none runs. */
  runningOnly?: boolean;
  /** Who to name in the audit of what the evaluation does. */
  actor?: string;
  correlationId?: string;
}

async function audit(services: Services, action: string, rollout: RolloutRow, details: Record<string, unknown>, opts: EvaluationOptions): Promise<void> {
  await services.audit.record({
    actor: opts.actor ?? 'system:rollouts', action, resource: 'release-rollouts', result: 'success',
    correlation_id: opts.correlationId ?? `rollout-${rollout.id}`, details: { rollout_id: rollout.id, release_id: rollout.release_id, ...details }, tenant_id: null,
  });
}

const iso = (services: Services) => new Date(services.clock.now()).toISOString();

/** Starts wave k of a rollout (writes its sites); answers whether this process did it. */
export async function startWave(services: Services, rollout: RolloutRow, k: number, eligible: readonly SyncSiteRow[], members: readonly RolloutSiteRow[], opts: EvaluationOptions): Promise<RolloutSiteRow[] | undefined> {
  const { db } = services;
  const now = iso(services);
  const added = waveSites(rollout, k, eligible, members).map((s): RolloutSiteRow => ({ rollout_id: rollout.id, tenant_id: s.tenant_id, site_id: s.site_id, wave: k, assigned_at: now }));
  const moved = await db.transaction(async () => {
    // The conditional update is the lock: of two master processes evaluating at once, one moves the wave.
    const rc = (n: string) => colOf(releaseRollouts, db, n);
    const rows = (await db.orm.update(tableOf(releaseRollouts, db)).set({ wave: k, updated_at: now } as never)
      .where(and(eq(rc('id'), rollout.id), eq(rc('state'), 'running'), eq(rc('wave'), k === 0 ? 0 : k - 1))).returning()) as RolloutRow[];
    if (!rows.length) return false;
    for (const row of added) await db.orm.insert(tableOf(rolloutSites, db)).values(row as never).onConflictDoNothing();
    return true;
  });
  if (!moved) return undefined;
  await audit(services, 'release_rollout.wave_started', rollout, { wave: k, percent: k === 0 ? null : asArray<number>(rollout.waves)[k - 1], sites: added.map(siteKey) }, opts);
  return added;
}

async function membersOf(db: Database, rolloutId: string): Promise<RolloutSiteRow[]> {
  return (await db.orm.select().from(tableOf(rolloutSites, db)).where(eq(colOf(rolloutSites, db, 'rollout_id'), rolloutId))) as RolloutSiteRow[];
}

/**
 * Advances the running rollouts (or one) as far as the sites' reports allow, pausing one whose
 * failure rate is above its threshold; stores each rollout's progress. Answers the rollouts as
 * they are afterwards.
 */
export async function evaluateRollouts(services: Services, opts: EvaluationOptions = {}): Promise<RolloutRow[]> {
  const { db } = services;
  const rc = (n: string) => colOf(releaseRollouts, db, n);
  const rollouts = (await (opts.rolloutId
    ? db.orm.select().from(tableOf(releaseRollouts, db)).where(eq(rc('id'), opts.rolloutId))
    : opts.runningOnly
      ? db.orm.select().from(tableOf(releaseRollouts, db)).where(eq(rc('state'), 'running'))
      : db.orm.select().from(tableOf(releaseRollouts, db)))) as RolloutRow[];
  if (!rollouts.length) return [];
  const fleet = await readFleet(db);
  const rels = (await db.orm.select().from(tableOf(releases, db)).where(inArray(colOf(releases, db, 'id'), [...new Set(rollouts.map((r) => r.release_id))]))) as ReleaseRow[];
  const relById = new Map(rels.map((r) => [r.id, r]));
  const pkgs = await packagesOf(db, rels.map((r) => r.id));
  const store = new Store<RolloutRow>(db, releaseRollouts);
  const out: RolloutRow[] = [];
  for (let rollout of rollouts) {
    const release = relById.get(rollout.release_id);
    if (!release) { out.push(rollout); continue; }
    let members = await membersOf(db, rollout.id);
    let a = assess(rollout, release, pkgs, members, fleet);
    // At most one step per wave (and one more for done or a pause): each step changes the state.
    for (let guard = 0; rollout.state === 'running' && guard <= asArray<number>(rollout.waves).length + 2; guard++) {
      const threshold = Number(rollout.failure_threshold_percent);
      if (a.failures.length > 0 && a.rate > threshold) {
        const reason = `failure rate ${Math.round(a.rate * 10) / 10} % (${a.failures.length} of ${a.progress.finished} finished sites failed or rolled back) is above the threshold ${threshold} %: `
          + a.failures.map((f) => `${f.id} ${f.step ?? 'failed'}${f.reason ? `: ${f.reason}` : ''}`).join('; ');
        const paused = await store.update({ id: rollout.id, state: 'running' }, { state: 'paused', paused_reason: reason.slice(0, 2000), updated_at: iso(services) });
        if (paused) {
          await audit(services, 'release_rollout.paused', rollout, { reason, failure_rate_percent: a.progress.failure_rate_percent, failed_sites: a.failures.map((f) => f.id) }, opts);
          rollout = paused;
        }
        break;
      }
      if (!a.settled) break;
      const next = Number(rollout.wave) + 1;
      if (next > asArray<number>(rollout.waves).length) {
        const finished = await store.update({ id: rollout.id, state: 'running' }, { state: 'done', finished_at: iso(services), updated_at: iso(services) });
        if (finished) {
          await audit(services, 'release_rollout.done', rollout, { done: a.progress.done, failed: a.progress.failed }, opts);
          rollout = finished;
        }
        break;
      }
      const added = await startWave(services, rollout, next, a.eligible, members, opts);
      if (!added) break;
      rollout = { ...rollout, wave: next };
      members = [...members, ...added];
      a = assess(rollout, release, pkgs, members, fleet);
    }
    const progress = assess(rollout, release, pkgs, members, fleet).progress;
    const stored = typeof rollout.progress === 'string' ? (JSON.parse(rollout.progress) as unknown) : rollout.progress;
    if (JSON.stringify(stored) !== JSON.stringify(progress)) rollout = (await store.update({ id: rollout.id }, { progress: progress as unknown as Record<string, unknown> })) ?? rollout;
    out.push(rollout);
  }
  return out;
}

/** The package of a published release for an arch, as a box downloads it; undefined when there is none complete. */
export function packageOffer(release: ReleaseRow, pkg: ReleasePackageRow | undefined): UpdatePackage | undefined {
  if (!pkg || !pkg.complete || pkg.size === null || !pkg.sha256 || !pkg.signed || pkg.chunks === null) return undefined;
  return { version: release.version, arch: pkg.arch, size: Number(pkg.size), sha256: pkg.sha256, chunk_size: Number(pkg.chunk_size), chunks: Number(pkg.chunks), signed: pkg.signed };
}

/**
 * What a site should install now (see the top of this file), with the package of the version it
 * runs when published; null when nothing. `policies`: the version policies the site receives.
 */
export async function offerFor(db: Database, site: SyncSiteRow, policies: readonly VersionPolicyRow[]): Promise<UpdateOffer | null> {
  if (site.update_hold || !site.update_arch) return null;
  const running = site.app_version && semver.valid(site.app_version) ? site.app_version : null;
  if (!running) return null;
  const rc = (n: string) => colOf(releaseRollouts, db, n);
  const [rolloutRows, memberRows] = await Promise.all([
    db.orm.select().from(tableOf(releaseRollouts, db)).where(inArray(rc('state'), ['running', 'paused', 'done'])),
    db.orm.select().from(tableOf(rolloutSites, db)).where(and(eq(colOf(rolloutSites, db, 'tenant_id'), site.tenant_id), eq(colOf(rolloutSites, db, 'site_id'), site.site_id))),
  ]);
  const rollouts = rolloutRows as RolloutRow[];
  const memberships = memberRows as RolloutSiteRow[];
  if (!rollouts.length) return null;
  const waveOf = new Map(memberships.map((m) => [m.rollout_id, Number(m.wave)]));
  const relIds = [...new Set(rollouts.map((r) => r.release_id))];
  const rels = (await db.orm.select().from(tableOf(releases, db)).where(inArray(colOf(releases, db, 'id'), [...relIds, running]))) as ReleaseRow[];
  const relById = new Map(rels.map((r) => [r.id, r]));
  const pkgs = await packagesOf(db, rels.map((r) => r.id));
  const pkgOf = (release: ReleaseRow) => pkgs.find((p) => p.release_id === release.id && p.arch === site.update_arch);
  const mine = softwarePolicies(tenantPolicies(policies, site.tenant_id), site);
  let best: { rollout: RolloutRow; release: ReleaseRow; pkg: UpdatePackage } | undefined;
  for (const r of rollouts) {
    const release = relById.get(r.release_id);
    if (!release || release.state !== 'published' || !semver.gt(release.version, running)) continue;
    const pkg = packageOffer(release, pkgOf(release));
    if (!pkg || refusalOf(mine, release.version)) continue;
    const wave = waveOf.get(r.id);
    const waves = asArray<number>(r.waves);
    const reached = r.state === 'done'
      ? wave !== undefined || waves[waves.length - 1] === 100
      : wave !== undefined && wave <= Number(r.wave)
        // Paused: no site that has not begun starts; one that has keeps its target.
        && (r.state === 'running' || (site.update_version === release.version && site.update_step !== 'idle'));
    if (!reached) continue;
    if (!best || semver.gt(release.version, best.release.version) || (semver.eq(release.version, best.release.version) && r.created_at > best.rollout.created_at)) best = { rollout: r, release, pkg };
  }
  if (!best) return null;
  const current = relById.get(running);
  const previous = current && current.state !== 'draft' ? (packageOffer(current, pkgOf(current)) ?? null) : null;
  return { ...best.pkg, rollout_id: best.rollout.id, proof_timeout_s: Number(best.rollout.proof_timeout_s), previous };
}

/** The site a report changed in a way a rollout counts (its step, the version it is about, or the version it runs). */
export function reportMoved(before: Partial<SyncSiteRow>, after: Partial<SyncSiteRow>): boolean {
  return (after.update_step !== undefined && after.update_step !== before.update_step)
    || (after.update_version !== undefined && after.update_version !== before.update_version)
    || (after.app_version !== undefined && after.app_version !== before.app_version);
}
