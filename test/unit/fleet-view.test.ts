// The fleet view's rule for one site (engine/sites.ts viewOf, lagOf): the tenant rule per site,
// the versions verdict from what the box reported, and the attention sum that orders the list.
import { describe, expect, it } from 'vitest';
import { lagOf, viewOf } from '../../src/modules/tenant-master-sync/engine/sites.js';
import type { DownState } from '../../src/modules/tenant-master-sync/engine/master.js';
import type { SyncSiteRow } from '../../src/modules/tenant-master-sync/schema.js';
import type { VersionPolicyRow } from '../../src/modules/version-policies/schema.js';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();
const timing = { staleMs: 60_000 };
const policy = (p: Partial<VersionPolicyRow>): VersionPolicyRow => ({
  id: 'p', scope: 'global', industry_code: null, tenant_id: null, module_id: null, allowed_major: null, min_version: null, max_version: null, pinned_version: null,
  origin: 'local', updated_by: 'x', updated_at: ago(0), ...p,
});
const down = (policies: VersionPolicyRow[] = []): DownState => ({ revision: 'rev-1', version_policies: policies, site_policies: [], industry_profiles: [] });
const site = (s: Partial<SyncSiteRow> = {}): SyncSiteRow => ({
  tenant_id: 't', site_id: 's', passkey_id: 'pk', industry_code: 'poultry', registered_at: ago(3600), last_seen_at: ago(5), applied_seq: 0, events_received: 0,
  reported_pending: 0, reported_oldest_at: null, down_revision: 'rev-1', last_rtt_ms: null, held: null, module_versions: null, ...s,
});

describe('the fleet view of one site', () => {
  it('is live in contact with nothing pending and the state held; degraded otherwise; stopped when silent or paused', () => {
    expect(viewOf(site(), down(), 'auto', 0, timing, NOW)).toMatchObject({ id: 's@t', status: 'live', attention: 0, holds_master_state: true });
    expect(viewOf(site({ reported_pending: 3, reported_oldest_at: ago(40) }), down(), 'auto', 0, timing, NOW)).toMatchObject({ status: 'degraded', attention: 4 });
    expect(viewOf(site({ down_revision: 'rev-0' }), down(), 'auto', 0, timing, NOW)).toMatchObject({ status: 'degraded', holds_master_state: false });
    expect(viewOf(site({ last_seen_at: ago(61) }), down(), 'auto', 0, timing, NOW)).toMatchObject({ status: 'stopped', attention: 8 });
    expect(viewOf(site(), down(), 'paused', 0, timing, NOW).status).toBe('stopped');
    expect(viewOf(site({ last_seen_at: null }), down(), 'auto', 0, timing, NOW)).toMatchObject({ status: 'stopped', policy: 'unknown' });
  });

  it('judges the reported modules by the policies sent to the site, in words; unknown without a report', () => {
    const policies = [policy({ id: 'alarms-7', module_id: 'alarms', allowed_major: 7 }), policy({ id: 'swine-only', scope: 'industry', industry_code: 'swine', pinned_version: '9.9.9' })];
    const reported = site({ module_versions: [{ id: 'alarms', version: '1.0.0', industry_code: null }, { id: 'tasks', version: '1.0.0', industry_code: null }] });
    const v = viewOf(reported, down(policies), 'auto', 2, timing, NOW);
    expect(v).toMatchObject({ policy: 'violates', open_p1: 2, attention: 2 + 1 });
    // The swine policy does not apply to a poultry site.
    expect(v.policy_violations).toEqual(['alarms 1.0.0 is outside the allowed major line 7.x (policy alarms-7)']);
    expect(viewOf(site({ module_versions: [{ id: 'alarms', version: '7.1.0', industry_code: null }] }), down(policies), 'auto', 0, timing, NOW)).toMatchObject({ policy: 'conforms', policy_violations: [] });
    expect(viewOf(site(), down(policies), 'auto', 0, timing, NOW)).toMatchObject({ policy: 'unknown', policy_violations: [] });
  });

  it('lag: the oldest waiting event, or the silence of a stopped site; null before the first contact', () => {
    expect(lagOf({ last_seen_at: ago(5), reported_pending: 0, reported_oldest_at: null, status: 'live' }, NOW)).toBe(0);
    expect(lagOf({ last_seen_at: ago(5), reported_pending: 2, reported_oldest_at: ago(42), status: 'degraded' }, NOW)).toBe(42);
    expect(lagOf({ last_seen_at: ago(600), reported_pending: 0, reported_oldest_at: null, status: 'stopped' }, NOW)).toBe(600);
    expect(lagOf({ last_seen_at: null, reported_pending: 0, reported_oldest_at: null, status: 'stopped' }, NOW)).toBeNull();
  });
});
