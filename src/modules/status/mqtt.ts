// MQTT: the embedded Aedes broker (edge-single) or an external broker by mqtt_url (cloud-multi).
//
// Topics (prefix = mqtt_topic_prefix, default "cabinet"; "_" stands for "no site"/"no tenant";
// other segments are URI-encoded):
//   <prefix>/<tenant_id>/<site_id>/status                 status events, published by cabinet
//   <prefix>/<tenant_id>/<site_id>/alarms                 alarms raised and acknowledged, by cabinet
//   <prefix>/<tenant_id>/<site_id>/telemetry/<device_id>  telemetry, published by devices
//
// Embedded broker security: CONNECT must carry a session token (or a device token, which is a
// session token issued to a device subject) as the password; the username is free (the device
// or user name, for the logs). No token, no connection. Subscriptions are allowed under the
// caller's own tenant (and own site for a site-bound token); masters may subscribe anywhere
// under the prefix. Publishing is allowed only to telemetry topics of the caller's own tenant
// (and site), by roles with `devices ingest`. Status and alarm topics are written only by cabinet.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes, type Client as AedesClient } from 'aedes';
import type { Caller, Services } from '../../kernel/context.js';
import { need } from '../../kernel/context.js';
import type { AlarmEvent, StatusEvent } from '../../realtime/bus.js';
import { nowIso, parseMqttPayload, toPoint } from '../devices/points.js';
import { intakeBudget } from './intake-budget.js';

export interface MqttHandle {
  mode: 'embedded' | 'external' | 'off';
  /** The embedded broker's port (also when mqtt_port was 0). */
  port?: number;
  /** Settles when the external client has connected and subscribed (at once for the others). */
  ready: Promise<void>;
  stats: { received: number; rejected: number; published: number };
  stop(): Promise<void>;
}

declare module '../../kernel/context.js' {
  interface Services {
    mqtt?: MqttHandle;
  }
}

const NONE = '_';
const seg = (value: string | null | undefined) => (value ? encodeURIComponent(value) : NONE);
const unseg = (value: string) => (value === NONE ? null : decodeURIComponent(value));

export const topics = (prefix: string) => ({
  status: (e: { tenant_id: string | null; site_id: string | null }) => `${prefix}/${seg(e.tenant_id)}/${seg(e.site_id)}/status`,
  alarms: (a: { tenant_id: string | null; site_id: string | null }) => `${prefix}/${seg(a.tenant_id)}/${seg(a.site_id)}/alarms`,
  telemetry: (tenant: string, site: string | null, device: string) => `${prefix}/${seg(tenant)}/${seg(site)}/telemetry/${seg(device)}`,
  telemetryFilter: `${prefix}/+/+/telemetry/+`,
});

/** May this caller subscribe to this topic filter? */
export function maySubscribe(services: Services, caller: Caller | undefined, filter: string): boolean {
  if (!caller) return false;
  const prefix = services.config.mqtt_topic_prefix;
  const levels = filter.split('/');
  if (levels[0] !== prefix) return false;
  if (!services.modules.allows(caller.role, 'status', 'read')) return false;
  if (caller.scope_type === 'master') return true;
  if (levels[1] !== seg(caller.tenant_id)) return false;
  if (caller.site_id && levels[2] !== seg(caller.site_id)) return false;
  return true;
}

/** The tenant, site and device of a telemetry publish this caller may make, or undefined. */
export function mayPublish(services: Services, caller: Caller | undefined, topic: string): { tenant: string; site: string | null; device: string } | undefined {
  if (!caller) return undefined;
  const levels = topic.split('/');
  if (levels.length !== 5 || levels[0] !== services.config.mqtt_topic_prefix || levels[3] !== 'telemetry') return undefined;
  if (levels.some((l) => l === '' || l.includes('+') || l.includes('#'))) return undefined;
  const [, tenantSeg, siteSeg, , deviceSeg] = levels as [string, string, string, string, string];
  if (tenantSeg === NONE || deviceSeg === NONE) return undefined;
  if (!services.modules.allows(caller.role, 'devices', 'ingest')) return undefined;
  if (caller.scope_type === 'tenant' && tenantSeg !== seg(caller.tenant_id)) return undefined;
  if (caller.site_id && siteSeg !== seg(caller.site_id)) return undefined;
  try {
    return { tenant: unseg(tenantSeg)!, site: unseg(siteSeg), device: unseg(deviceSeg)! };
  } catch {
    return undefined;
  }
}

export function resolveMode(services: Services): MqttHandle['mode'] {
  const { mqtt_broker: broker, mode, mqtt_url: url } = services.config;
  if (broker === 'off') return 'off';
  if (broker === 'embedded') return 'embedded';
  if (broker === 'external') return url ? 'external' : 'off';
  if (mode === 'edge-single') return 'embedded';
  return url ? 'external' : 'off';
}

export async function startMqtt(services: Services): Promise<MqttHandle> {
  const mode = resolveMode(services);
  const stats = { received: 0, rejected: 0, published: 0 };
  const t = topics(services.config.mqtt_topic_prefix);
  const { log } = services;

  let rejectLogged = 0;
  /**
   * Telemetry from a topic into the batch writer; `settled` is called once the points are stored
   * (null) or their batch failed (they count as rejected). False when nothing is to be stored
   * (devices not installed, or a payload refused: counted and logged, rate-limited); `settled`
   * is then never called.
   */
  const intake = (where: { tenant: string; site: string | null; device: string }, payload: Buffer, settled?: (err: Error | null) => void): boolean => {
    const telemetry = services.telemetry;
    if (!telemetry || !services.modules.isInstalled('devices')) return false;
    let points;
    try {
      const now = nowIso();
      const keys = { tenant_id: where.tenant, site_id: where.site, device_id: where.device };
      points = parseMqttPayload(payload).map((p) => toPoint(p, keys, now));
    } catch (err) {
      stats.rejected++;
      if (rejectLogged++ % 1000 === 0) log.warn('MQTT telemetry payload refused', { device: where.device, error: (err as Error).message, refused_so_far: stats.rejected });
      return false;
    }
    stats.received += points.length;
    const n = points.length;
    // One reaction per message on its batch's promise (shared by the batch's messages).
    telemetry.writer.enqueue(points).then(() => settled?.(null), (err: Error) => {
      stats.rejected += n;
      settled?.(err);
    });
    return true;
  };

  if (mode === 'off') {
    log.info('MQTT is off', { mqtt_broker: services.config.mqtt_broker, mode: services.config.mode });
    return { mode, ready: Promise.resolve(), stats, stop: async () => undefined };
  }

  if (mode === 'external') {
    const url = services.config.mqtt_url;
    const shown = url.replace(/\/\/[^@/]*@/, '//***@');
    // The client library loads only for an external broker (the edge runs the embedded one).
    const { default: mqtt } = await import('mqtt');
    const client = mqtt.connect(url, { clientId: `cabinet-${process.pid}-${Math.random().toString(16).slice(2, 10)}`, reconnectPeriod: 2000, connectTimeout: 5000 });
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => { markReady = resolve; });
    client.on('connect', () => {
      client.subscribe(t.telemetryFilter, { qos: 1 }, (err) => {
        if (err) log.error('MQTT subscribe to the external broker failed', { url: shown, error: err.message });
        else { log.info('MQTT connected to the external broker', { url: shown, subscribed: t.telemetryFilter }); markReady(); }
      });
    });
    client.on('error', (err) => log.warn('MQTT external broker error', { url: shown, error: err.message }));
    client.on('message', (topic, payload) => {
      // The external broker authenticates and authorises its clients; cabinet trusts the topic.
      const levels = topic.split('/');
      if (levels.length !== 5) return;
      try {
        // A lost batch is counted by intake; the external broker has already acknowledged it.
        intake({ tenant: unseg(levels[1]!)!, site: unseg(levels[2]!), device: unseg(levels[4]!)! }, payload);
      } catch {
        stats.rejected++;
      }
    });
    const publish = (topic: string, body: unknown) => {
      if (!client.connected) return;
      client.publish(topic, JSON.stringify(body), { qos: 1 }, (err) => { if (!err) stats.published++; });
    };
    const offStatus = need(services, 'bus').on('status', (e: StatusEvent) => publish(t.status(e), e));
    const offAlarm = need(services, 'bus').on('alarm', (a: AlarmEvent) => publish(t.alarms(a.alarm), { kind: a.kind, alarm: a.alarm }));
    return {
      mode, ready, stats,
      async stop() {
        offStatus(); offAlarm();
        await client.endAsync(true).catch(() => undefined);
      },
    };
  }

  // Embedded broker.
  const callers = new WeakMap<AedesClient, Caller>();
  // Tokens of connected clients, re-verified every mqtt_session_recheck_ms: a logout, a revoked
  // passkey or an expiry disconnects the client instead of leaving its session open.
  const tokens = new Map<AedesClient, string>();
  const broker = await Aedes.createBroker({
    authenticate: (client, username, password, done) => {
      const token = password?.toString('utf8');
      const fail = () => done(Object.assign(new Error('a session or device token is required as the MQTT password'), { returnCode: 4 as const }), false);
      if (!token) return fail();
      services.sessions.verify(token).then(
        (caller) => {
          if (!caller) return fail();
          callers.set(client, caller);
          tokens.set(client, token);
          done(null, true);
        },
        () => fail(),
      );
    },
    authorizeSubscribe: (client, sub, done) => {
      if (maySubscribe(services, callers.get(client), sub.topic)) return done(null, sub);
      log.warn('MQTT subscription refused', { client: client.id, topic: sub.topic, subject: callers.get(client)?.subject });
      done(null, null);
    },
    authorizePublish: (client, packet, done) => {
      if (!client) return done(null); // cabinet's own publications
      const where = mayPublish(services, callers.get(client), packet.topic);
      if (!where) {
        log.warn('MQTT publish refused', { client: client.id, topic: packet.topic, subject: callers.get(client)?.subject });
        return done(new Error('not authorised for this topic'));
      }
      // Answered once the points are stored: a QoS 1 PUBACK then means stored, not queued, and
      // the broker reads this client's next packets only after these (backpressure instead of
      // a queue that grows with the flood). A batch that could not be stored is an error, which
      // closes the connection: the client sends its unacknowledged messages again.
      if (!intake(where, Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload), done)) done(null);
    },
  });
  broker.on('clientDisconnect', (client) => tokens.delete(client));
  const recheck = setInterval(() => {
    for (const [client, token] of tokens) {
      void services.sessions.verify(token).then((still) => {
        if (still || !tokens.has(client)) return;
        tokens.delete(client);
        log.info('MQTT client disconnected: its session ended', { client: client.id });
        client.close();
      }, () => undefined);
    }
  }, services.config.mqtt_session_recheck_ms);
  recheck.unref();
  const budget = intakeBudget();
  const server: Server = createServer((socket) => budget.limit(socket, broker.handle(socket)));
  const { mqtt_host: host, mqtt_port: wanted } = services.config;
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') log.warn(`MQTT port ${wanted} is in use; the embedded broker is off, HTTP goes on`, { host, port: wanted });
      else log.warn(`MQTT broker cannot listen on ${host}:${wanted} (${err.code ?? err.message}); the embedded broker is off, HTTP goes on`, { host, port: wanted });
      resolve(false);
    });
    server.listen(wanted, host, () => resolve(true));
  });
  if (!listening) {
    clearInterval(recheck);
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    return { mode: 'off', ready: Promise.resolve(), stats, stop: async () => undefined };
  }
  const port = (server.address() as AddressInfo).port;
  log.info(`MQTT broker listening on ${host}:${port}`, { host, port, topics: `${services.config.mqtt_topic_prefix}/<tenant>/<site>/{status,alarms,telemetry/<device>}` });
  const publish = (topic: string, body: unknown) =>
    broker.publish({ cmd: 'publish', topic, payload: Buffer.from(JSON.stringify(body)), qos: 0, retain: false, dup: false }, () => { stats.published++; });
  const offStatus = need(services, 'bus').on('status', (e) => publish(t.status(e), e));
  const offAlarm = need(services, 'bus').on('alarm', (a) => publish(t.alarms(a.alarm), { kind: a.kind, alarm: a.alarm }));
  return {
    mode, port, ready: Promise.resolve(), stats,
    async stop() {
      offStatus(); offAlarm();
      clearInterval(recheck);
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
