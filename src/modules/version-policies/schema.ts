// A version policy restricts the versions of modules (one module, or every module when module_id
// is null) within a scope: global, one industry, or one tenant. `origin` tells a policy set on
// this installation (local) from one received from the master cloud (master), which wins on the
// next sync (see the README, sync conflict rule).
import { defineRecord } from '../../kernel/record.js';

export const POLICY_SCOPES = ['global', 'industry', 'tenant'] as const;
export const POLICY_ORIGINS = ['local', 'master'] as const;

export const versionPolicyRecord = defineRecord('version_policies', {
  id: { type: 'string', label: 'Policy', sortable: true, searchable: true },
  scope: { type: 'string', label: 'Scope', enum: POLICY_SCOPES, filter: true, sortable: true },
  industry_code: { type: 'string', label: 'Industry', nullable: true, filter: true, description: 'Set when scope is industry.' },
  tenant_id: { type: 'string', label: 'Tenant', nullable: true, filter: true, description: 'Set when scope is tenant.' },
  module_id: { type: 'string', label: 'Module', nullable: true, filter: true, searchable: true, description: 'The module the policy restricts; null: every module.' },
  allowed_major: { type: 'integer', label: 'Allowed major', nullable: true },
  min_version: { type: 'string', label: 'Minimum version', nullable: true },
  max_version: { type: 'string', label: 'Maximum version', nullable: true },
  pinned_version: { type: 'string', label: 'Pinned version', nullable: true },
  origin: { type: 'string', label: 'Origin', enum: POLICY_ORIGINS, readOnly: true, filter: true },
  updated_by: { type: 'string', label: 'Updated by', readOnly: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
}, { indexes: [{ name: 'version_policies_scope', columns: ['scope'] }] });

export const versionPolicies = versionPolicyRecord.table;
export type VersionPolicyRow = typeof versionPolicyRecord.row;
