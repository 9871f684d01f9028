// The set-up steps that belong to the box itself rather than to one module: its HTTPS (the
// tablets' trust) and its fleet master. The rest come from the modules' manifests.
import { httpsPortOf } from '../../config.js';
import { siteTime, type SetupStep } from '../../kernel/setup.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** The embedded broker's plaintext listener bound beyond loopback (docs/configuration.md, mqtt_host). */
const plainMqttOnLan = (c: { mqtt_broker: string; mode: string; mqtt_host: string; mqtt_port: unknown }) =>
  c.mqtt_broker !== 'off' && c.mode === 'edge-single' && !LOOPBACK.has(c.mqtt_host);

const since = (config: { site_timezone: string }, iso: string | null) => (iso ? siteTime(config, iso, true) : 'never');

export const boxSteps: SetupStep[] = [
  {
    id: 'https',
    order: 10,
    title: 'HTTPS and the tablets\' trust',
    async check(services) {
      const port = httpsPortOf(services.config);
      if (port === undefined) {
        return { state: 'missing', words: 'HTTPS is off: tablets log in over plain HTTP, and their card numbers cross the LAN unprotected. Turn it on in the box\'s configuration (https_port = auto) and restart it.' };
      }
      if (!services.tls) {
        return { state: 'attention', words: `HTTPS could not start on port ${port} (the port is taken or the certificate could not be made): the log says why. Tablets use plain HTTP meanwhile.` };
      }
      const fp = services.tls.box.material.caFingerprint.slice(0, 11);
      if (plainMqttOnLan(services.config)) {
        return { state: 'attention', words: `HTTPS is on (port ${port}), but MQTT without TLS is open on the LAN at ${services.config.mqtt_host}:${services.config.mqtt_port}: device passwords cross it unprotected. Devices that can do TLS use port 8883; set mqtt_host back to 127.0.0.1 once none needs it.` };
      }
      return { state: 'done', words: `HTTPS on port ${port} with the box's own certificate authority (fingerprint ${fp}...). Each tablet installs it once from the login screen's "Trust this box".` };
    },
  },
  {
    id: 'master',
    order: 90,
    title: 'Fleet master connection',
    screen: { screen: 'settings' },
    async check(services) {
      if (services.config.mode !== 'edge-single') return { state: 'done', words: 'This is the fleet master: the sites connect to it.' };
      if (!services.config.sync_master_url) return { state: 'optional', words: 'Not connected to a fleet master. The box runs on its own; the fleet team sees nothing of this site until it is.' };
      const st = services.edgeSync ? await services.edgeSync.status() : undefined;
      if (!st || st.state === 'off' || st.state === 'starting') return { state: 'attention', words: `Connecting to ${services.config.sync_master_url}: no exchange yet.` };
      if (st.state === 'live') return { state: 'done', words: `In step with the fleet master at ${services.config.sync_master_url} (last exchange ${since(services.config, st.last_success_at)}).` };
      return { state: 'attention', words: `The fleet master at ${services.config.sync_master_url} has not answered since ${since(services.config, st.last_success_at)}${st.last_error ? `: ${st.last_error}` : ''}. ${st.pending} records wait to be sent; nothing is lost.` };
    },
  },
];
