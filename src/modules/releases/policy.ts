// Which release versions the version policies in force for a site allow. The cabinet package as a
// whole is the module id `cabinet` for version policies: a policy naming module_id `cabinet`
// governs the software a box runs (its app version), at its scope (global, industry, tenant).
// A policy for every module (module_id null) restricts the modules' own versions, which are not the
// package's, so it does not decide releases. Pinned wins: the most specific pinned version (tenant,
// then industry, then global) is the only version allowed, whatever the ranges say; otherwise a
// version must meet every applicable policy's allowed major, minimum and maximum.
import semver from '../../runtime/semver.js';
import { applies, violationsOf } from '../version-policies/check.js';
import type { VersionPolicyRow } from '../version-policies/schema.js';

/** The module id version policies use for the cabinet package itself. */
export const SOFTWARE_ID = 'cabinet';

export interface PolicySite {
  tenant_id: string;
  industry_code: string | null;
}

const SPECIFICITY: Record<VersionPolicyRow['scope'], number> = { global: 0, industry: 1, tenant: 2 };

/** The policies of the cabinet package that apply to a site (check.ts applies()). */
export function softwarePolicies(all: readonly VersionPolicyRow[], site: PolicySite): VersionPolicyRow[] {
  const ctx = { industry_code: site.industry_code, tenant_id: site.tenant_id, single_tenant: false };
  return all.filter((p) => p.module_id === SOFTWARE_ID && applies(p, { id: SOFTWARE_ID, version: '', industry_code: null }, ctx));
}

/** The pinned version that wins for a site, with its policy (null: none pinned). */
export function winningPin(policies: readonly VersionPolicyRow[]): { version: string; policy_id: string } | null {
  const pinned = policies.filter((p) => p.pinned_version !== null)
    .sort((a, b) => SPECIFICITY[b.scope] - SPECIFICITY[a.scope] || a.id.localeCompare(b.id))[0];
  return pinned ? { version: pinned.pinned_version as string, policy_id: pinned.id } : null;
}

/** Null when the site's policies allow the version; else why not, in words. */
export function refusalOf(policies: readonly VersionPolicyRow[], version: string): string | null {
  if (!semver.valid(version)) return `${version} is not a semantic version`;
  const pin = winningPin(policies);
  if (pin) return semver.eq(version, pin.version) ? null : `${SOFTWARE_ID} ${version} is not the pinned ${pin.version} (policy ${pin.policy_id})`;
  for (const p of policies) {
    const v = violationsOf({ ...p, pinned_version: null }, { id: SOFTWARE_ID, version, industry_code: null })[0];
    if (v) return `${v.message} (policy ${p.id})`;
  }
  return null;
}
