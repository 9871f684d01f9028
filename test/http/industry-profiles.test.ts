// industry-profiles and poultry-profiles over the one profile store: YAML import/export
// (lossless), publish archives the previous version, rollback adds a published copy, a
// mismatched import is 409 profile_incompatible and stores nothing, poultry-only variants refuse
// other industries, every action audited, tenant and site isolation. cloud-multi, so a tenant
// may keep poultry and swine profiles side by side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

/** Content chosen to trip a careless YAML round trip: strings that look like other types, floats, nesting. */
const TRICKY = {
  phases: [
    { phase_id: 'weaner', min_weight_kg: 7, max_weight_kg: 30, temp_target_c: 26.5, humidity_max_pct: 70 },
    { phase_id: 'finisher', min_weight_kg: 60, max_weight_kg: 125, temp_target_c: 18, humidity_max_pct: 75 },
  ],
  strings: ['yes', 'no', 'on', 'null', '~', '007', '1e3', '0x1F', '2026-01-01', 'true', '', ' padded ', 'key: value', '# not a comment', 'multi\nline\n', 'ünïcødé 🐖'],
  numbers: [0, -0.5, 0.1, 1e-9, 123456789012345, 3.4028235e38],
  flags: { enabled: true, disabled: false, nothing: null },
  nested: { deep: { deeper: [[1, 2], [], {}] } },
  'odd key: with colon': 'x',
  '123': 'numeric-looking key',
};

const doc = (over: Record<string, unknown> = {}) => stringify({
  schema_version: 'v1', kind: 'industry-profile', industry_code: 'swine', equipment_profile: 'fattener-room', name: 'Room climate',
  content: TRICKY, ...over,
});

describe.each(DIALECTS)('industry profiles (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let adminA: Client;
  let opA: Client;
  let siteA2: Client;
  let adminB: Client;
  let master: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    master = await clientAs(env, server);
    adminA = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    siteA2 = await clientAs(env, server, { subject: 'admin-a2', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-2' }, master.contract);
    adminB = await clientAs(env, server, { subject: 'admin-b', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  const count = async (c: Client, query = '') => (await c.get(`/api/v1/industry-profiles/list?limit=500${query}`)).body.total as number;

  it('describes itself for the shell: fields with labels, filters, commands', async () => {
    const s = (await adminA.get('/api/v1/industry-profiles/scheme')).body.item;
    expect(s.fields.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['industry_code', 'equipment_profile', 'name', 'version_id', 'state', 'rollback_of', 'content']));
    expect(s.filters.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['tenant_id', 'site_id', 'industry_code', 'equipment_profile', 'state']));
    expect(s.commands.map((c: { name: string }) => c.name).sort()).toEqual(['export', 'import', 'publish', 'rollback']);
    expect((await master.get('/api/v1/industry-profiles/list')).body.error.code).toBe('scope_boundary_denied');
  });

  it('imports, exports and re-imports losslessly; publish archives; rollback adds a published copy; all audited', async () => {
    const v1 = await adminA.post('/api/v1/industry-profiles/commands/import', { yaml: doc(), site_id: 'farm-1', change_note: 'first curve' });
    expect(v1.status).toBe(201);
    expect(v1.body.item).toMatchObject({ tenant_id: 'tA', site_id: 'farm-1', industry_code: 'swine', equipment_profile: 'fattener-room', name: 'Room climate', version_id: 1, state: 'draft', change_note: 'first curve', created_by: 'admin-a' });
    expect(v1.body.item.content).toEqual(TRICKY);

    const out1 = await adminA.post('/api/v1/industry-profiles/commands/export', { id: v1.body.item.id });
    expect(out1.status).toBe(200);
    expect(out1.body.item).toMatchObject({ format: 'yaml', version_id: 1, state: 'draft' });
    expect(parse(out1.body.item.yaml).content).toEqual(TRICKY);

    // The exported document imported back is a new version with the identical content.
    const v2 = await adminA.post('/api/v1/industry-profiles/commands/import', { yaml: out1.body.item.yaml, target_profile_id: v1.body.item.id });
    expect(v2.status).toBe(201);
    expect(v2.body.item).toMatchObject({ version_id: 2, state: 'draft', site_id: 'farm-1', content_sha256: v1.body.item.content_sha256 });
    expect(v2.body.item.content).toEqual(TRICKY);
    const out2 = await adminA.post('/api/v1/industry-profiles/commands/export', { id: v2.body.item.id });
    const strip = (y: string) => y.split('\n').filter((l) => !/^(version_id|state|change_note):/.test(l)).join('\n');
    expect(strip(out2.body.item.yaml)).toBe(strip(out1.body.item.yaml));

    const p1 = await adminA.post('/api/v1/industry-profiles/commands/publish', { id: v1.body.item.id });
    expect(p1.body.item.published).toMatchObject({ version_id: 1, state: 'published' });
    expect(p1.body.item.archived).toBeNull();
    const p2 = await adminA.post('/api/v1/industry-profiles/commands/publish', { id: v2.body.item.id });
    expect(p2.body.item.published).toMatchObject({ version_id: 2, state: 'published' });
    expect(p2.body.item.archived).toMatchObject({ version_id: 1, state: 'archived' });
    const again = await adminA.post('/api/v1/industry-profiles/commands/publish', { id: v1.body.item.id });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('lifecycle_conflict');

    // Export by lineage names the published version.
    const byName = await adminA.post('/api/v1/industry-profiles/commands/export', { industry_code: 'swine', equipment_profile: 'fattener-room', name: 'Room climate', site_id: 'farm-1' });
    expect(byName.body.item).toMatchObject({ version_id: 2, state: 'published' });

    const rb = await adminA.post('/api/v1/industry-profiles/commands/rollback', { id: v2.body.item.id, version_id: 1 });
    expect(rb.status).toBe(200);
    expect(rb.body.item.published).toMatchObject({ version_id: 3, state: 'published', rollback_of: 1 });
    expect(rb.body.item.published.content).toEqual(TRICKY);
    expect(rb.body.item.archived).toMatchObject({ version_id: 2, state: 'archived' });
    const states = (await adminA.get('/api/v1/industry-profiles/list?equipment_profile=fattener-room&sort=version_id')).body.items.map((r: { version_id: number; state: string }) => `${r.version_id}:${r.state}`);
    expect(states).toEqual(['1:archived', '2:archived', '3:published']);
    expect((await adminA.post('/api/v1/industry-profiles/commands/rollback', { id: v2.body.item.id, version_id: 9 })).status).toBe(404);

    const trail = (await master.get('/api/v1/audit/list?resource=industry-profiles&limit=500')).body.items as { action: string; actor: string; details: { version_id: number } }[];
    const actions = trail.map((a) => a.action);
    for (const a of ['profile.import', 'profile.export', 'profile.publish', 'profile.rollback']) expect(actions).toContain(a);
    expect(trail.find((a) => a.action === 'profile.rollback')).toMatchObject({ actor: 'admin-a', details: { version_id: 3, rollback_of: 1 } });
  });

  it('refuses a mismatched import with 409 profile_incompatible and stores nothing', async () => {
    const target = (await adminA.get('/api/v1/industry-profiles/list?equipment_profile=fattener-room&state=published')).body.items[0];
    const before = await count(adminA);
    const wrongEquipment = await adminA.post('/api/v1/industry-profiles/commands/import', { yaml: doc({ equipment_profile: 'farrowing-room' }), target_profile_id: target.id });
    expect(wrongEquipment.status).toBe(409);
    expect(wrongEquipment.body.error.code).toBe('profile_incompatible');
    expect(wrongEquipment.body.error.details).toEqual([{ field: 'equipment_profile', reason: expect.stringContaining('farrowing-room') }]);
    const wrongIndustry = await adminA.post('/api/v1/industry-profiles/commands/import', { yaml: doc({ industry_code: 'poultry' }), target_profile_id: target.id });
    expect(wrongIndustry.body.error.code).toBe('profile_incompatible');
    const askedSwine = await adminA.post('/api/v1/industry-profiles/commands/import', { yaml: doc({ industry_code: 'melioration' }), industry_code: 'swine', equipment_profile: 'fattener-room' });
    expect(askedSwine.status).toBe(409);
    expect(askedSwine.body.error.details[0].field).toBe('industry_code');
    const bad = [
      'schema_version: v1\nindustry_code: swine\n  equipment_profile: [unclosed',
      'industry_code: swine\nequipment_profile: x\nname: y\ncontent: {}',
      doc({ schema_version: 'v2' }),
      doc({ content: ['not', 'a', 'mapping'] }),
      doc({ industry_code: 'cattle' }),
      'a: 1\na: 2',
    ];
    for (const yaml of bad) {
      const r = await adminA.post('/api/v1/industry-profiles/commands/import', { yaml });
      expect(r.status, yaml).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details[0].field).toMatch(/^yaml/);
    }
    expect((await adminA.post('/api/v1/industry-profiles/commands/import', { yaml: '' })).status).toBe(400);
    expect((await adminA.post('/api/v1/industry-profiles/commands/import', { yaml: doc(), publish: 'yes' })).status).toBe(400);
    expect((await adminA.post('/api/v1/industry-profiles/commands/export', {})).status).toBe(400);
    expect(await count(adminA)).toBe(before);
  });

  it('keeps tenants and sites apart', async () => {
    const mine = (await adminA.get('/api/v1/industry-profiles/list')).body.items[0];
    expect(await count(adminB)).toBe(0);
    expect((await adminB.get(`/api/v1/industry-profiles/${mine.id}`)).status).toBe(404);
    for (const cmd of ['export', 'publish']) expect((await adminB.post(`/api/v1/industry-profiles/commands/${cmd}`, { id: mine.id })).status).toBe(404);
    expect((await adminB.post('/api/v1/industry-profiles/commands/rollback', { id: mine.id, version_id: 1 })).status).toBe(404);
    expect((await adminB.post('/api/v1/industry-profiles/commands/import', { yaml: doc(), target_profile_id: mine.id })).status).toBe(404);
    expect((await adminB.get('/api/v1/industry-profiles/list?tenant_id=tA')).body.error.code).toBe('tenant_boundary_denied');
    expect((await adminB.post('/api/v1/industry-profiles/commands/import', { yaml: doc(), tenant_id: 'tA' })).body.error.code).toBe('tenant_boundary_denied');
    // B's own profile with the same lineage names starts its own history at version 1.
    const own = await adminB.post('/api/v1/industry-profiles/commands/import', { yaml: doc(), site_id: 'farm-1' });
    expect(own.body.item).toMatchObject({ tenant_id: 'tB', version_id: 1 });
    expect(await count(adminA, '&tenant_id=tA')).toBe(3);

    // A session bound to farm-2 sees and writes only farm-2.
    expect(await count(siteA2)).toBe(0);
    expect(await count(siteA2, '&site_id=farm-1')).toBe(0);
    expect((await siteA2.get(`/api/v1/industry-profiles/${mine.id}`)).status).toBe(404);
    expect((await siteA2.post('/api/v1/industry-profiles/commands/export', { id: mine.id })).status).toBe(404);
    expect((await siteA2.post('/api/v1/industry-profiles/commands/import', { yaml: doc(), site_id: 'farm-1' })).body.error.code).toBe('tenant_boundary_denied');
    const s2 = await siteA2.post('/api/v1/industry-profiles/commands/import', { yaml: doc() });
    expect(s2.body.item).toMatchObject({ site_id: 'farm-2', version_id: 1 });
    expect(await count(siteA2)).toBe(1);
  });

  it('lets operators read and export but not import, publish or roll back', async () => {
    const mine = (await adminA.get('/api/v1/industry-profiles/list?site_id=farm-1&state=published')).body.items[0];
    expect((await opA.post('/api/v1/industry-profiles/commands/export', { id: mine.id })).status).toBe(200);
    expect((await opA.post('/api/v1/industry-profiles/commands/import', { yaml: doc() })).body.error.code).toBe('rbac_forbidden');
    expect((await opA.post('/api/v1/industry-profiles/commands/publish', { id: mine.id })).body.error.code).toBe('rbac_forbidden');
    expect((await opA.post('/api/v1/industry-profiles/commands/rollback', { id: mine.id, version_id: 1 })).body.error.code).toBe('rbac_forbidden');
  });

  it('poultry-profiles act only on poultry profiles (409 for another industry) over the same store', async () => {
    const poultryDoc = doc({ industry_code: 'poultry', equipment_profile: 'broiler-tunnel-house', name: 'Default broiler curve', content: { climate_phases: [{ age_phase_id: 'd0-7', from_day: 0, to_day: 7, temp_target_c: 32.5 }], feedwater: { water_spike_pct: 30 }, alarm_rules: [] } });
    const swineId = (await adminA.get('/api/v1/industry-profiles/list?industry_code=swine&site_id=farm-1&state=published')).body.items[0].id;
    const before = await count(adminA);
    const refused = await adminA.post('/api/v1/poultry-profiles/commands/import-yaml', { yaml: doc() });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('profile_incompatible');
    expect(await count(adminA)).toBe(before);

    const p1 = await adminA.post('/api/v1/poultry-profiles/commands/import-yaml', { yaml: poultryDoc, site_id: 'farm-1' });
    expect(p1.status).toBe(201);
    expect(p1.body.item).toMatchObject({ industry_code: 'poultry', version_id: 1, state: 'draft' });
    const p2 = await adminA.post('/api/v1/poultry-profiles/commands/import-yaml', { yaml: poultryDoc, site_id: 'farm-1', publish: true });
    expect(p2.body.item).toMatchObject({ version_id: 2, state: 'published' });
    const pub = await adminA.post('/api/v1/poultry-profiles/commands/publish', { id: p1.body.item.id });
    expect(pub.body.item.archived).toMatchObject({ version_id: 2, state: 'archived' });
    const rb = await adminA.post('/api/v1/poultry-profiles/commands/rollback', { id: p1.body.item.id, version_id: 2 });
    expect(rb.body.item.published).toMatchObject({ version_id: 3, rollback_of: 2 });
    const ex = await adminA.post('/api/v1/poultry-profiles/commands/export-yaml', { id: rb.body.item.published.id });
    expect(parse(ex.body.item.yaml)).toMatchObject({ industry_code: 'poultry', content: parse(poultryDoc).content });

    for (const [cmd, body] of [['export-yaml', { id: swineId }], ['publish', { id: swineId }], ['rollback', { id: swineId, version_id: 1 }], ['export-yaml', { industry_code: 'swine', equipment_profile: 'fattener-room', name: 'Room climate' }]] as const) {
      const r = await adminA.post(`/api/v1/poultry-profiles/commands/${cmd}`, body);
      expect(r.status, cmd).toBe(409);
      expect(r.body.error.code).toBe('profile_industry_mismatch');
    }
    const list = (await adminA.get('/api/v1/poultry-profiles/list?limit=500')).body.items as { industry_code: string }[];
    expect(list.length).toBe(3);
    expect(list.every((r) => r.industry_code === 'poultry')).toBe(true);
    expect((await adminA.get('/api/v1/poultry-profiles/list?industry_code=swine')).body.total).toBe(0);
    expect((await adminA.get(`/api/v1/poultry-profiles/${swineId}`)).status).toBe(404);
    const trail = (await master.get('/api/v1/audit/list?resource=poultry-profiles&limit=500')).body.items.map((a: { action: string }) => a.action);
    expect(trail).toEqual(expect.arrayContaining(['profile.import', 'profile.publish', 'profile.rollback', 'profile.export']));
  });
});
