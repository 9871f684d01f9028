// Which release versions a site's version policies allow: only policies naming module_id cabinet
// count; the most specific pinned version wins over every range; otherwise every allowed_major,
// min_version and max_version that applies must hold.
import { describe, expect, it } from 'vitest';
import { refusalOf, softwarePolicies, winningPin } from '../../src/modules/releases/policy.js';
import type { VersionPolicyRow } from '../../src/modules/version-policies/schema.js';

const policy = (p: Partial<VersionPolicyRow> & Pick<VersionPolicyRow, 'id' | 'scope'>): VersionPolicyRow => ({
  industry_code: null, tenant_id: null, module_id: 'cabinet', allowed_major: null, min_version: null, max_version: null, pinned_version: null,
  origin: 'local', updated_by: 'test', updated_at: '2026-01-01T00:00:00.000Z', ...p,
});
const site = { tenant_id: 'farm-a', industry_code: 'poultry' };

describe('release policies', () => {
  it('takes the cabinet policies of the site\'s scopes only', () => {
    const all = [
      policy({ id: 'g', scope: 'global', max_version: '1.0.0' }),
      policy({ id: 'modules', scope: 'global', module_id: null, allowed_major: 1 }),
      policy({ id: 'alarms', scope: 'global', module_id: 'alarms', allowed_major: 7 }),
      policy({ id: 'swine', scope: 'industry', industry_code: 'swine', pinned_version: '0.1.0' }),
      policy({ id: 'poultry', scope: 'industry', industry_code: 'poultry', min_version: '0.2.0' }),
      policy({ id: 'other-farm', scope: 'tenant', tenant_id: 'farm-b', pinned_version: '0.1.0' }),
      policy({ id: 'mine', scope: 'tenant', tenant_id: 'farm-a', allowed_major: 0 }),
    ];
    expect(softwarePolicies(all, site).map((p) => p.id)).toEqual(['g', 'poultry', 'mine']);
    const mine = softwarePolicies(all, site);
    expect(refusalOf(mine, '0.3.0')).toBeNull();
    expect(refusalOf(mine, '0.1.9')).toBe('cabinet 0.1.9 is older than the minimum 0.2.0 (policy poultry)');
    expect(refusalOf(mine, '1.0.0')).toBe('cabinet 1.0.0 is outside the allowed major line 0.x (policy mine)');
    expect(refusalOf(mine, 'soon')).toBe('soon is not a semantic version');
    expect(refusalOf([], '5.0.0')).toBeNull();
  });

  it('lets the most specific pinned version win, whatever the ranges say', () => {
    const g = policy({ id: 'g', scope: 'global', pinned_version: '0.1.0' });
    const i = policy({ id: 'i', scope: 'industry', industry_code: 'poultry', pinned_version: '0.2.0', max_version: '0.2.0' });
    const t = policy({ id: 't', scope: 'tenant', tenant_id: 'farm-a', pinned_version: '0.3.0' });
    expect(winningPin([g, i, t])).toEqual({ version: '0.3.0', policy_id: 't' });
    expect(winningPin([g, i])).toEqual({ version: '0.2.0', policy_id: 'i' });
    expect(refusalOf([g, i, t], '0.3.0')).toBeNull();
    expect(refusalOf([g, i, t], '0.2.0')).toBe('cabinet 0.2.0 is not the pinned 0.3.0 (policy t)');
    expect(refusalOf([g, i], '0.1.0')).toBe('cabinet 0.1.0 is not the pinned 0.2.0 (policy i)');
    // Two pins at one scope: the first by id, so the answer does not depend on the order read.
    const a = policy({ id: 'a', scope: 'global', pinned_version: '0.4.0' });
    expect(winningPin([g, a])).toEqual({ version: '0.4.0', policy_id: 'a' });
    expect(winningPin([a, g])).toEqual({ version: '0.4.0', policy_id: 'a' });
  });
});
