// poultry-climate-readings over HTTP on both dialects: the stored climate readings listed with
// their filters (house, batch, status, age phase, from/to on ts) and sort, read-only, kept inside
// the caller's tenant and, for a site-bound session, its site; the hourly roll-up's numbers
// against values computed by hand; bad input gives 400 and changes nothing; the routes answer
// 401 without a token and module_not_installed once poultry is uninstalled. A 42-day batch of
// one reading a minute (60,480 rows) rolls up to 1,008 hours; the time is printed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, createClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { FIRST_PURGE_AFTER_MS } from '../../src/kernel/retention.js';
import { rowsPerInsert, tableOf } from '../../src/db/sql.js';
import { readingRecord, type ReadingRow } from '../../src/modules/poultry/climate-schema.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const HOUR = 3_600_000;
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
// The start of the UTC hour five hours ago: readings at fixed minutes after it.
const T = Math.floor((Date.now() - 5 * HOUR) / HOUR) * HOUR;
const at = (minutes: number) => new Date(T + minutes * 60_000).toISOString();
// the flock's age on the UTC calendar (site_timezone defaults to UTC), placed 10 days ago
const ageAt = (minutes: number) => Math.round((Date.parse(at(minutes).slice(0, 10)) - Date.parse(daysAgo(10))) / 86_400_000);
const hourOf = (minutes: number) => new Date(T + Math.floor(minutes / 60) * HOUR).toISOString();

// House H1 (site s1, batch B1, day 9 or 10: phase d08-14, 28 °C ± 1.5): five readings in three hours.
const H1 = [
  { m: 5, temp: 28, humidity: 60, co2: 1000, nh3: 5, ventilation: 20 },
  { m: 25, temp: 30, humidity: 64, co2: 1500, nh3: 8, ventilation: 30 },
  { m: 50, temp: 35, humidity: 70, co2: 1200, nh3: 6, ventilation: 40 },
  { m: 70, temp: 27, humidity: 62 },
  { m: 180, temp: 26, co2: 2000 },
];

describe.each(DIALECTS)('poultry climate readings (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let opA: Client;
  let opB: Client;
  let site2: Client;
  const idsA: string[] = [];
  let idB = '';
  let idH2 = '';

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000' });
    master = await clientAs(env, server);
    const adminA = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opB = await clientAs(env, server, { subject: 'op-b', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
    site2 = await clientAs(env, server, { subject: 'op-s2', role: 'operator', scope_type: 'tenant', tenant_id: 'tA', site_id: 's2' }, master.contract);
    const place = async (c: Client, body: Item) => expect((await c.post('/api/v1/poultry-flock/commands/place', { subtype: 'broiler', start_date: daysAgo(10), birds_placed: 20_000, ...body })).status).toBe(201);
    await place(adminA, { house_id: 'H1', batch_id: 'B1', site_id: 's1' });
    await place(adminA, { house_id: 'H2', batch_id: 'B2', site_id: 's2' });
    await place(opB, { house_id: 'H1', batch_id: 'BX' });
    const tele = async (c: Client, body: Item) => {
      const r = await c.post('/api/v1/poultry-climate/commands/telemetry', body);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.item as Item;
    };
    for (const { m, ...values } of H1) await tele(adminA, { house_id: 'H1', ts: at(m), ...values });
    await tele(adminA, { house_id: 'H2', ts: at(10), temp: 29 });
    await tele(adminA, { house_id: 'H2', ts: at(20), temp: 29.5 });
    await tele(opB, { house_id: 'H1', ts: at(5), temp: 40 });
    await tele(opB, { house_id: 'H1', ts: at(25), temp: 41 });
    const listed = (await opA.get('/api/v1/poultry-climate-readings/list?house_id=H1&sort=ts&order=asc')).body.items as Item[];
    idsA.push(...listed.map((i) => i.id as string));
    idB = (await opB.get('/api/v1/poultry-climate-readings/list')).body.items[0].id;
    idH2 = (await opA.get('/api/v1/poultry-climate-readings/list?house_id=H2')).body.items[0].id;
  }, 60_000);
  afterAll(async () => env.cleanup());

  it('lists the readings newest first with what was ingested and the judgement', async () => {
    const res = await opA.get('/api/v1/poultry-climate-readings/list?house_id=H1');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(5);
    expect(res.body.items.map((i: Item) => i.ts)).toEqual([at(180), at(70), at(50), at(25), at(5)]);
    expect(res.body.items[2]).toMatchObject({ tenant_id: 'tA', site_id: 's1', house_id: 'H1', batch_id: 'B1', age_days: ageAt(50), age_phase_id: 'd08-14', temp: 35, humidity: 70, co2: 1200, nh3: 6, ventilation: 40, status: 'alarm', source: 'api' });
    expect(res.body.items[2].out_of_norm_flags).toContain('temp_high');
    expect(res.body.items[1]).toMatchObject({ temp: 27, humidity: 62, co2: null, nh3: null, ventilation: null });
    const one = await opA.get(`/api/v1/poultry-climate-readings/${idsA[2]}`);
    expect(one.body.item).toMatchObject({ id: idsA[2], ts: at(50), temp: 35 });
    // scheme: read-only, with the range filters
    const scheme = (await opA.get('/api/v1/poultry-climate-readings/scheme')).body.item;
    expect(scheme.operations).toEqual({ create: false, patch: false, delete: false });
    expect(scheme.commands).toEqual([]);
    expect(scheme.filters.map((f: Item) => f.name).sort()).toEqual(['age_phase_id', 'batch_id', 'from', 'house_id', 'site_id', 'status', 'to']);
    expect(scheme.filters.find((f: Item) => f.name === 'from')).toMatchObject({ op: 'gte', format: 'date-time' });
    expect(scheme.default_sort).toEqual({ field: 'ts', order: 'desc' });
    // the OpenAPI document says the same of the query parameters
    const listOp = opA.contract.doc.paths['/api/v1/poultry-climate-readings/list']?.get as unknown as { parameters: { name: string; schema: Item }[] };
    expect(listOp.parameters.find((p) => p.name === 'from')?.schema).toMatchObject({ type: 'string', format: 'date-time' });
    for (const [method, path] of [['POST', '/api/v1/poultry-climate-readings'], ['PATCH', `/api/v1/poultry-climate-readings/${idsA[0]}`], ['DELETE', `/api/v1/poultry-climate-readings/${idsA[0]}`]] as const) {
      const r = await opA.request(method, path, { body: method === 'DELETE' ? undefined : { item: { temp: 1 } }, skipContract: true });
      expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(404);
      expect(r.status).toBeLessThan(500);
    }
    expect((await opA.get(`/api/v1/poultry-climate-readings/${idsA[0]}`)).body.item.temp).toBe(28);
  });

  it('filters by house, batch, status, age phase and the from/to window, and sorts', async () => {
    const ts = async (qs: string) => (await opA.get(`/api/v1/poultry-climate-readings/list?${qs}`)).body.items.map((i: Item) => i.ts);
    expect(await ts(`house_id=H1&from=${encodeURIComponent(at(25))}&to=${encodeURIComponent(at(70))}`)).toEqual([at(50), at(25)]);
    // an offset is the same instant: T+25 min written as +02:00
    const plus2 = new Date(T + 25 * 60_000 + 2 * HOUR).toISOString().slice(0, 19) + '+02:00';
    expect(await ts(`house_id=H1&from=${encodeURIComponent(plus2)}&to=${encodeURIComponent(at(70))}`)).toEqual([at(50), at(25)]);
    expect(await ts(`house_id=H1&from=${encodeURIComponent(at(181))}`)).toEqual([]);
    expect(await ts(`house_id=H1&to=${encodeURIComponent(at(5))}`)).toEqual([]);
    expect(await ts(`house_id=H1&sort=ts&order=asc&from=${encodeURIComponent(at(60))}`)).toEqual([at(70), at(180)]);
    expect(await ts('status=alarm')).toEqual([at(50)]);
    expect(await ts('batch_id=B2')).toEqual([at(20), at(10)]);
    expect((await ts('age_phase_id=d08-14')).length).toBe(7);
    expect(await ts('age_phase_id=d00-03')).toEqual([]);
    expect((await opA.get('/api/v1/poultry-climate-readings/list?sort=house_id&order=desc&limit=2')).body.items.map((i: Item) => i.house_id)).toEqual(['H2', 'H2']);
    const page = (await opA.get('/api/v1/poultry-climate-readings/list?house_id=H1&limit=2&offset=2')).body;
    expect(page).toMatchObject({ total: 5, offset: 2, limit: 2, has_more: true });
    expect(page.items.map((i: Item) => i.ts)).toEqual([at(50), at(25)]);
  });

  it('keeps another tenant\'s readings out of lists and by id', async () => {
    const b = (await opB.get('/api/v1/poultry-climate-readings/list?house_id=H1')).body;
    expect(b.items.map((i: Item) => i.temp)).toEqual([41, 40]);
    expect(b.items.every((i: Item) => i.tenant_id === 'tB')).toBe(true);
    const a = (await opA.get('/api/v1/poultry-climate-readings/list?limit=500')).body;
    expect(a.total).toBe(7);
    expect(a.items.some((i: Item) => i.tenant_id !== 'tA')).toBe(false);
    expect((await opA.get(`/api/v1/poultry-climate-readings/${idB}`)).status).toBe(404);
    expect((await opB.get(`/api/v1/poultry-climate-readings/${idsA[0]}`)).status).toBe(404);
    for (const path of ['/api/v1/poultry-climate-readings/list?tenant_id=tB', '/api/v1/poultry-climate-readings/hourly?house_id=H1&tenant_id=tB']) {
      const r = await opA.get(path);
      expect(r.status, path).toBe(403);
      expect(r.body.error.code).toBe('tenant_boundary_denied');
    }
    // tenant B's house H1 has the same name: its hours are not tenant A's
    const hoursB = (await opB.get(`/api/v1/poultry-climate-readings/hourly?house_id=H1&from=${encodeURIComponent(at(0))}&to=${encodeURIComponent(at(240))}`)).body.item.items;
    expect(hoursB).toEqual([expect.objectContaining({ hour: hourOf(0), n: 2, temp_avg: 40.5, temp_min: 40, temp_max: 41 })]);
  });

  it('shows a site-bound session only its site\'s readings', async () => {
    const s2 = (await site2.get('/api/v1/poultry-climate-readings/list?limit=500')).body;
    expect(s2.items.map((i: Item) => [i.house_id, i.site_id])).toEqual([['H2', 's2'], ['H2', 's2']]);
    expect((await site2.get('/api/v1/poultry-climate-readings/list?house_id=H1')).body.total).toBe(0);
    expect((await site2.get('/api/v1/poultry-climate-readings/list?site_id=s1')).body.total).toBe(0);
    expect((await site2.get(`/api/v1/poultry-climate-readings/${idsA[0]}`)).status).toBe(404);
    expect((await site2.get(`/api/v1/poultry-climate-readings/${idH2}`)).status).toBe(200);
    const window = `from=${encodeURIComponent(at(0))}&to=${encodeURIComponent(at(240))}`;
    expect((await site2.get(`/api/v1/poultry-climate-readings/hourly?house_id=H1&${window}`)).body.item.items).toEqual([]);
    expect((await site2.get(`/api/v1/poultry-climate-readings/hourly?house_id=H2&${window}`)).body.item.items).toEqual([
      { hour: hourOf(0), n: 2, temp_avg: 29.25, temp_min: 29, temp_max: 29.5, humidity_avg: null, co2_max: null, nh3_max: null, ventilation_avg: null },
    ]);
  });

  it('rolls the readings up by hour in SQL, oldest first', async () => {
    const window = `from=${encodeURIComponent(at(0))}&to=${encodeURIComponent(at(240))}`;
    const res = await opA.get(`/api/v1/poultry-climate-readings/hourly?house_id=H1&${window}`);
    expect(res.status).toBe(200);
    expect(res.body.item).toMatchObject({ house_id: 'H1', batch_id: null, from: at(0), to: at(240) });
    const items = res.body.item.items as Item[];
    // by hand: hour 0 holds 28/30/35 °C, 60/64/70 %RH, CO2 1000/1500/1200, NH3 5/8/6, ventilation 20/30/40
    expect(items.map((i) => i.hour)).toEqual([hourOf(0), hourOf(60), hourOf(180)]);
    expect(items[0]).toMatchObject({ n: 3, temp_avg: 31, temp_min: 28, temp_max: 35, co2_max: 1500, nh3_max: 8, ventilation_avg: 30 });
    expect(items[0]!.humidity_avg).toBeCloseTo(194 / 3, 9);
    expect(items[1]).toEqual({ hour: hourOf(60), n: 1, temp_avg: 27, temp_min: 27, temp_max: 27, humidity_avg: 62, co2_max: null, nh3_max: null, ventilation_avg: null });
    expect(items[2]).toEqual({ hour: hourOf(180), n: 1, temp_avg: 26, temp_min: 26, temp_max: 26, humidity_avg: null, co2_max: 2000, nh3_max: null, ventilation_avg: null });
    // from included, to excluded; batch filter
    const part = (await opA.get(`/api/v1/poultry-climate-readings/hourly?house_id=H1&batch_id=B1&from=${encodeURIComponent(at(25))}&to=${encodeURIComponent(at(70))}`)).body.item;
    expect(part.batch_id).toBe('B1');
    expect(part.items).toEqual([expect.objectContaining({ hour: hourOf(0), n: 2, temp_avg: 32.5, temp_min: 30, temp_max: 35 })]);
    expect((await opA.get(`/api/v1/poultry-climate-readings/hourly?house_id=H1&batch_id=B9&${window}`)).body.item.items).toEqual([]);
    // default window: the 24 hours before now
    const day = (await opA.get('/api/v1/poultry-climate-readings/hourly?house_id=H1')).body.item;
    expect(Date.parse(day.to) - Date.parse(day.from)).toBe(24 * HOUR);
    expect(day.items.reduce((n: number, i: Item) => n + i.n, 0)).toBe(5);
  });

  it('refuses a bad date, a missing house and too long a window with 400, changing nothing', async () => {
    const before = (await opA.get('/api/v1/poultry-climate-readings/list?limit=500')).body;
    const bad = async (qs: string, field: string, reason: string) => {
      const r = await opA.get(`/api/v1/poultry-climate-readings/${qs}`);
      expect(r.status, qs).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_error', details: [{ field, reason }] });
    };
    await bad('list?from=yesterday', 'from', 'invalid_format');
    await bad('list?to=2026-02-30T00:00:00Z', 'to', 'invalid_format');
    await bad('hourly?house_id=H1&from=2026-11-20', 'from', 'invalid_format');
    await bad('hourly?from=2026-11-20T00:00:00Z', 'house_id', 'required');
    await bad(`hourly?house_id=H1&from=${encodeURIComponent(new Date(T - 121 * 86_400_000).toISOString())}&to=${encodeURIComponent(at(0))}`, 'from', 'window_too_long');
    await bad(`hourly?house_id=H1&from=${encodeURIComponent(at(60))}&to=${encodeURIComponent(at(0))}`, 'from', 'not_before_to');
    await bad('hourly?house_id=H1&bucket=day', 'bucket', 'unknown_parameter');
    // exactly 120 days is allowed
    expect((await opA.get(`/api/v1/poultry-climate-readings/hourly?house_id=H1&from=${encodeURIComponent(new Date(T - 120 * 86_400_000).toISOString())}&to=${encodeURIComponent(new Date(T).toISOString())}`)).status).toBe(200);
    // age_s counts on between the two reads; the readings themselves are unchanged.
    const still = (items: Item[]) => items.map(({ age_s: _age, ...rest }) => rest);
    const after = (await opA.get('/api/v1/poultry-climate-readings/list?limit=500')).body;
    expect({ total: after.total, items: still(after.items) }).toEqual({ total: before.total, items: still(before.items) });
  });

  it('rolls a 42-day batch of one reading a minute up to 1,008 hours', async () => {
    const db = server.services.db;
    const start = Math.floor((Date.now() - 43 * 86_400_000) / HOUR) * HOUR;
    const rows: ReadingRow[] = [];
    for (let i = 0; i < 42 * 1440; i++) {
      rows.push({
        id: randomUUID(), tenant_id: 'tA', site_id: 's1', house_id: 'H9', batch_id: 'B9', ts: new Date(start + i * 60_000).toISOString(), age_days: Math.floor(i / 1440),
        age_phase_id: null, profile_id: null, temp: 20 + (i % 60) / 10, humidity: 60, co2: 1000 + (i % 60), nh3: 5, ventilation: 30, status: 'ok', out_of_norm_flags: [], source: 'api',
      });
    }
    const per = rowsPerInsert(Object.keys(readingRecord.table.columns).length);
    for (let i = 0; i < rows.length; i += per) await db.orm.insert(tableOf(readingRecord.table, db)).values(rows.slice(i, i + per) as never);
    const q = `/api/v1/poultry-climate-readings/hourly?house_id=H9&batch_id=B9&from=${encodeURIComponent(new Date(start).toISOString())}&to=${encodeURIComponent(new Date(start + 42 * 86_400_000).toISOString())}`;
    await opA.get(q); // warm
    const t0 = performance.now();
    const res = await opA.get(q);
    const ms = performance.now() - t0;
    console.log(`hourly roll-up (${dialect}): ${rows.length} readings -> ${res.body.item.items.length} hours in ${ms.toFixed(0)} ms`);
    expect(res.body.item.items).toHaveLength(1008);
    expect(res.body.item.items.reduce((n: number, i: Item) => n + i.n, 0)).toBe(rows.length);
    // each hour holds 20.0 ... 25.9 °C once: average 22.95
    expect(res.body.item.items[500]).toMatchObject({ n: 60, temp_min: 20, temp_max: 25.9, co2_max: 1059 });
    expect(res.body.item.items[500].temp_avg).toBeCloseTo(22.95, 9);
  }, 120_000);

  it('answers 401 without a token and module_not_installed once poultry is uninstalled', async () => {
    const anon = await createClient(server.url, {}, master.contract);
    for (const path of ['/api/v1/poultry-climate-readings/list', '/api/v1/poultry-climate-readings/hourly?house_id=H1', `/api/v1/poultry-climate-readings/${idsA[0]}`]) {
      const r = await anon.get(path);
      expect(r.status, path).toBe(401);
      expect(r.body.error.code).toBe('auth_required');
    }
    expect((await master.post('/api/v1/modules/commands/uninstall', { id: 'poultry' })).status).toBe(200);
    for (const path of ['/api/v1/poultry-climate-readings/list', '/api/v1/poultry-climate-readings/hourly?house_id=H1', '/api/v1/poultry-climate-readings/scheme']) {
      expect((await opA.get(path)).body.error.code, path).toBe('module_not_installed');
    }
    expect((await master.post('/api/v1/modules/commands/install', { id: 'poultry' })).status).toBe(200);
    expect((await opA.get('/api/v1/poultry-climate-readings/list')).status).toBe(200);
  });
});

describe('poultry readings retention', () => {
  it('deletes readings older than poultry_readings_retention_days once the service has started, and keeps the rest', async () => {
    const env = await createTestEnv('sqlite');
    try {
      const first = await env.start({ mqtt_broker: 'off' });
      const master = await clientAs(env, first);
      const op = await clientAs(env, first, { subject: 'op-r', role: 'operator', scope_type: 'tenant', tenant_id: 'tR' }, master.contract);
      const admin = await clientAs(env, first, { subject: 'admin-r', role: 'admin', scope_type: 'tenant', tenant_id: 'tR' }, master.contract);
      expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: 'R1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(3) })).status).toBe(201);
      for (const hoursAgo of [1, 2]) expect((await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'R1', temp: 30, ts: new Date(Date.now() - hoursAgo * HOUR).toISOString() })).status).toBe(200);
      // two readings backdated by 40 days (a former batch's)
      const ids = (await op.get('/api/v1/poultry-climate-readings/list')).body.items.map((i: Item) => i.id as string);
      expect(ids).toHaveLength(2);
      // Stored, or on SQLite still waiting in the recent table (the start settles it into the stored ones).
      for (const table of ['poultry_climate_readings', 'poultry_climate_readings_recent']) {
        await first.services.db.exec(`update ${table} set ts = '${new Date(Date.now() - 40 * 86_400_000).toISOString()}' where id = '${ids[1]}'`);
      }
      await first.close();
      const second = await env.start({ mqtt_broker: 'off', poultry_readings_retention_days: '30' });
      const again = await clientAs(env, second, { subject: 'op-r', role: 'operator', scope_type: 'tenant', tenant_id: 'tR' }, master.contract);
      // The first purge runs FIRST_PURGE_AFTER_MS after the start.
      await new Promise((r) => setTimeout(r, FIRST_PURGE_AFTER_MS + 500));
      const left = (await again.get('/api/v1/poultry-climate-readings/list')).body.items.map((i: Item) => i.id as string);
      expect(left).toEqual([ids[0]]);
    } finally {
      await env.cleanup();
    }
  }, 120_000);
});
