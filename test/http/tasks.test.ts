// Tasks: create, the move matrix (every allowed and refused move), history, SLA and overdue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { MOVES, TASK_STATES } from '../../src/modules/tasks/schema.js';

describe.each(DIALECTS)('tasks (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let opA: Client;
  let opB: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off' });
    master = await clientAs(env, server);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opB = await clientAs(env, server, { subject: 'op-b', role: 'operator', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  const create = async (api: Client, item: Record<string, unknown> = {}) => {
    const res = await api.post('/api/v1/tasks', { item: { title: 'Check ventilation', ...item } });
    expect(res.status).toBe(201);
    return res.body.item;
  };

  /** Walks a fresh task into `state` by allowed moves. */
  const taskIn = async (state: string) => {
    const t = await create(opA, { title: `task in ${state}` });
    const path: Record<string, string[]> = { planned: [], in_progress: ['in_progress'], blocked: ['blocked'], done: ['in_progress', 'done'], canceled: ['canceled'] };
    for (const to of path[state]!) expect((await opA.post('/api/v1/tasks/commands/transition', { id: t.id, to_state: to })).status).toBe(200);
    return t.id as string;
  };

  it('creates a planned task in the caller\'s tenant, with defaults', async () => {
    const t = await create(opA, { priority: 'high', assignee: 'ivan', sla_minutes: 30 });
    expect(t).toMatchObject({ tenant_id: 'tA', status: 'planned', state: 'planned', priority: 'high', assignee: 'ivan', sla_minutes: 30, overdue: false, created_by: 'op-a', scope: 'tenant' });
    expect(Date.parse(t.due_at) - Date.parse(t.created_at)).toBe(30 * 60_000);
    const read = await opA.get(`/api/v1/tasks/${t.id}`);
    expect(read.body.item.history).toEqual([]);
    expect((await opB.get(`/api/v1/tasks/${t.id}`)).status).toBe(404);
    expect((await opA.post('/api/v1/tasks', { item: { priority: 'high' } })).status).toBe(400);
    expect((await opA.post('/api/v1/tasks', { item: { title: 'x', sla_minutes: 0 } })).status).toBe(400);
  });

  it.each(TASK_STATES.flatMap((from) => TASK_STATES.map((to) => [from, to] as const)))('move %s -> %s follows the matrix', async (from, to) => {
    const id = await taskIn(from);
    const before = (await opA.get(`/api/v1/tasks/${id}`)).body.item;
    const res = await opA.post('/api/v1/tasks/commands/transition', { id, to_state: to, comment: 'test move' });
    if (MOVES[from].includes(to)) {
      expect(res.status).toBe(200);
      expect(res.body.item.status).toBe(to);
      const last = res.body.item.history.at(-1);
      expect(last).toMatchObject({ from_state: from, to_state: to, changed_by: 'op-a', comment: 'test move' });
    } else {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('lifecycle_conflict');
      const after = (await opA.get(`/api/v1/tasks/${id}`)).body.item;
      expect(after).toEqual({ ...before, overdue: after.overdue });
    }
  });

  it('keeps the full history in order and lists with state, scope, assignee, q filters', async () => {
    const t = await create(opA, { title: 'Repair feeder line 2', assignee: 'olga', site_id: 'farm-9' });
    for (const [to, comment] of [['in_progress', 'started'], ['blocked', 'waiting for part'], ['in_progress', 'part arrived'], ['done', 'fixed']]) {
      expect((await opA.post('/api/v1/tasks/commands/transition', { id: t.id, to_state: to, comment })).status).toBe(200);
    }
    const history = (await opA.get(`/api/v1/tasks/${t.id}`)).body.item.history;
    expect(history.map((h: { from_state: string; to_state: string }) => `${h.from_state}>${h.to_state}`)).toEqual(['planned>in_progress', 'in_progress>blocked', 'blocked>in_progress', 'in_progress>done']);
    expect(history.map((h: { comment: string }) => h.comment)).toEqual(['started', 'waiting for part', 'part arrived', 'fixed']);
    expect(history.every((h: { changed_at: string }) => !Number.isNaN(Date.parse(h.changed_at)))).toBe(true);
    expect((await opA.get('/api/v1/tasks/list?state=done&assignee=olga')).body.items.map((i: { id: string }) => i.id)).toEqual([t.id]);
    expect((await opA.get('/api/v1/tasks/list?scope=site')).body.items.map((i: { id: string }) => i.id)).toContain(t.id);
    expect((await opA.get('/api/v1/tasks/list?q=feeder')).body.total).toBe(1);
    expect((await opB.get('/api/v1/tasks/list?q=feeder')).body.total).toBe(0);
    expect((await opA.get('/api/v1/tasks/list?state=open')).status).toBe(400);
  });

  it('refuses a move of a missing or foreign task with 404, and an unknown state with 400', async () => {
    const t = await create(opB);
    expect((await opA.post('/api/v1/tasks/commands/transition', { id: t.id, to_state: 'in_progress' })).status).toBe(404);
    expect((await opA.post('/api/v1/tasks/commands/transition', { id: 'nope', to_state: 'in_progress' })).status).toBe(404);
    expect((await opB.post('/api/v1/tasks/commands/transition', { id: t.id, to_state: 'started' })).status).toBe(400);
    expect((await opB.get(`/api/v1/tasks/${t.id}`)).body.item.status).toBe('planned');
  });

  it('computes overdue from created_at + sla_minutes for open tasks only', async () => {
    const late = await create(opA, { title: 'late one', sla_minutes: 5 });
    const finished = await create(opA, { title: 'late but done', sla_minutes: 5 });
    const noSla = await create(opA, { title: 'no sla' });
    const past = new Date(Date.now() - 10 * 60_000).toISOString();
    await server.services.db.run(sql`update tasks set created_at = ${past} where id in (${late.id}, ${finished.id}, ${noSla.id})`);
    await opA.post('/api/v1/tasks/commands/transition', { id: finished.id, to_state: 'canceled' });
    expect((await opA.get(`/api/v1/tasks/${late.id}`)).body.item.overdue).toBe(true);
    expect((await opA.get(`/api/v1/tasks/${finished.id}`)).body.item.overdue).toBe(false);
    expect((await opA.get(`/api/v1/tasks/${noSla.id}`)).body.item.overdue).toBe(false);
    const listed = (await opA.get('/api/v1/tasks/list?q=late')).body.items;
    expect(listed.find((i: { id: string }) => i.id === late.id).overdue).toBe(true);
  });

  it('two concurrent moves to the same state: one wins, the other is a conflict, one history entry', async () => {
    const t = await create(opA);
    const res = await Promise.all([opA.post('/api/v1/tasks/commands/transition', { id: t.id, to_state: 'in_progress' }), master.post('/api/v1/tasks/commands/transition', { id: t.id, to_state: 'in_progress' })]);
    expect(res.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await opA.get(`/api/v1/tasks/${t.id}`)).body.item.history).toHaveLength(1);
  });
});
