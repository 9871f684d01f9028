// Concurrent creates of one client-chosen id: every create operation the document lists (POST
// /api/v1/<resource> with item.id, commands/create and commands/set with an id) is sent N times
// at once with the same new id. A create answers exactly one 201 and 409 already_exists for the
// rest; a set (create or update) may also update, but nothing answers a 500, on SQLite and
// PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { instanceOf, type Schema } from '../helpers/instance.js';
import type { RunningServer } from '../../src/server.js';

interface Operation { requestBody?: { content: { 'application/json': { schema: Schema } } }; 'x-permission'?: { scope?: string } }
type Doc = { paths: Record<string, Record<string, Operation>> };

const N = 8;

// Fields a valid create of these resources needs beyond its schema (cross-field rules).
const EXTRA: Record<string, Record<string, unknown>> = {
  '/api/v1/version-policies/commands/set': { scope: 'global', industry_code: null, tenant_id: null, allowed_major: 1 },
  '/api/v1/sla-profiles/commands/set': {},
  '/api/v1/melioration-field': { site_id: 'site-1', available_water_mm_per_m: 150 },
  '/api/v1/poultry-adapters': { host: '10.0.0.1' },
  '/api/v1/swine-adapters': { host: '10.0.0.1' },
  '/api/v1/melioration-adapters': { host: '10.0.0.1', readings: [{ key: 'air_temp_c', address: 0 }] },
  '/api/v1/notification-channels': { tenant_id: 't1', kind: 'webhook', webhook_url: 'http://127.0.0.1:9/hook', webhook_key: 'race-key-0123456789abcdef' },
  // the channel made just before (the document lists channels first)
  '/api/v1/notification-rules': { tenant_id: 't1', channel_id: 'race-notification-channels' },
};

/** Create operations with a client-chosen id, found in the document. */
function creates(doc: Doc): { path: string; where: 'id' | 'item.id'; scope: string; kind: 'create' | 'set' }[] {
  const out: ReturnType<typeof creates> = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    const op = ops.post;
    const schema = op?.requestBody?.content['application/json'].schema;
    if (!op || !schema) continue;
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const command = /\/commands\/([a-z-]+)$/.exec(path)?.[1];
    const kind = command === undefined ? 'create' : command === 'create' ? 'create' : command === 'set' ? 'set' : undefined;
    if (!kind) continue;
    const itemProps = (((props.item ?? {}) as Schema).properties ?? {}) as Record<string, Schema>;
    const where = 'id' in props ? 'id' : 'id' in itemProps ? 'item.id' : undefined;
    if (!where) continue;
    out.push({ path, where, scope: op['x-permission']?.scope ?? 'any', kind });
  }
  return out;
}

describe.each(DIALECTS)('concurrent creates of one id (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let tenant: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off', mode: 'cloud-multi', master_field_bus: 'true', master_private_targets: 'true' });
    master = await clientAs(env, server);
    tenant = await clientAs(env, server, { subject: 'farm-admin', role: 'admin', scope_type: 'tenant', tenant_id: 't1' }, master.contract);
    for (const id of ['poultry', 'swine', 'melioration']) await master.post('/api/v1/modules/commands/install', { id });
  }, 60_000);
  afterAll(async () => env.cleanup());

  it('answers one success and 409 already_exists for the rest, never a 500', async () => {
    const doc = master.contract.doc as unknown as Doc;
    const found = creates(doc);
    // tables, forms, tasks, adapters, fields, subscriptions, SLA profiles, version policies at least
    expect(found.length).toBeGreaterThanOrEqual(9);
    const problems: string[] = [];
    for (const op of found) {
      const id = `race-${op.path.split('/')[3]}`;
      const schema = doc.paths[op.path]!.post!.requestBody!.content['application/json'].schema;
      const body = instanceOf(schema, { mode: 'minimal', root: doc as unknown as Schema, fixed: { id, ...EXTRA[op.path] } }) as Record<string, unknown>;
      if (op.where === 'id') Object.assign(body, { id, ...EXTRA[op.path] });
      if (op.where === 'item.id') body.item = { ...(body.item as object), id, ...EXTRA[op.path] };
      const caller = op.scope === 'tenant' ? tenant : master;
      const answers = await Promise.all(Array.from({ length: N }, () => caller.post(op.path, body)));
      const statuses = answers.map((a) => a.status);
      const ok = statuses.filter((s) => s >= 200 && s < 300).length;
      const conflicts = answers.filter((a) => a.status === 409 && a.body.error?.code === 'already_exists').length;
      const wanted = op.kind === 'create' ? ok === 1 && conflicts === N - 1 : ok >= 1 && ok + conflicts === N;
      if (!wanted) problems.push(`${op.kind} ${op.path}: ${statuses.join(',')} ${answers.find((a) => a.status >= 300)?.text.slice(0, 200) ?? ''}`);
      // The one record exists once.
      const listPath = op.path.replace(/\/commands\/[a-z-]+$/, '');
      const read = await caller.get(`${listPath}/${id}`);
      if (read.status !== 200) problems.push(`${op.path}: GET ${listPath}/${id} answered ${read.status}`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  }, 120_000);
});
