// A push's telemetry events as columns (protocol.ts telemetryColumnsSchema, engine/columns.ts):
// the master says it takes them in the pull answer (telemetry_columns); the same events pushed as
// columns and as objects leave the same rows; exactly once holds in the columns form (a push sent
// again adds nothing, a batch sent again in part takes only what is new, on PostgreSQL on both
// paths of a push; a seq twice is refused with 400, as are columns that do not add up). End to
// end, a box pushes columns to this master, objects to a master whose pull answer does not say
// telemetry_columns (an older one), and falls back to objects when a master refuses the field as
// unknown (what an older master's validation answers), every event arriving once in each case.
import { createServer, type Server } from 'node:http';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, siteClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { waitFor } from '../helpers/wait.js';
import { catchUpThrough } from '../helpers/sync-catch-up.js';
import type { EventKind } from '../../src/modules/tenant-master-sync/engine/protocol.js';
import { toColumns } from '../../src/modules/tenant-master-sync/engine/columns.js';

type Pushed = { seq: number; kind: EventKind; created_at: string; payload: Record<string, unknown> };

const at = (i: number) => new Date(Date.UTC(2026, 10, 29, 10, 0, i % 60) + Math.floor(i / 60) * 60_000).toISOString();
const minuteOf = (i: number) => `${at(i).slice(0, 16)}:00.000Z`;
/** Mixed events: telemetry (two aggregates, devices and minutes repeating, so minutes add up across events), alarms, heartbeats, audit. */
const eventOf = (seq: number): Pushed => {
  const kind = seq % 5 === 0 ? 'alarm' : seq % 7 === 0 ? 'heartbeat' : seq % 11 === 0 ? 'audit' : 'telemetry';
  if (kind === 'alarm') return { seq, kind, created_at: at(seq), payload: { kind: 'raised', alarm: { id: `A-${seq}`, severity: 'high', state: 'open', title: 'hot', raised_at: at(seq) } } };
  if (kind === 'heartbeat') return { seq, kind, created_at: at(seq), payload: { at: at(seq), interval_ms: 60_000, rtt_ms: 5 } };
  if (kind === 'audit') return { seq, kind, created_at: at(seq), payload: { actor: 'op', action: `a-${seq}`, resource: 'x', result: 'success', at: at(seq) } };
  return {
    seq, kind, created_at: at(seq), payload: {
      aggregates: [
        { device_id: `dev-${seq % 4}`, metric: 'temp', site_id: 'site-1', bucket: minuteOf(seq * 7), points: 2, sum: seq + 0.25, min: seq / 8, max: seq * 1.5, last_status: `s${seq}` },
        // No values (min and max null), a status left out (online), an aggregate the master skips (no points).
        { device_id: `dev-${seq % 3}`, metric: 'hum', bucket: minuteOf(seq * 7), points: 1, sum: 0, min: null, max: null },
        { device_id: 'dev-x', metric: 'temp', bucket: minuteOf(0), points: 0, sum: 9, min: 9, max: 9 },
      ],
    },
  };
};
const events = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => eventOf(from + i));
/** A push's events as a box with columns sends them: telemetry as columns, the rest as events. */
const columnsOf = (list: Pushed[]) => ({ events: list.filter((e) => e.kind !== 'telemetry'), telemetry: toColumns(list.filter((e) => e.kind === 'telemetry')) });

describe.each(DIALECTS)('telemetry events as columns (master on %s)', (dialect) => {
  let env: TestEnv;
  let master: RunningServer;
  let fleet: Client;
  const sites: Record<string, Client> = {};

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    fleet = await clientAs(env, master);
    // A tenant each: alarms are the tenant's (one row per alarm id).
    for (const s of ['objects', 'columns', 'again']) {
      const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: s, site_id: s, industry_code: 'poultry' });
      sites[s] = await siteClient(master.url, reg.body.item.credential, fleet.contract);
    }
  });
  afterAll(async () => {
    await env.cleanup();
  });

  const push = async (site: string, body: Record<string, unknown>) => sites[site]!.post('/api/v1/site-sync/commands/push', { remaining: 0, ...body });
  const taken = async (site: string, body: Record<string, unknown>) => {
    const res = await push(site, body);
    expect(res.status).toBe(200);
    return res.body.item as { applied_seq: number; accepted: number; duplicates: number };
  };
  /** What the master holds of a site: its telemetry minutes, roll-ups, inbox seqs, alarms, heartbeats and counters. */
  const held = async (site: string) => {
    const rows = async (q: ReturnType<typeof sql>) => master.services.db.rows<Record<string, unknown>>(q);
    const telemetry = (await rows(sql`select device_id, metric, bucket, points, sum, min, max, last_status from sync_telemetry where site_id = ${site} order by device_id, metric, bucket`))
      .map((r) => ({ device_id: r.device_id, metric: r.metric, bucket: r.bucket, last_status: r.last_status, points: Number(r.points), sum: Number(r.sum), min: r.min === null ? null : Number(r.min), max: r.max === null ? null : Number(r.max) }));
    const rollups = (await rows(sql`select grain, bucket, heartbeats, telemetry_points, telemetry_rows from sync_rollups where site_id = ${site} order by grain, bucket`))
      .map((r) => ({ grain: r.grain, bucket: r.bucket, heartbeats: Number(r.heartbeats), points: Number(r.telemetry_points), rows: Number(r.telemetry_rows) }));
    const inbox = (await rows(sql`select seq from sync_inbox where site_id = ${site} order by seq`)).map((r) => Number(r.seq));
    const alarms = (await rows(sql`select alarm_id from sync_alarms where site_id = ${site} order by alarm_id`)).map((r) => r.alarm_id);
    const beats = (await rows(sql`select seq from sync_heartbeats where site_id = ${site} order by seq`)).map((r) => Number(r.seq));
    const [s] = await rows(sql`select applied_seq, events_received from sync_sites where site_id = ${site}`);
    return { telemetry, rollups, inbox, alarms, beats, applied_seq: Number(s!.applied_seq), events_received: Number(s!.events_received) };
  };

  it('says it takes columns, and leaves the same rows from columns as from objects', async () => {
    expect((await sites.columns!.post('/api/v1/site-sync/commands/pull', { remaining: 0 })).body.item.telemetry_columns).toBe(true);
    // Two pushes each (the second adds to minutes the first wrote).
    expect(await taken('objects', { events: events(1, 40) })).toEqual({ applied_seq: 40, accepted: 40, duplicates: 0, mode: 'auto' });
    expect(await taken('objects', { events: events(41, 90) })).toMatchObject({ applied_seq: 90, accepted: 50 });
    const one = columnsOf(events(1, 40));
    expect(one.telemetry.seq.length).toBeGreaterThan(20);
    expect(await taken('columns', one)).toEqual({ applied_seq: 40, accepted: 40, duplicates: 0, mode: 'auto' });
    expect(await taken('columns', columnsOf(events(41, 90)))).toMatchObject({ applied_seq: 90, accepted: 50 });
    const objects = await held('objects');
    expect(objects.telemetry.length).toBeGreaterThan(10);
    expect(objects.telemetry.some((r) => r.min === null && r.last_status === 'online')).toBe(true);
    expect(objects.telemetry.some((r) => r.device_id === 'dev-x')).toBe(false);
    expect(objects.inbox.length).toBeGreaterThan(10);
    expect(await held('columns')).toEqual(objects);
    // A push of telemetry alone, and one of no telemetry: events may be empty, columns too.
    expect(await taken('columns', { events: [], telemetry: toColumns([eventOf(91), eventOf(92)]) })).toMatchObject({ applied_seq: 92, accepted: 2 });
    expect(await taken('columns', { events: [eventOf(95)], telemetry: toColumns([]) })).toMatchObject({ applied_seq: 95, accepted: 1 });
  });

  it('takes a columns push once: sent again it adds nothing, sent again in part it takes only what is new', async () => {
    expect(await taken('again', columnsOf(events(1, 30)))).toMatchObject({ applied_seq: 30, accepted: 30, duplicates: 0 });
    const first = await held('again');
    expect(await taken('again', columnsOf(events(1, 30)))).toEqual({ applied_seq: 30, accepted: 0, duplicates: 30, mode: 'auto' });
    expect(await held('again')).toEqual(first);
    // 21..45: 21..30 applied, 31..45 new (statement by statement on PostgreSQL too).
    expect(await taken('again', columnsOf(events(21, 45)))).toEqual({ applied_seq: 45, accepted: 15, duplicates: 10, mode: 'auto' });
    await taken('objects', { events: events(96, 100) });
    const parts = await held('again');
    // The same rows as the object form's 1..45 on a site of their own.
    const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'check', site_id: 'check', industry_code: 'poultry' });
    sites.check = await siteClient(master.url, reg.body.item.credential, fleet.contract);
    await taken('check', { events: events(1, 45) });
    expect(parts).toEqual(await held('check'));
    // A push after one not applied yet takes nothing, in columns as in objects.
    expect(await taken('again', { ...columnsOf(events(50, 55)), after: 49 })).toEqual({ applied_seq: 45, accepted: 0, duplicates: 0, mode: 'auto' });
    expect(await taken('again', { ...columnsOf(events(46, 49)), after: 45 })).toMatchObject({ applied_seq: 49, accepted: 4 });
    expect(await taken('again', { ...columnsOf(events(50, 55)), after: 49 })).toMatchObject({ applied_seq: 55, accepted: 6 });
  });

  it('refuses a seq twice and columns that do not add up, with 400, storing nothing', async () => {
    const before = await held('again');
    const good = columnsOf(events(56, 70));
    const t = good.telemetry;
    const refused = async (body: Record<string, unknown>, field: string) => {
      const res = await push('again', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      // The field, or the check's words in the message (a check over several fields).
      expect(JSON.stringify(res.body.error)).toContain(field);
    };
    // A seq in both parts, a seq twice in the columns, columns out of order.
    await refused({ events: [...good.events, { ...eventOf(t.seq[0]!), kind: 'audit', payload: {} }], telemetry: t }, 'each seq at most once');
    await refused({ events: good.events, telemetry: { ...t, seq: [t.seq[0], ...t.seq.slice(0, -1)] } }, 'seqs strictly increasing');
    await refused({ events: good.events, telemetry: { ...t, seq: [...t.seq].reverse() } }, 'seqs strictly increasing');
    // Telemetry in both forms in one push.
    await refused({ events: [...good.events, eventOf(71)], telemetry: t }, 'not both');
    // Columns that do not add up: a count too many, an index past the strings, a value that is not a number.
    await refused({ events: good.events, telemetry: { ...t, count: t.count.map((n, i) => (i === 0 ? n + 1 : n)) } }, 'as long as the counts');
    await refused({ events: good.events, telemetry: { ...t, device: t.device.map((d, i) => (i === 0 ? t.strings.length : d)) } }, 'indexes into strings');
    await refused({ events: good.events, telemetry: { ...t, sum: t.sum.map((s, i) => (i === 0 ? 'x' : s)) } }, 'finite numbers');
    await refused({ events: good.events, telemetry: { ...t, extra: [] } }, 'extra');
    expect(await held('again')).toEqual(before);
    // The master names an unknown field as an older master names `telemetry` (the box's fallback reads it).
    const unknown = await push('again', { events: [], bogus: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toContainEqual(expect.objectContaining({ field: 'bogus', reason: 'unknown_field' }));
    expect(await taken('again', good)).toMatchObject({ applied_seq: 70, accepted: 15 });
  });

  it('refuses a columns push while paused', async () => {
    await fleet.post('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'again', mode: 'paused' });
    const res = await push('again', { events: [], telemetry: toColumns([eventOf(71), eventOf(72)]) });
    expect(res.status).toBe(409);
    await fleet.post('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'again', mode: 'auto' });
    expect((await held('again')).applied_seq).toBe(70);
  });
});

/**
 * A proxy in front of the master recording the site's pushes. `old`: pull answers without
 * telemetry_columns (an older master's); `refuse`: a push with telemetry columns is answered 400
 * unknown_field on telemetry, as an older master's validation answers it, without reaching the master.
 */
function proxyOf(target: () => string, opts: { old?: boolean; refuse?: boolean }) {
  const log = { pushes: [] as { columns: boolean; telemetryInEvents: number; seqs: number[]; status?: number }[] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const parsed = req.url === '/api/v1/site-sync/commands/push' ? (JSON.parse(body.toString()) as { events: Pushed[]; telemetry?: { seq: number[] } }) : undefined;
      const entry = parsed && (parsed.events.length || parsed.telemetry?.seq.length)
        ? { columns: parsed.telemetry !== undefined, telemetryInEvents: parsed.events.filter((e) => e.kind === 'telemetry').length, seqs: [...parsed.events.map((e) => e.seq), ...(parsed.telemetry?.seq ?? [])].sort((a, b) => a - b) } as (typeof log.pushes)[number]
        : undefined;
      if (entry) log.pushes.push(entry);
      if (opts.refuse && parsed?.telemetry) {
        if (entry) entry.status = 400;
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'validation_error', message: 'request body is invalid', details: [{ field: 'telemetry', reason: 'unknown_field' }] } }));
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
      fetch(`${target()}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : body }).then(async (r) => {
        let bytes = Buffer.from(await r.arrayBuffer());
        if (entry) entry.status = r.status;
        if (opts.old && req.url === '/api/v1/site-sync/commands/pull' && r.status === 200) {
          const doc = JSON.parse(bytes.toString()) as { item: Record<string, unknown> };
          delete doc.item.telemetry_columns;
          bytes = Buffer.from(JSON.stringify(doc));
        }
        const out: Record<string, string> = { 'content-type': r.headers.get('content-type') ?? 'application/json' };
        const cookie = r.headers.get('set-cookie');
        if (cookie) out['set-cookie'] = cookie;
        res.writeHead(r.status, out).end(bytes);
      }, () => res.writeHead(502).end());
    });
  });
  return { server, log };
}

describe.each(DIALECTS)('a box pushes telemetry as columns when the master takes them (master on %s)', (dialect) => {
  let masterEnv: TestEnv;
  let master: RunningServer;
  let fleet: Client;
  const started: { env: TestEnv; proxy: Server }[] = [];

  beforeAll(async () => {
    masterEnv = await createTestEnv(dialect);
    master = await masterEnv.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    fleet = await clientAs(masterEnv, master);
  });
  afterAll(async () => {
    for (const s of started) {
      await s.env.cleanup();
      s.proxy.close();
    }
    await masterEnv.cleanup();
  });

  /** A box (SQLite) syncing through a proxy; 80 events wait in its outbox while its tenant is paused, then it catches up. */
  async function catchUp(tenant: string, opts: Parameters<typeof proxyOf>[1]) {
    const { server: proxy, log } = proxyOf(() => master.url, opts);
    const { last, telemetry } = await catchUpThrough({ fleet, master, tenant, proxy, queued: events(1, 80), batchMax: 10, started });
    const q = async (text: ReturnType<typeof sql>) => master.services.db.rows<Record<string, unknown>>(text);
    // Every event once: the inbox holds the seqs of every kind but telemetry, the minutes every point.
    expect((await q(sql`select seq from sync_inbox where tenant_id = ${tenant} order by seq`)).map((r) => Number(r.seq)))
      .toEqual(Array.from({ length: last }, (_, i) => i + 1).filter((seq) => !telemetry.has(seq)));
    const [sum] = await q(sql`select sum(points) as p, count(*) as n from sync_telemetry where tenant_id = ${tenant}`);
    expect(Number(sum!.p)).toBe(3 * telemetry.size);
    const [site] = await q(sql`select events_received from sync_sites where tenant_id = ${tenant}`);
    // Events the box added itself (its heartbeat) come on top of the 80.
    expect(Number(site!.events_received)).toBeGreaterThanOrEqual(80);
    // The last answers may still be on their way back through the proxy.
    await waitFor('every push answered', async () => (log.pushes.every((p) => p.status !== undefined) ? true : undefined));
    return { log, pushes: log.pushes.filter((p) => p.seqs[0]! <= last) };
  }

  it('sends telemetry events as columns to a master that takes them', async () => {
    const { pushes } = await catchUp('farm-c', {});
    expect(pushes.length).toBeGreaterThanOrEqual(8);
    expect(pushes.every((p) => p.columns && p.telemetryInEvents === 0 && p.status === 200)).toBe(true);
  });

  it('sends them as objects to a master whose pull answer does not say telemetry_columns', async () => {
    const { pushes } = await catchUp('farm-o', { old: true });
    expect(pushes.length).toBeGreaterThanOrEqual(8);
    expect(pushes.every((p) => !p.columns && p.status === 200)).toBe(true);
    expect(pushes.some((p) => p.telemetryInEvents > 0)).toBe(true);
  });

  it('falls back to objects when the master refuses the columns as an unknown field', async () => {
    const { pushes } = await catchUp('farm-f', { refuse: true });
    // The first pushes were columns, refused (nothing of them taken: the box sends its next batch
    // before the answer, so two may go); every push after them was objects, and taken.
    const refused = pushes.findIndex((p) => !p.columns);
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(2);
    expect(pushes.slice(0, refused).every((p) => p.columns && p.status === 400)).toBe(true);
    expect(pushes.slice(refused).length).toBeGreaterThanOrEqual(8);
    expect(pushes.slice(refused).every((p) => !p.columns && p.status === 200)).toBe(true);
  });
});
