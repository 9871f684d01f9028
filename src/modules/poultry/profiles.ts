// poultry-profiles: the poultry view of the one industry profile store (src/industry/profiles.ts).
// scheme|list|{id} show poultry profiles only; commands import-yaml, export-yaml, publish and
// rollback act only on poultry profiles: a document of another industry is 409
// profile_incompatible, a profile of another industry is 409 profile_industry_mismatch.
// A poultry profile document holds, for example, climate_phases, feedwater and alarm_rules; the
// poultry module may register a content validator (registerProfileContent('poultry', ...)).
import { defineResource } from '../../kernel/resource.js';
import { profileRecord, type ProfileRow } from '../../industry/profiles.js';
import { profileCommands } from '../industry/profile-commands.js';

export const poultryProfileResource = defineResource<ProfileRow>({
  name: 'poultry-profiles',
  module: 'poultry',
  title: 'Poultry profiles',
  record: profileRecord,
  access: { resource: 'poultry-profiles', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  fixed: { industry_code: 'poultry' },
  defaultSort: { field: 'created_at', order: 'desc' },
  commands: profileCommands({ industry: 'poultry', resource: 'poultry-profiles', names: { import: 'import-yaml', export: 'export-yaml', publish: 'publish', rollback: 'rollback' } }),
});

export const poultryProfileRoutes = poultryProfileResource.routes;
