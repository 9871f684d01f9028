// Manifest of the updates module (edge-single): the box updates itself to the release its master
// targets. It learns the target from the sync's pull answers, downloads the package in resumable
// chunks over the sync's session, verifies size, sha256 and the fleet's signature, waits for its
// maintenance window (never with a P1 unacknowledged or a setpoint write in progress) and hands the
// package to the privileged installer (`cabinet update apply`) through data_dir/updates (state.ts);
// the new version then proves itself or the installer puts the previous one back. Declared after
// the sync, whose session and pull answers it uses.
import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { updatesRoutes } from './routes.js';
import { Updater } from './runtime.js';

export default defineModule({
  id: 'updates',
  name: 'Updates',
  description: 'The box updates itself to the release its master targets: resumable download over the sync, size, checksum and signature verified, installed in the maintenance window by the privileged installer, proven healthy or rolled back; every step audited and reported to the master.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'update',
  provides_enrichment_for: [],
  routes: updatesRoutes,
  tables: [],
  // The box's software is the installation's: its admins and security read where it stands.
  permissions: grant('updates', { admin: ['read'], security: ['read'] }),
  runtime: defineRuntime({
    needs: ['services', 'audit'],
    provides: ['updater'],
    create({ services }) {
      let updater: Updater | undefined;
      return {
        async start() {
          if (services.config.mode !== 'edge-single') return {};
          updater = new Updater(services);
          await updater.start();
          return { updater };
        },
        stop: async () => { await updater?.stop(); },
      };
    },
  }),
});
