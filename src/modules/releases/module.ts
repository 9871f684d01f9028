// Manifest of the releases module (master): the fleet's signed releases, their packages kept in
// chunks in the database, the rollouts that take them to the sites in waves, and the chunk
// download the boxes update from over their sync session.
import { defineModule, defineRuntime, grant, managed } from '../../kernel/module.js';
import { evaluateRollouts } from './engine.js';
import { releaseResource, releaseRoutes } from './resource.js';
import { rolloutResource } from './rollouts.js';
import { RELEASE_TABLES } from './schema.js';

/** How often the master sweeps the running rollouts. */
const SWEEP_MS = 30_000;

export default defineModule({
  id: 'releases',
  name: 'Releases',
  description: 'The fleet\'s software releases: signed packages (ed25519, signed offline by the fleet team) uploaded in chunks, checked and published; rollouts that take a release to the sites its version policies allow, in waves (canaries, then percentages) with a failure threshold that pauses them; the chunk download boxes update from.',
  version: '1.0.0',
  core: false,
  dependencies: ['tenant-master-sync'],
  industry_code: null,
  industry_scope: 'master',
  key_entity: 'release',
  provides_enrichment_for: ['tenant-master-sync'],
  routes: [...releaseResource.routes, ...releaseRoutes, ...rolloutResource.routes],
  tables: RELEASE_TABLES,
  permissions: [
    ...managed(['releases', 'release-rollouts'], 'read'),
    // A site box downloads with its credential session (an operator passkey); the route also checks
    // the release is the site's target (or the version it runs). Fleet admins download any.
    ...grant('release-packages', { admin: ['download'], operator: ['download'] }),
  ],
  // The rollouts advance on the boxes' reports; this sweep (master only) catches a report whose
  // evaluation a master restart cut short, so a rollout never waits for a box's next step change.
  runtime: defineRuntime({
    needs: ['services', 'audit'],
    create({ services }) {
      let timer: unknown;
      let stopped = false;
      const sweep = () => {
        timer = services.clock.setTimeout(() => {
          void evaluateRollouts(services, { runningOnly: true }).catch((err: Error) => services.log.error('rollout sweep failed', { error: err.message })).finally(() => { if (!stopped) sweep(); });
        }, SWEEP_MS);
      };
      return {
        async start() {
          if (services.config.mode === 'cloud-multi') sweep();
        },
        async stop() {
          stopped = true;
          if (timer !== undefined) services.clock.clearTimeout(timer);
        },
      };
    },
  }),
});
