// The box's own texts are keys with parameters, on both engines: an alarm the box raises itself (a
// polled controller's comm loss, a swine climate rule) is stored with title_key, message_key and
// text_params beside its English title and message, the English is the English catalogue's
// rendering of the same key, and the same key reads in Russian and Spanish; the alarm view's item
// and the alarm_changed event the shell's alarm store applies carry the keys; a text a person typed
// keeps null keys; a validation issue carries what a reader needs to word it; and a database of
// the previous release keeps its alarms through the migration (null keys, English text as it was).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { waitFor } from '../field/helpers.js';
import { openDatabase } from '../../src/db/client.js';
import { bundledMigrations, migrate } from '../../src/db/migrate.js';
import { MODULES } from '../../src/modules/index.js';
import type { RunningServer } from '../../src/server.js';
import type { DeviceLinkEvent } from '../../src/field/poll-types.js';
import type { AlarmViewItem } from '../../src/industry/alarm-view-item.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Params = Record<string, string | number | boolean | null>;

describe.each(DIALECTS)('the box texts as keys (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let lastStatusId = 0;

  const say = (lang: string, key: string, params: Params) => server.services.catalogues.translator(lang).t(key, params);
  const alarmsOf = async (rule: string) => ((await admin.get(`/api/v1/industry-alarms/list?limit=200`)).body.items as Item[]).filter((a) => a.rule_id === rule);
  const viewItem = async (id: string) => ((await admin.get('/api/v1/alarm-view/list')).body.items as AlarmViewItem[]).find((i) => i.id === id);
  /** The alarm_changed status events since the last call (the stream's fallback gives the same details). */
  const changed = async () => {
    const items = (await admin.get(`/api/v1/status/list?since=${lastStatusId}&limit=500`)).body.items as { id: number; event: string; details: { item?: AlarmViewItem } }[];
    if (items.length) lastStatusId = items[items.length - 1]!.id;
    return items.filter((e) => e.event === 'alarm_changed').map((e) => e.details.item!);
  };

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', master_field_bus: 'true', mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000' });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 's1' }, master.contract);
    await changed();
  }, 120_000);
  afterAll(async () => env.cleanup());

  it('a polled controller lost: its alarm is keys and data, its English the English rendering, and it reads in Russian and Spanish', async () => {
    const link: DeviceLinkEvent = {
      device_id: 'poultry:ctl-2', industry: 'poultry', tenant_id: 'tA', site_id: 's1', unit_id: 'house-2', controller_id: 'ctl-2',
      state: 'lost', misses: 3, message: 'Timeout 127.0.0.1:1502 addr:0', bus: 'tcp:127.0.0.1:1502', at: new Date().toISOString(),
    };
    server.services.bus!.emit('device_link', link);
    await waitFor(async () => (await alarmsOf('comm_loss:ctl-2')).length === 1, 10_000, 'the comm_loss alarm');
    const [a] = await alarmsOf('comm_loss:ctl-2');
    expect(a).toMatchObject({
      title: 'House 2 controller not answering',
      message: 'The box could not read controller ctl-2 3 times in a row — check its power and its cable',
      title_key: 'box.comm_loss.controller.title', message_key: 'box.comm_loss.controller.message',
      text_params: { industry: 'poultry', unit: '2', controller: 'ctl-2', misses: 3 },
    });
    // One wording: the stored English is the English catalogue's.
    expect(a!.title).toBe(say('en', a!.title_key, a!.text_params));
    expect(a!.message).toBe(say('en', a!.message_key, a!.text_params));
    expect(say('ru', a!.title_key, a!.text_params)).toBe('Корпус 2: контроллер не отвечает');
    expect(say('ru', a!.message_key, a!.text_params)).toBe('Блок не смог прочитать контроллер ctl-2 3 раза подряд — проверьте его питание и кабель');
    expect(say('es', a!.title_key, a!.text_params)).toBe('Nave 2: el controlador no responde');
    expect(say('es', a!.message_key, a!.text_params)).toBe('El equipo no pudo leer el controlador ctl-2 3 veces seguidas — revise su alimentación y su cable');

    // The view's item (what the shell's screens read) carries the keys of its title, cause and place.
    const item = await viewItem(a!.id);
    expect(item).toMatchObject({ title: 'House 2 controller not answering', title_key: 'box.comm_loss.controller.title', message_key: 'box.comm_loss.controller.message', where_key: 'box.place.unit', where: 'House 2' });
    expect(say('en', item!.where_key!, item!.text_params!)).toBe('House 2');
    expect(say('ru', item!.where_key!, item!.text_params!)).toBe('Корпус 2');
    expect(say('en', item!.message_key!, item!.text_params!)).toBe(item!.cause);
    // And so does the alarm_changed event the shell's alarm store applies.
    let events: AlarmViewItem[] = [];
    await waitFor(async () => (events = [...events, ...(await changed())]).some((e) => e.id === a!.id), 10_000, 'the alarm_changed event');
    expect(events.find((e) => e.id === a!.id)).toMatchObject({ title_key: 'box.comm_loss.controller.title', text_params: expect.objectContaining({ unit: '2', misses: 3 }) });
  });

  it('the alarm_raised status event carries the title key and its data too (a live feed renders it after the alarm left the store)', async () => {
    const [a] = await alarmsOf('comm_loss:ctl-2');
    const events = (await admin.get(`/api/v1/status/list?correlation_id=${a!.correlation_id}`)).body.items as { event: string; details: Record<string, unknown> }[];
    const raised = events.find((e) => e.event === 'alarm_raised');
    expect(raised?.details).toMatchObject({ title: 'House 2 controller not answering', title_key: 'box.comm_loss.controller.title', text_params: { unit: '2', controller: 'ctl-2' } });
    expect(say('ru', raised!.details.title_key as string, raised!.details.text_params as Params)).not.toBe(raised!.details.title);
  });

  it('a rule alarm: the rule title and the reading against its limit as keys, read in each language', async () => {
    // The default rule holds a breach 120 s: hot since 150 s ago, so this reading raises it.
    await admin.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-7', avg_weight_kg: 8, temp_c: 40, ts: new Date(Date.now() - 150_000).toISOString() });
    const r = await admin.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-7', avg_weight_kg: 8, temp_c: 40 });
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    await waitFor(async () => (await alarmsOf('swine-climate:temp_high')).some((x) => x.unit_id === 'room-7'), 10_000, 'the rule alarm');
    const a = (await alarmsOf('swine-climate:temp_high')).find((x) => x.unit_id === 'room-7')!;
    expect(a).toMatchObject({
      title: 'Room room-7: room temperature 3 C or more above the band', title_key: 'box.rule.swine_climate.temp_high.title', message_key: 'box.rule.message',
      text_params: expect.objectContaining({ industry: 'swine', unit: 'room-7', margin: 3, metric: 'temp_c', value: 40, comparator: 'gte' }),
    });
    expect(a.title).toBe(say('en', a.title_key, a.text_params));
    expect(a.message).toBe(say('en', a.message_key, a.text_params));
    expect(a.message).toMatch(/^temp_c 40 gte \d+/);
    expect(say('ru', a.title_key, a.text_params)).toBe('Секция room-7: температура в секции на 3 °C или больше выше нормы');
    expect(say('es', a.title_key, a.text_params)).toBe('Sala room-7: temperatura de la sala 3 °C o más por encima del rango');

    const item = (await viewItem(a.id))!;
    expect(item.message_key).toBe('box.cause.limit');
    expect(item.cause).toMatch(/^Temperature 40 °C, above the limit of \d+(\.\d)? °C$/);
    expect(say('en', item.message_key!, item.text_params!)).toBe(item.cause);
    expect(say('ru', item.message_key!, item.text_params!)).toMatch(/^Температура 40 °C, выше предела \d+(,\d)? °C$/);
    expect(say('es', item.message_key!, item.text_params!)).toMatch(/^Temperatura 40 °C, por encima del límite de \d+(,\d)? °C$/);
    expect(say('en', item.title_key!, item.text_params!)).toBe(item.title);
  });

  it('a text a person typed keeps null keys', async () => {
    const p = await admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', severity: 'high', priority: 'P1', unit_id: '4', title: 'House 4: door left open', message: 'seen by the night shift' });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    expect(p.body.item).toMatchObject({ title: 'House 4: door left open', message: 'seen by the night shift', title_key: null, message_key: null, text_params: null });
    const s = await admin.post('/api/v1/alarms/commands/raise', { severity: 'medium', source: 'gate', title: 'Gate sensor check', message: 'weekly' });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    expect(s.body.item).toMatchObject({ title: 'Gate sensor check', title_key: null, message_key: null, text_params: null });
    const item = (await viewItem(p.body.item.id))!;
    expect(item).toMatchObject({ title_key: null, message_key: null, title: 'House 4: door left open', cause: 'seen by the night shift' });
  });

  it('every field issue of a validation error carries its reason and what a reader needs to word it', async () => {
    const r = await admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', severity: 'nope', title: 'x'.repeat(501), unknown: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    const details = r.body.error.details as Item[];
    expect(details).toEqual(expect.arrayContaining([
      { field: 'severity', reason: 'unsupported_value', allowed: ['critical', 'high', 'medium', 'low', 'info'] },
      { field: 'title', reason: 'out_of_range', max_length: 500 },
      { field: 'unknown', reason: 'unknown_field' },
    ]));
  });
});

describe.each(DIALECTS)('the migration to keyed texts (%s)', (dialect) => {
  let env: TestEnv;
  afterAll(async () => env.cleanup());

  it('keeps the alarms of an existing database: null keys, their English as it was', async () => {
    // A box of the previous release: every migration but the texts' own, with alarms in it.
    env = await createTestEnv(dialect, { empty: true });
    const old = await openDatabase({ databaseUrl: env.databaseUrl, dataDir: env.dataDir });
    const mine = (m: { module: string; tag: string }) => (m.module === 'industry' || m.module === 'alarms') && m.tag.endsWith('_alarm_texts');
    await migrate(old, bundledMigrations(old.dialect, MODULES.map((m) => m.id)).filter((m) => !mine(m)));
    const no = dialect === 'sqlite' ? sql`0` : sql`false`;
    const yes = dialect === 'sqlite' ? sql`1` : sql`true`;
    const at = new Date().toISOString();
    await old.run(sql`insert into industry_alarm_events (id, tenant_id, site_id, industry_code, unit_id, rule_id, metric, value, severity, priority, status, source, title, message,
      correlation_id, sla_breached, escalation_level, bridged_to_status, raised_at, last_raised_at, condition, alarm_state, listed, annunciated, urgent)
      values ('01900000-0000-7000-8000-0000000000a1', 'tA', 's1', 'poultry', 'house-1', 'comm_loss:old', 'comm_loss', null, 'high', 'P1', 'active', 'device',
      'House 1 controller not answering', 'The box could not read controller old 3 times in a row — check its power and its cable',
      'corr-old-1', ${no}, 0, ${no}, ${at}, ${at}, 'active', 'unacknowledged_active', ${yes}, ${yes}, ${yes})`);
    await old.run(sql`insert into alarms (id, tenant_id, site_id, scope, severity, state, source, title, message, correlation_id, raised_at)
      values ('01900000-0000-7000-8000-0000000000a2', 'tA', 's1', 'site', 'medium', 'open', 'gate', 'Gate sensor check', 'weekly', 'corr-old-2', ${at})`);
    await old.close();

    const server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000' });
    const master = await clientAs(env, server);
    const admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    const industry = await admin.get('/api/v1/industry-alarms/01900000-0000-7000-8000-0000000000a1');
    expect(industry.status, JSON.stringify(industry.body)).toBe(200);
    expect(industry.body.item).toMatchObject({
      title: 'House 1 controller not answering', message: 'The box could not read controller old 3 times in a row — check its power and its cable',
      title_key: null, message_key: null, text_params: null,
    });
    const site = await admin.get('/api/v1/alarms/01900000-0000-7000-8000-0000000000a2');
    expect(site.status, JSON.stringify(site.body)).toBe(200);
    expect(site.body.item).toMatchObject({ title: 'Gate sensor check', message: 'weekly', title_key: null, message_key: null, text_params: null });
    // The view still words them (its English), with no key for their titles.
    const items = (await admin.get('/api/v1/alarm-view/list')).body.items as AlarmViewItem[];
    expect(items.find((i) => i.id === '01900000-0000-7000-8000-0000000000a1')).toMatchObject({ title: 'House 1 controller not answering', title_key: null, message_key: null, where_key: 'box.place.unit' });
    expect(items.find((i) => i.id === '01900000-0000-7000-8000-0000000000a2')).toMatchObject({ title: 'Gate sensor check', title_key: null, message_key: null });
  });
});
