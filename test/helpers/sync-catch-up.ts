// A box (SQLite) whose sync reaches a master through a test's own proxy, with a backlog to catch
// up: the tests that watch what a box sends (pipelined batches, telemetry as columns) share it.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { RunningServer } from '../../src/server.js';
import type { EventKind } from '../../src/modules/tenant-master-sync/engine/protocol.js';
import type { Client } from './client.js';
import { createTestEnv, type TestEnv } from './server.js';
import { waitFor } from './wait.js';

export interface CatchUp {
  env: TestEnv;
  /** The outbox seqs the queued events got, in order. */
  appended: number[];
  last: number;
  /** The seqs of the queued telemetry events. */
  telemetry: Set<number>;
}

/**
 * Registers `tenant`'s site on the master and pauses it, starts a box syncing through `proxy`
 * (listening here) with `queued` waiting in its outbox, lets the tenant sync again and waits for
 * the master's applied seq to reach the last of them. The box and the proxy go into `started`,
 * for the file's afterAll to stop.
 */
export async function catchUpThrough(o: {
  fleet: Client;
  master: RunningServer;
  tenant: string;
  proxy: Server;
  queued: { kind: EventKind; payload: Record<string, unknown> }[];
  batchMax: number;
  started: { env: TestEnv; proxy: Server }[];
}): Promise<CatchUp> {
  const reg = await o.fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: o.tenant, site_id: 'site-1', industry_code: 'poultry' });
  await o.fleet.post('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: o.tenant, mode: 'paused' });
  await new Promise<void>((r) => o.proxy.listen(0, '127.0.0.1', r));
  const env = await createTestEnv('sqlite');
  o.started.push({ env, proxy: o.proxy });
  writeFileSync(join(env.dataDir, 'site-credential'), `${reg.body.item.credential as string}\n`, { mode: 0o600 });
  const edge = await env.start({
    mqtt_broker: 'off', sync_master_url: `http://127.0.0.1:${(o.proxy.address() as AddressInfo).port}`,
    sync_interval_ms: '100', sync_heartbeat_ms: '3600000', sync_backoff_max_ms: '400', sync_batch_max: String(o.batchMax),
  });
  const appended = await edge.services.edgeSync!.outbox.append(o.queued.map(({ kind, payload }) => ({ kind, payload })));
  const telemetry = new Set(appended.filter((_, i) => o.queued[i]!.kind === 'telemetry'));
  const last = appended.at(-1)!;
  await o.fleet.post('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: o.tenant, mode: 'auto' });
  const applied = async () => Number((await o.master.services.db.rows<{ s: unknown }>(sql`select applied_seq as s from sync_sites where tenant_id = ${o.tenant}`))[0]?.s ?? 0);
  await waitFor('the catch-up on the master', async () => ((await applied()) >= last ? true : undefined));
  return { env, appended, last, telemetry };
}
