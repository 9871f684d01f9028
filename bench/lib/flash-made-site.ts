// The site the flash benchmarks start from (bench/flash-hours.ts, bench/flash-settle-file.ts): a
// server polling `houses` simulated house controllers (a broiler flock of day 12 in each, an
// adapter profile polled every 10 s) for 15 s, then stopped, so that its database holds the site's
// series, houses and a reading of each (bench/lib/flash-history.ts builds the history on it).
import { createTestEnv, type TestEnv } from '../../test/helpers/server.js';
import { clientAs } from '../../test/helpers/client.js';
import { adapterProfile } from '../../src/simulate/profile.js';
import { startTcpServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';

export interface MadeSite {
  /** The stopped server's environment: its data directory holds the database (env.cleanup() removes it). */
  env: TestEnv;
  /** The simulated controllers, still listening until closed. */
  simServer: Awaited<ReturnType<typeof startTcpServer>>;
}

/** Makes the site; `settings` are the making server's own (e.g. its page size, fixed when the file is made). */
export async function makePolledSite(houses: number, settings: Record<string, string> = {}): Promise<MadeSite> {
  const sim = new Simulation({ houses, age_days: 12, birds: 20_000, speed: 1, seed: 7, noise: 1 });
  const simServer = await startTcpServer(sim, '127.0.0.1', 0);
  const env = await createTestEnv('sqlite');
  const server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', log_level: 'error', ...settings });
  const master = await clientAs(env, server);
  const admin = await clientAs(env, server, { subject: 'site-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tS', site_id: 'farm-s' }, master.contract);
  const start = new Date(Date.now() - 12 * 86_400_000).toISOString().slice(0, 10);
  for (let h = 1; h <= houses; h++) {
    const placed = await admin.post('/api/v1/poultry-flock/commands/place', { house_id: `house-${h}`, batch_id: `B${h}`, subtype: 'broiler', start_date: start, birds_placed: 20_000 });
    if (placed.status !== 201) throw new Error(`place house-${h}: ${placed.status}`);
    const created = await admin.post('/api/v1/poultry-adapters', adapterProfile({ house: h, port: simServer.where as number, unit_id: `house-${h}`, poll_period_s: 10 }));
    if (created.status !== 201) throw new Error(`adapter house-${h}: ${created.status}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  await server.close();
  return { env, simServer };
}
