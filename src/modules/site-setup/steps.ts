// The set-up steps that belong to the box itself rather than to one module: its HTTPS (the
// tablets' trust) and its fleet master. The rest come from the modules' manifests.
import { httpsPortOf } from '../../config.js';
import type { SetupCheck, SetupStep } from '../../kernel/setup.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** The embedded broker's plaintext listener bound beyond loopback (docs/configuration.md, mqtt_host). */
const plainMqttOnLan = (c: { mqtt_broker: string; mode: string; mqtt_host: string; mqtt_port: unknown }) =>
  c.mqtt_broker !== 'off' && c.mode === 'edge-single' && !LOOPBACK.has(c.mqtt_host);

export const boxSteps: SetupStep[] = [
  {
    id: 'https',
    order: 10,
    title: 'setup.https.title',
    async check(services): Promise<SetupCheck> {
      const port = httpsPortOf(services.config);
      if (port === undefined) return { state: 'missing', key: 'setup.https.off' };
      if (!services.tls) return { state: 'attention', key: 'setup.https.failed', params: { port } };
      const fingerprint = services.tls.box.material.caFingerprint.slice(0, 11);
      if (plainMqttOnLan(services.config)) {
        return { state: 'attention', key: 'setup.https.mqtt_open', params: { port, address: `${services.config.mqtt_host}:${String(services.config.mqtt_port)}` } };
      }
      return { state: 'done', key: 'setup.https.done', params: { port, fingerprint } };
    },
  },
  {
    id: 'master',
    order: 90,
    title: 'setup.master.title',
    screen: { screen: 'settings' },
    async check(services): Promise<SetupCheck> {
      if (services.config.mode !== 'edge-single') return { state: 'done', key: 'setup.master.is_master' };
      const url = services.config.sync_master_url;
      if (!url) return { state: 'optional', key: 'setup.master.none' };
      const st = services.edgeSync ? await services.edgeSync.status() : undefined;
      if (!st || st.state === 'off' || st.state === 'starting') return { state: 'attention', key: 'setup.master.connecting', params: { url } };
      // `seen` says whether there was an exchange at all (last_at is empty when there was none).
      const last = { seen: st.last_success_at ? 'yes' : 'no', last_at: st.last_success_at ?? '' };
      if (st.state === 'live') return { state: 'done', key: 'setup.master.live', params: { url, ...last } };
      return { state: 'attention', key: 'setup.master.behind', params: { url, ...last, why: st.last_error ? 'yes' : 'no', error: st.last_error ?? '', pending: st.pending } };
    },
  },
];
