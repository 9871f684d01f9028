import { defineModule, grant } from '../../kernel/module.js';
import { siteSetupRoutes } from './routes.js';

export default defineModule({
  id: 'site-setup',
  name: 'Site set-up',
  description: 'What is commissioned on this box and what is missing, in order: HTTPS and the tablets\' trust, people\'s cards, houses and flocks, controllers, siren relay and watchdog, notifications, the fleet master.',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: null,
  provides_enrichment_for: [],
  routes: siteSetupRoutes,
  tables: [],
  // The installer's checklist: the site's admins (and security, who audits the box) read it.
  permissions: grant('site-setup', { admin: ['read'], security: ['read'] }),
});
