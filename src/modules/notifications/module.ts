// Manifest of the notifications module: e-mail and webhook messages off site for alarm events,
// on the box (its own alarms) and on a master (every site's alarms, as the sync brings them).
import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { channelResource } from './channels.js';
import { ruleResource } from './rules.js';
import { deliveryResource } from './deliveries.js';
import { audited } from './audited.js';
import { NOTIFICATION_TABLES } from './schema.js';
import { createNotifier, type Notifier } from './queue.js';
import { factsOfBus, readSiteEvents, releaseOf } from './sources.js';
import { notificationSetup } from './setup.js';

/** How often a master reads the sites' pushed alarm events. */
const MASTER_POLL_MS = 2_000;

export default defineModule({
  id: 'notifications',
  name: 'Notifications',
  description: 'Alarm notification off site: e-mail (SMTP) and signed webhooks, rules by priority, severity and escalation level, a durable delivery queue with retries.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'notification_rule',
  provides_enrichment_for: [],
  routes: [...audited(channelResource.routes, 'notification-channels', 'notification-channel'), ...audited(ruleResource.routes, 'notification-rules', 'notification-rule'), ...deliveryResource.routes],
  setup: notificationSetup,
  tables: NOTIFICATION_TABLES,
  permissions: [
    // Admins manage channels and rules; operators and security read them (secrets are never in an answer).
    ...grant('notifications', { admin: ['read', 'create', 'update', 'delete'], operator: ['read'], security: ['read'] }),
    ...grant('notification-deliveries', { admin: ['read', 'update'], operator: ['read'], security: ['read'] }),
  ],
  runtime: defineRuntime({
    needs: ['services', 'bus', 'audit'],
    provides: ['notifier'],
    create({ services, bus }) {
      let notifier: Notifier | undefined;
      let unsubscribe: (() => void) | undefined;
      let poll: NodeJS.Timeout | undefined;
      let polling: Promise<unknown> | undefined;
      return {
        async start() {
          const n = (notifier = createNotifier(services));
          const notify = (facts: Parameters<Notifier['enqueue']>[0]) => n.enqueue(facts);
          const release = (r: NonNullable<ReturnType<typeof releaseOf>>) => n.release(r);
          // One alarm's events in order: a return to service right after a raise must find the
          // raise's held deliveries already written.
          const chains = new Map<string, Promise<unknown>>();
          unsubscribe = bus.on('alarm', (e) => {
            const freed = releaseOf(e.kind, e.alarm, e.alarm.tenant_id, e.alarm.site_id);
            const work = freed
              ? () => release(freed).catch((err: Error) => services.log.error('held alarm notifications not released', { alarm: e.alarm.id, error: err.message }))
              : () => factsOfBus(services, e).then((facts) => (facts ? notify(facts) : 0)).catch((err: Error) =>
                services.log.error('alarm event not queued for notification', { alarm: e.alarm.id, error: err.message }));
            const next = (chains.get(e.alarm.id) ?? Promise.resolve()).then(work);
            chains.set(e.alarm.id, next);
            void next.then(() => { if (chains.get(e.alarm.id) === next) chains.delete(e.alarm.id); });
          });
          if (services.config.mode === 'cloud-multi') {
            poll = setInterval(() => {
              if (polling || services.lifecycle.state !== 'ready') return;
              polling = readSiteEvents(services, notify, new Date(), release).catch((err: Error) => services.log.error('site alarm events not read for notification', { error: err.message }))
                .finally(() => { polling = undefined; });
            }, MASTER_POLL_MS);
            poll.unref();
          }
          n.wake();
          return { notifier: n };
        },
        async stop() {
          unsubscribe?.();
          clearInterval(poll);
          await polling;
          await notifier?.stop();
        },
      };
    },
  }),
});
