// Checks installed module versions against the version policies with the semver library. Which
// policies apply to a module: global ones; industry ones when the module belongs to that
// industry, or is a global module on an installation of that industry; tenant ones for the
// tenant asked about (on an edge-single box, which belongs to one tenant, every tenant policy
// it holds came from the master for its own tenant, so they apply without naming it).
import semver from '../../runtime/semver.js';
import type { VersionPolicyRow } from './schema.js';

export interface InstalledModule {
  id: string;
  version: string;
  industry_code: string | null;
}

export interface Violation {
  policy_id: string;
  scope: VersionPolicyRow['scope'];
  module_id: string;
  installed_version: string;
  rule: 'allowed_major' | 'min_version' | 'max_version' | 'pinned_version';
  expected: string;
  message: string;
}

export interface CheckContext {
  /** The installation's industry (edge-single) or the one asked about. */
  industry_code: string | null;
  tenant_id: string | null;
  /** Tenant policies apply without a tenant id (an edge-single box belongs to one tenant). */
  single_tenant: boolean;
}

export function applies(p: VersionPolicyRow, m: InstalledModule, ctx: CheckContext): boolean {
  if (p.module_id !== null && p.module_id !== m.id) return false;
  if (p.scope === 'global') return true;
  if (p.scope === 'industry') return p.industry_code === (m.industry_code ?? ctx.industry_code);
  return ctx.tenant_id !== null ? p.tenant_id === ctx.tenant_id : ctx.single_tenant;
}

export function violationsOf(p: VersionPolicyRow, m: InstalledModule): Violation[] {
  const v = semver.valid(m.version);
  const out: Violation[] = [];
  const add = (rule: Violation['rule'], expected: string, message: string) =>
    out.push({ policy_id: p.id, scope: p.scope, module_id: m.id, installed_version: m.version, rule, expected, message });
  if (!v) {
    add('pinned_version', p.pinned_version ?? 'a semantic version', `${m.id} reports ${m.version}, which is not a semantic version`);
    return out;
  }
  if (p.allowed_major !== null && semver.major(v) !== p.allowed_major) add('allowed_major', `${p.allowed_major}.x`, `${m.id} ${v} is outside the allowed major line ${p.allowed_major}.x`);
  if (p.min_version !== null && semver.lt(v, p.min_version)) add('min_version', `>= ${p.min_version}`, `${m.id} ${v} is older than the minimum ${p.min_version}`);
  if (p.max_version !== null && semver.gt(v, p.max_version)) add('max_version', `<= ${p.max_version}`, `${m.id} ${v} is newer than the maximum ${p.max_version}`);
  if (p.pinned_version !== null && !semver.eq(v, p.pinned_version)) add('pinned_version', p.pinned_version, `${m.id} ${v} is not the pinned ${p.pinned_version}`);
  return out;
}

export function checkPolicies(policies: VersionPolicyRow[], modules: InstalledModule[], ctx: CheckContext) {
  const violations: Violation[] = [];
  const used = new Set<string>();
  for (const m of modules) {
    for (const p of policies) {
      if (!applies(p, m, ctx)) continue;
      used.add(p.id);
      violations.push(...violationsOf(p, m));
    }
  }
  return { modules_checked: modules.length, policies_applied: [...used].sort(), violations, compliant: violations.length === 0 };
}
