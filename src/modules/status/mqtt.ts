// MQTT: the embedded Aedes broker (edge-single) or an external broker by mqtt_url (cloud-multi).
//
// Topics (prefix = mqtt_topic_prefix, default "cabinet"; "_" stands for "no site"/"no tenant";
// other segments are URI-encoded):
//   <prefix>/<tenant_id>/<site_id>/status                 status events, published by cabinet
//   <prefix>/<tenant_id>/<site_id>/alarms                 alarms raised and acknowledged, by cabinet
//   <prefix>/<tenant_id>/<site_id>/telemetry/<device_id>  telemetry, published by devices
//   <prefix>/<tenant_id>/<site_id>/commands/<device_id>   a device's commands (reserved: a device may subscribe)
//
// Embedded broker security (docs/commission.md, "MQTT for devices"):
// - Listeners: MQTT over TLS on mqtt_tls_port (8883) with the box's certificate, the CA the tablets
//   already trust; plaintext on mqtt_port (1883) bound to loopback unless mqtt_host opens it, which
//   the log says loudly at every start (a password crosses the LAN in clear there).
// - CONNECT carries a credential as the password; the username is free (the device name, for the
//   logs). A device credential (MQD-..., issued by device-credentials/commands/issue) connects from
//   anywhere and may publish its own telemetry topic and subscribe to its own commands topic,
//   nothing else. A person's session token connects only from loopback (local tools on the box):
//   a session token from the LAN is refused, since it also opens the HTTP API. A session may
//   subscribe under its own tenant (and site for a site-bound token; masters anywhere under the
//   prefix) and publish telemetry of its own tenant (and site) with `devices ingest`.
// - Every decision on CONNECT is in the security log (method MQTT); sessions and credentials are
//   re-checked every mqtt_session_recheck_ms, and a revoked credential's connections close at once.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import type { Aedes, Client as AedesClient } from 'aedes';
import { mqttTlsPortOf } from '../../config.js';
import { BoxTls } from '../../runtime/tls.js';
import { listenOn } from '../../runtime/listen.js';
import { isLoopback } from '../../runtime/tls-http.js';
import { deviceCredentialCheck, isDeviceCredential, type DeviceCredentialRow } from '../devices/credentials.js';
import type { Caller, Services } from '../../kernel/context.js';
import { need } from '../../kernel/context.js';
import type { AlarmEvent, StatusEvent } from '../../realtime/bus.js';
import { nowIso, parseMqttPayload, toPoint } from '../devices/points.js';
import { intakeBudget } from './intake-budget.js';

export interface MqttHandle {
  mode: 'embedded' | 'external' | 'off';
  /** The embedded broker's plaintext port (also when mqtt_port was 0); absent when it could not listen. */
  port?: number;
  /** The embedded broker's MQTT-over-TLS port (also when mqtt_tls_port was 0); absent when off or taken. */
  tlsPort?: number;
  /** The embedded broker: whether it has been made (it is made after ready or at the first connection). */
  brokerMade?(): boolean;
  /** Closes the connections made with this device credential (revoked); returns how many. */
  disconnectCredential?(id: string): number;
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

/** The device credential's own telemetry topic, as a publish target, or undefined for any other topic. */
export function deviceMayPublish(services: Services, cred: DeviceCredentialRow, topic: string): { tenant: string; site: string | null; device: string } | undefined {
  return topic === topics(services.config.mqtt_topic_prefix).telemetry(cred.tenant_id, cred.site_id, cred.device_id)
    ? { tenant: cred.tenant_id, site: cred.site_id, device: cred.device_id }
    : undefined;
}

/** A device credential subscribes to its own commands topic only (no wildcard, no other device's). */
export function deviceMaySubscribe(services: Services, cred: DeviceCredentialRow, filter: string): boolean {
  return filter === `${services.config.mqtt_topic_prefix}/${seg(cred.tenant_id)}/${seg(cred.site_id)}/commands/${seg(cred.device_id)}`;
}

/** Is this bind address loopback only (the plaintext listener's safe default)? */
export const loopbackHost = (host: string): boolean => isLoopback(host) || host === 'localhost';

export function resolveMode(services: Services): MqttHandle['mode'] {
  const { mqtt_broker: broker, mode, mqtt_url: url } = services.config;
  if (broker === 'off') return 'off';
  if (broker === 'embedded') return 'embedded';
  if (broker === 'external') return url ? 'external' : 'off';
  if (mode === 'edge-single') return 'embedded';
  return url ? 'external' : 'off';
}

/** How long after the service is ready the embedded broker is made if no client has connected by then. */
export const BROKER_AFTER_READY_MS = 200;

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
  type Who = { kind: 'session'; caller: Caller; token: string } | { kind: 'device'; cred: DeviceCredentialRow };
  /** Each connection's peer address, taken from its socket before CONNECT is read. */
  const peers = new WeakMap<AedesClient, string | undefined>();
  // Connected clients and what they authenticated with, re-checked every mqtt_session_recheck_ms:
  // a logout, a revoked passkey or credential, or an expiry disconnects the client instead of
  // leaving it connected.
  const who = new Map<AedesClient, Who>();
  const credentials = deviceCredentialCheck(services);
  const subjectOf = (w: Who | undefined) => (w?.kind === 'device' ? `device-credential:${w.cred.id}` : w?.caller.subject);
  const audit = (result: 'allow' | 'deny', address: string | null, reason: string, w?: Who) => {
    try {
      services.security.record({
        category: 'auth', result, event: 'mqtt_connect', method: 'MQTT', path: 'CONNECT', client_address: address, reason,
        subject: subjectOf(w) ?? null, tenant_id: w?.kind === 'device' ? w.cred.tenant_id : (w?.caller.tenant_id ?? null), role: w?.kind === 'session' ? w.caller.role : null,
      });
    } catch {
      // The security log is not open (stopping): the decision stands, the log line below says it.
    }
  };
  // The broker's libraries (aedes, mqtt-packet, mqemitter with node:assert) load after the
  // service is ready, not before `/ready` answers: the listeners below are bound at start, and a
  // connection made before the broker exists waits for it (its bytes stay in its socket's buffer).
  // The broker is made at the first connection, or BROKER_AFTER_READY_MS after ready, whichever
  // comes first; status and alarm events before then have no subscriber to reach.
  const makeBroker = async (): Promise<Aedes> => {
    const { Aedes } = await import('aedes');
    return Aedes.createBroker({
      authenticate: (client, username, password, done) => {
        const secret = password?.toString('utf8');
        const address = peers.get(client) ?? null;
        const refuse = (reason: string, message: string) => {
          audit('deny', address, reason);
          log.warn('MQTT connection refused', { client: client.id, username, address, reason });
          done(Object.assign(new Error(message), { returnCode: 4 as const }), false);
        };
        if (!secret) return refuse('no_credential', 'a device credential (or, on loopback, a session token) is required as the MQTT password');
        if (isDeviceCredential(secret)) {
          if (!services.modules.isInstalled('devices')) return refuse('devices_not_installed', 'the devices module is not installed');
          credentials.verify(secret).then((cred) => {
            if (!cred) return refuse('unknown_or_revoked_credential', 'unknown or revoked device credential');
            const w: Who = { kind: 'device', cred };
            who.set(client, w);
            audit('allow', address, 'device_credential', w);
            credentials.touch(cred.id, address).catch((err: Error) => log.warn('device credential use not recorded', { id: cred.id, error: err.message }));
            done(null, true);
          }, () => refuse('credential_check_failed', 'the credential could not be checked'));
          return;
        }
        // A session token also opens the HTTP API: it may not cross the LAN as an MQTT password,
        // even over TLS (a device keeps it for months). Local tools on the box keep using one.
        if (!isLoopback(address ?? undefined)) return refuse('session_token_from_lan', 'a session token is accepted as an MQTT password only on loopback: use a device credential');
        services.sessions.verify(secret).then(
          (caller) => {
            if (!caller) return refuse('invalid_session', 'invalid, expired or revoked session token');
            const w: Who = { kind: 'session', caller, token: secret };
            who.set(client, w);
            audit('allow', address, 'session_on_loopback', w);
            done(null, true);
          },
          () => refuse('invalid_session', 'invalid session token'),
        );
      },
      authorizeSubscribe: (client, sub, done) => {
        const w = who.get(client);
        const ok = w?.kind === 'device' ? deviceMaySubscribe(services, w.cred, sub.topic) : maySubscribe(services, w?.caller, sub.topic);
        if (ok) return done(null, sub);
        log.warn('MQTT subscription refused', { client: client.id, topic: sub.topic, subject: subjectOf(w) });
        done(null, null);
      },
      authorizePublish: (client, packet, done) => {
        if (!client) return done(null); // cabinet's own publications
        const w = who.get(client);
        const where = w?.kind === 'device' ? deviceMayPublish(services, w.cred, packet.topic) : mayPublish(services, w?.caller, packet.topic);
        if (!where) {
          log.warn('MQTT publish refused', { client: client.id, topic: packet.topic, subject: subjectOf(w) });
          return done(new Error('not authorised for this topic'));
        }
        // Answered once the points are stored: a QoS 1 PUBACK then means stored, not queued, and
        // the broker reads this client's next packets only after these (backpressure instead of
        // a queue that grows with the flood). A batch that could not be stored is an error, which
        // closes the connection: the client sends its unacknowledged messages again.
        if (!intake(where, Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload), done)) done(null);
      },
    });
  };
  let broker: Aedes | undefined;
  let loading: Promise<Aedes | undefined> | undefined;
  let stopped = false;
  /** The broker could not be made: a later connection is closed at once, not left waiting. */
  let failed = false;
  let afterReady: NodeJS.Timeout | undefined;
  /** Connections accepted before the broker exists, handed to it once it does. */
  const waiting = new Map<Socket, () => void>();
  const handOver = (socket: Socket) => {
    const client = broker!.handle(socket);
    peers.set(client, socket.remoteAddress);
    budget.limit(socket, client);
  };
  const loadBroker = (): Promise<Aedes | undefined> => (loading ??= makeBroker().then(
    async (made) => {
      if (stopped) {
        await new Promise<void>((resolve) => made.close(() => resolve()));
        return undefined;
      }
      broker = made;
      made.on('clientDisconnect', (client) => who.delete(client));
      for (const [socket, release] of waiting) {
        release();
        if (!socket.destroyed) handOver(socket);
      }
      waiting.clear();
      return made;
    },
    (err: Error) => {
      log.error('MQTT broker failed to start; HTTP goes on', { error: err.message });
      failed = true;
      for (const [socket, release] of waiting) { release(); socket.destroy(); }
      waiting.clear();
      return undefined;
    },
  ));
  const recheck = setInterval(() => {
    for (const [client, w] of who) {
      const still = w.kind === 'device' ? credentials.active(w.cred.id) : services.sessions.verify(w.token);
      void still.then((ok) => {
        if (ok || !who.has(client)) return;
        who.delete(client);
        log.info(w.kind === 'device' ? 'MQTT client disconnected: its device credential was revoked' : 'MQTT client disconnected: its session ended', { client: client.id });
        client.close();
      }, () => undefined);
    }
  }, services.config.mqtt_session_recheck_ms);
  recheck.unref();
  const budget = intakeBudget();
  const accept = (socket: Socket) => {
    if (broker) return handOver(socket);
    if (stopped || failed) return void socket.destroy();
    // Until the broker takes it: a reset or close here is the client's, not an uncaught error.
    const onError = () => undefined;
    const onClose = () => waiting.delete(socket);
    socket.on('error', onError);
    socket.once('close', onClose);
    waiting.set(socket, () => { socket.off('error', onError); socket.off('close', onClose); });
    void loadBroker();
  };
  /** Listens, or logs why not and resolves false (a taken port leaves the rest of the box running). */
  const listen = (server: Server | TlsServer, host: string, wanted: number, what: string) => new Promise<boolean>((resolve) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') log.warn(`${what} port ${wanted} is in use; that listener is off, HTTP goes on`, { host, port: wanted });
      else log.warn(`${what} cannot listen on ${host}:${wanted} (${err.code ?? err.message}); that listener is off, HTTP goes on`, { host, port: wanted });
      resolve(false);
    });
    server.once('listening', () => resolve(true));
    listenOn(server, wanted, host);
  });
  const closeServer = (server: Server | TlsServer | undefined) => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

  const { mqtt_host: host, mqtt_port: wanted, mqtt_tls_host: tlsHost } = services.config;
  const plain: Server | undefined = createServer(accept);
  const plainUp = await listen(plain, host, wanted, 'MQTT');
  // MQTT over TLS with the box's certificate (src/runtime/tls.ts): the HTTPS listener's when it
  // runs, else the broker checks and renews it itself. A renewed certificate is taken at once.
  const tlsWanted = mqttTlsPortOf(services.config);
  let tls: TlsServer | undefined;
  let ownTls: BoxTls | undefined;
  if (tlsWanted !== undefined) {
    let box = services.tls?.box;
    try {
      if (!box) {
        ownTls = new BoxTls({ dataDir: services.config.data_dir, log });
        await ownTls.check();
        box = ownTls;
      }
      const { certPem, keyPem } = box.material;
      // node:tls only when MQTT over TLS is served (its load starts Node's root certificate parse).
      const { createServer: createTlsServer } = process.getBuiltinModule('node:tls');
      const server = createTlsServer({ cert: certPem, key: keyPem, minVersion: 'TLSv1.2' }, accept);
      server.on('tlsClientError', (err) => log.debug('MQTT TLS handshake failed', { error: err.message }));
      if (await listen(server, tlsHost, tlsWanted, 'MQTT over TLS')) {
        tls = server;
        box.onChange((m) => server.setSecureContext({ cert: m.certPem, key: m.keyPem }));
        ownTls?.start();
      }
    } catch (err) {
      log.error('MQTT over TLS is off: cannot make or read the certificates', { error: (err as Error).message });
    }
  }
  if (!plainUp && !tls) {
    clearInterval(recheck);
    ownTls?.stop();
    stopped = true;
    return { mode: 'off', ready: Promise.resolve(), stats, stop: async () => undefined };
  }
  // A lifecycle without whenReady (a runtime started outside startServer) makes the broker now.
  const { whenReady } = services.lifecycle;
  if (whenReady) void whenReady.then(() => { if (!stopped) (afterReady = setTimeout(() => void loadBroker(), BROKER_AFTER_READY_MS)).unref(); });
  else await loadBroker();
  const port = plainUp ? (plain.address() as AddressInfo).port : undefined;
  const tlsPort = tls ? (tls.address() as AddressInfo).port : undefined;
  const shape = `${services.config.mqtt_topic_prefix}/<tenant>/<site>/{status,alarms,telemetry/<device>}`;
  if (tlsPort !== undefined) log.info(`MQTT over TLS listening on ${tlsHost}:${tlsPort}`, { host: tlsHost, port: tlsPort, topics: shape });
  if (port !== undefined) {
    if (loopbackHost(host)) log.info(`MQTT broker listening on ${host}:${port} (plaintext, this machine only)`, { host, port, topics: shape });
    else log.warn(`MQTT WITHOUT TLS IS OPEN ON THE LAN on ${host}:${port}: device credentials cross the network in clear; use MQTT over TLS on ${tlsPort ?? 'mqtt_tls_port'} and set mqtt_host back to 127.0.0.1 once the old devices are replaced`, { host, port, topics: shape });
  }
  const publish = (topic: string, body: unknown) =>
    broker?.publish({ cmd: 'publish', topic, payload: Buffer.from(JSON.stringify(body)), qos: 0, retain: false, dup: false }, () => { stats.published++; });
  const offStatus = need(services, 'bus').on('status', (e) => publish(t.status(e), e));
  const offAlarm = need(services, 'bus').on('alarm', (a) => publish(t.alarms(a.alarm), { kind: a.kind, alarm: a.alarm }));
  return {
    mode, ready: Promise.resolve(), stats,
    ...(port !== undefined ? { port } : {}),
    ...(tlsPort !== undefined ? { tlsPort } : {}),
    brokerMade: () => broker !== undefined,
    disconnectCredential(id) {
      let closed = 0;
      for (const [client, w] of who) {
        if (w.kind !== 'device' || w.cred.id !== id) continue;
        who.delete(client);
        client.close();
        closed++;
      }
      if (closed) log.info('MQTT clients disconnected: their device credential was revoked', { id, clients: closed });
      return closed;
    },
    async stop() {
      offStatus(); offAlarm();
      clearInterval(recheck);
      clearTimeout(afterReady);
      ownTls?.stop();
      stopped = true;
      for (const [socket, release] of waiting) { release(); socket.destroy(); }
      waiting.clear();
      // A broker still loading is closed by loadBroker once made (stopped is set).
      if (broker) await new Promise<void>((resolve) => broker!.close(() => resolve()));
      else await loading;
      await Promise.all([plainUp ? closeServer(plain) : undefined, closeServer(tls)]);
    },
  };
}
