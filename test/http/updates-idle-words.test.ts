// A box that does not update (here: no master) words the reason of its idle step once, when it
// first writes the state file; at every later start in the same step it reads no catalogue and
// builds no formatter. Wording it at each start kept the English catalogue and ICU's locale data in
// the idle executable's memory (6 MiB of its RSS, docs/figures.md "Start and memory").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';
import type { Services } from '../../src/kernel/context.js';
import { Updater } from '../../src/modules/updates/runtime.js';
import { readState, statePath } from '../../src/modules/updates/state.js';

let env: TestEnv;
let server: RunningServer;
const dir = mkdtempSync(join(tmpdir(), 'cabinet-upd-idle-'));

beforeAll(async () => {
  env = await createTestEnv('sqlite');
  server = await env.start({ mqtt_broker: 'off' });
  await server.services.updater?.stop();
}, 120_000);

afterAll(async () => {
  await env?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** An updater on the box's services with its own data directory, no master, counting the translators it asks for. */
function updater(): { u: Updater; translators: () => number } {
  let n = 0;
  const real = server.services.catalogues;
  const services = Object.create(server.services) as Services;
  Object.assign(services, {
    config: { ...server.services.config, data_dir: dir, sync_master_url: '', updates_enabled: true },
    edgeSync: undefined,
    catalogues: { ...real, translator: (...args: Parameters<typeof real.translator>) => { n++; return real.translator(...args); } },
  });
  return { u: new Updater(services), translators: () => n };
}

it('words the idle reason when it first writes it, and reads no catalogue at a restart in the same step', async () => {
  const first = updater();
  await first.u.start();
  await first.u.settled();
  await first.u.stop();
  expect(readState(dir)).toMatchObject({ step: 'idle', reason_code: 'no_master', reason: 'This box syncs with no master, so it has no target version.' });
  expect(first.translators()).toBe(1);
  const file = readFileSync(statePath(dir), 'utf8');

  const again = updater();
  await again.u.start();
  await again.u.settled();
  await again.u.stop();
  expect(again.translators()).toBe(0);
  expect(readFileSync(statePath(dir), 'utf8')).toBe(file);
});
