// Several cloud-multi processes on one PostgreSQL server behind a load balancer: each tells the
// others, with PostgreSQL LISTEN/NOTIFY, when it changed the module registry (install state,
// permission rules: the others reload their caches) and when it stored a status event (the
// others read it by id and hand it to their WebSocket clients). The notification carries only
// the process id and the event id; the database stays the source of truth, so a process that
// missed a notification (reconnecting) still serves correct data: the registry is reloaded on
// every reconnect and stream clients resume with ?since.
import { randomUUID } from 'node:crypto';
import type { Services } from '../../../kernel/context.js';
import { need } from '../../../kernel/context.js';
import { registryOf } from '../../core/registry/runtime.js';

const REGISTRY = 'cabinet_registry';
const STATUS = 'cabinet_status';

interface Note {
  origin: string;
  id?: number;
}

export interface Cluster {
  readonly origin: string;
  stop(): Promise<void>;
}

export async function startCluster(services: Services): Promise<Cluster | undefined> {
  const { config, db, log } = services;
  if (db.engine !== 'postgresql') return undefined;
  const { default: pg } = await import('pg');
  const origin = randomUUID();
  const registry = registryOf(services);
  const bus = need(services, 'bus');
  const status = need(services, 'status');
  let client: InstanceType<typeof pg.Client> | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const onNote = async (channel: string, text: string | undefined) => {
    let note: Note;
    try {
      note = JSON.parse(text ?? '') as Note;
    } catch {
      return;
    }
    if (note.origin === origin) return;
    if (channel === REGISTRY) {
      await registry.reload();
      log.debug('module registry reloaded after a change in another process', { from: note.origin });
    } else if (channel === STATUS && typeof note.id === 'number') {
      const [e] = await status.after(note.id - 1, {}, 1);
      if (e && e.id === note.id) bus.emit('remote_status', e);
    }
  };

  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: config.database_url });
    c.on('notification', (n) => void onNote(n.channel, n.payload).catch((err: Error) => log.warn('cluster notification failed', { error: err.message })));
    c.on('error', (err) => {
      log.warn('cluster listener lost its connection; reconnecting', { error: err.message });
      void c.end().catch(() => undefined);
      if (client === c) client = undefined;
      retry = setTimeout(() => void connect(), 1000);
      retry.unref();
    });
    try {
      await c.connect();
      await c.query(`listen ${REGISTRY}`);
      await c.query(`listen ${STATUS}`);
      client = c;
      // Changes made while this listener was not connected are picked up here.
      await registry.reload();
    } catch (err) {
      log.warn('cluster listener cannot connect; retrying', { error: (err as Error).message });
      await c.end().catch(() => undefined);
      retry = setTimeout(() => void connect(), 1000);
      retry.unref();
    }
  };

  const notify = (channel: string, note: Note) => {
    const c = client;
    if (!c) return;
    c.query('select pg_notify($1, $2)', [channel, JSON.stringify(note)]).catch((err: Error) => log.warn('cluster notify failed', { channel, error: err.message }));
  };

  await connect();
  const onChange = () => notify(REGISTRY, { origin });
  registry.changeListeners.add(onChange);
  const offStatus = bus.on('status', (e) => notify(STATUS, { origin, id: e.id }));
  return {
    origin,
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      registry.changeListeners.delete(onChange);
      offStatus();
      await client?.end().catch(() => undefined);
    },
  };
}
