// Manifest of the tenant-master sync module: on the master, the sync records and the routes site
// boxes sync through; on an edge box with sync_master_url, the outbox and the sync loop.
import { defineModule, defineRuntime, managed } from '../../kernel/module.js';
import { EdgeSync } from './engine/edge.js';
import { startCluster, type Cluster } from './engine/cluster.js';
import { maintain } from './engine/partitions.js';
import { DAY_MS, hourlyRetention, type Retention } from '../../kernel/retention.js';
import { siteSyncRoutes, syncResource } from './resource.js';
import { sitesResource } from './sites.js';
import { alarmsResource } from './alarms.js';
import { SYNC_TABLES } from './schema.js';

export default defineModule({
  id: 'tenant-master-sync',
  name: 'Tenant-master sync',
  description: 'Synchronisation state per tenant (live, degraded, stopped), its mode (auto, manual, paused), lag and pending counters, forced runs; the fleet view of every site (sync status, lag, open P1 alarms, versions against policy, last heartbeat) and the farms\' alarms, read-only (acknowledged at the farm).',
  version: '1.0.0',
  core: false,
  dependencies: ['tenant-master'],
  industry_code: null,
  industry_scope: 'master',
  key_entity: 'tenant_sync',
  provides_enrichment_for: ['tenant-master'],
  routes: [...syncResource.routes, ...sitesResource.routes, ...alarmsResource.routes, ...siteSyncRoutes],
  tables: SYNC_TABLES,
  permissions: [
    ...managed(['tenant-master-sync', 'sync-sites', 'sync-alarms'], 'read'),
    // Site credentials are operator passkeys; the routes also check the session is a registered site's.
    { role: 'operator', resource: 'site-sync', actions: ['pull', 'push'] },
  ],
  // After the status module (its service and stream) and the audit service it taps.
  runtime: defineRuntime({
    needs: ['services', 'status', 'bus', 'audit'],
    provides: ['edgeSync'],
    create({ services }) {
      let edge: EdgeSync | undefined;
      let cluster: Cluster | undefined;
      let upkeep: Retention | undefined;
      return {
        async start() {
          // A master on PostgreSQL may run as several processes: keep their caches and status
          // streams in step.
          if (services.config.mode === 'cloud-multi') {
            // Partitions ahead of the rows, retention by whole months, roll-ups no window reads.
            const days = services.config.sync_retention_days;
            upkeep = hourlyRetention(services.log, 'sync', days, async (before) => {
              const report = await maintain(services.db, before.getTime() + days * DAY_MS, days);
              if (report.created.length || report.dropped.length || report.deleted_rows) services.log.info('sync storage maintained', { ...report });
            }, { atStart: true });
            upkeep.start();
            startCluster(services).then((c) => { cluster = c; }, (err: Error) => services.log.error('cluster sync failed to start', { error: err.message }));
            return {};
          }
          // The sync runs on an edge box that names its master; the outbox starts even when the
          // master is unreachable, so nothing is lost while the uplink is down.
          if (services.config.mode !== 'edge-single' || !services.config.sync_master_url) return {};
          edge = new EdgeSync(services);
          await edge.start();
          return { edgeSync: edge };
        },
        async stop() {
          upkeep?.stop();
          await cluster?.stop();
          await edge?.stop();
        },
      };
    },
  }),
});
