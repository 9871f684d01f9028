// industry-profiles/scheme|list|{id} and commands import, export, publish, rollback: the profiles
// of every industry this installation serves, in one versioned store.
import { defineResource } from '../../kernel/resource.js';
import { profileRecord, type ProfileRow } from '../../industry/profiles.js';
import { profileCommands } from './profile-commands.js';

export const industryProfileResource = defineResource<ProfileRow>({
  name: 'industry-profiles',
  module: 'industry',
  title: 'Industry profiles',
  record: profileRecord,
  access: { resource: 'industry-profiles', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'created_at', order: 'desc' },
  commands: profileCommands({ resource: 'industry-profiles', names: { import: 'import', export: 'export', publish: 'publish', rollback: 'rollback' } }),
});

export const industryProfileRoutes = industryProfileResource.routes;
