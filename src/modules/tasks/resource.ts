// tasks/scheme|list, POST tasks, tasks/{id} with its history, tasks/commands/transition.
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { and, asc, eq } from 'drizzle-orm';
import { command, defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import type { AnyRoute, HandlerContext } from '../../kernel/route.js';
import type { Services } from '../../kernel/context.js';
import { timeId } from '../../kernel/ids.js';
import { colOf, tableOf } from '../../db/sql.js';
import { MOVES, PRIORITIES, TASK_STATES, taskHistory, taskRecord, tasks, type HistoryRow, type TaskRow } from './schema.js';
import { ownerTenant } from '../../kernel/tenancy.js';

const short = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));
const FINAL = new Set(['done', 'canceled']);

/** Overdue: still open (not done or canceled) and older than its SLA. */
export const isOverdue = (row: TaskRow, now = Date.now()) =>
  row.sla_minutes !== null && !FINAL.has(row.status) && now > Date.parse(row.created_at) + Number(row.sla_minutes) * 60_000;

const toItem = (row: TaskRow) => {
  const due = row.sla_minutes === null ? null : new Date(Date.parse(row.created_at) + Number(row.sla_minutes) * 60_000).toISOString();
  return { ...row, state: row.status, sla_minutes: row.sla_minutes === null ? null : Number(row.sla_minutes), due_at: due, overdue: isOverdue(row) };
};

const createBody = v.object({
  item: v.strictObject({
    id: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/))),
    title: short(500),
    description: v.optional(v.pipe(v.string(), v.maxLength(4000))),
    priority: v.optional(v.picklist(PRIORITIES)),
    assignee: v.optional(short(200)),
    sla_minutes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(525_600))),
    site_id: v.optional(short(200)),
    tenant_id: v.optional(short(200)),
  }),
});

const transitionBody = v.strictObject({
  id: short(200),
  to_state: v.picklist(TASK_STATES),
  comment: v.optional(v.pipe(v.string(), v.maxLength(2000))),
});

const historyItem = {
  type: 'object', required: ['from_state', 'to_state', 'changed_by', 'changed_at', 'comment'],
  properties: {
    from_state: { enum: [...TASK_STATES] }, to_state: { enum: [...TASK_STATES] }, changed_by: { type: 'string' },
    changed_at: { type: 'string', format: 'date-time' }, comment: { type: ['string', 'null'] },
  },
};

async function historyOf(services: Services, taskId: string): Promise<Omit<HistoryRow, 'tenant_id' | 'task_id'>[]> {
  const { db } = services;
  const c = (n: string) => colOf(taskHistory, db, n);
  const rows = (await db.orm.select().from(tableOf(taskHistory, db)).where(eq(c('task_id'), taskId)).orderBy(asc(c('changed_at')), asc(c('id')))) as HistoryRow[];
  return rows.map(({ id, from_state, to_state, changed_by, changed_at, comment }) => ({ id, from_state, to_state, changed_by, changed_at, comment }));
}

export const taskResource = defineResource<TaskRow, v.InferOutput<typeof createBody>>({
  name: 'tasks',
  module: 'tasks',
  title: 'Tasks',
  record: taskRecord,
  access: { resource: 'tasks', scope: 'any' },
  tenantColumn: 'tenant_id',
  filters: { state: { type: 'string', enum: TASK_STATES, column: 'status' } },
  defaultSort: { field: 'created_at', order: 'desc' },
  toItem,
  create: {
    body: createBody,
    toRow: (body, ctx) => {
      const i = body.item;
      const caller = ctx.caller!;
      const now = new Date().toISOString();
      const tenant = ownerTenant(caller, i.tenant_id);
      const site = i.site_id ?? caller.site_id ?? null;
      return {
        id: i.id ?? randomUUID(), tenant_id: tenant, site_id: site, title: i.title, description: i.description ?? null,
        priority: i.priority ?? 'normal', status: 'planned', scope: site ? 'site' : tenant ? 'tenant' : 'master',
        assignee: i.assignee ?? null, sla_minutes: i.sla_minutes ?? null, created_by: caller.subject, created_at: now, updated_at: now,
      };
    },
  },
  commands: {
    transition: command({
      summary: 'Move a task to another state (see the move matrix); appends a history entry',
      action: 'transition',
      body: transitionBody,
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const { services, caller } = ctx;
        const { db } = services;
        const current = (await kit.load(ctx as HandlerContext<unknown>, b.id)) as TaskRow;
        const allowed = MOVES[current.status] ?? [];
        if (!allowed.includes(b.to_state)) {
          throw new ApiError('lifecycle_conflict', `task ${b.id} cannot move from ${current.status} to ${b.to_state} (allowed from ${current.status}: ${allowed.join(', ') || 'none, it is final'})`, [{ field: 'to_state', reason: 'move_not_allowed' }]);
        }
        const now = new Date().toISOString();
        const t = tableOf(tasks, db);
        const c = (n: string) => colOf(tasks, db, n);
        const saved = await db.transaction(async () => {
          // Conditional on the state read above: a concurrent move makes this one a conflict.
          const rows = (await db.orm.update(t).set({ status: b.to_state, updated_at: now } as never)
            .where(and(eq(c('id'), current.id), eq(c('status'), current.status))).returning()) as TaskRow[];
          if (!rows[0]) return undefined;
          await db.orm.insert(tableOf(taskHistory, db)).values({
            id: timeId(), task_id: current.id, tenant_id: current.tenant_id, from_state: current.status, to_state: b.to_state,
            changed_by: caller!.subject, changed_at: now, comment: b.comment ?? null,
          } as never);
          return rows[0];
        });
        if (!saved) throw new ApiError('lifecycle_conflict', `task ${b.id} was moved by someone else meanwhile; reload it`, [{ field: 'id', reason: 'concurrent_move' }]);
        await services.audit.record({ actor: caller!.subject, action: 'task.transition', resource: 'tasks', result: 'success', correlation_id: ctx.requestId, details: { id: saved.id, from_state: current.status, to_state: b.to_state }, tenant_id: saved.tenant_id });
        return { ...toItem(saved), history: await historyOf(services, saved.id) };
      },
    }),
  },
});

const withHistory = (schema: Record<string, unknown>) => {
  const s = schema as { properties: Record<string, unknown>; required: string[] };
  return { ...s, properties: { ...s.properties, history: { type: 'array', items: historyItem } }, required: [...s.required, 'history'] };
};

// GET tasks/{id} and the transition answer carry the task's history, oldest move first.
export const taskRoutes: AnyRoute[] = taskResource.routes.map((r) => {
  if (r.method === 'get' && r.path === '/api/v1/tasks/{id}' && r.response.kind === 'single') {
    return {
      ...r, summary: 'One task with its transition history',
      response: { kind: 'single', item: withHistory(r.response.item) },
      handler: async (ctx) => {
        const row = await taskResource.kit.load(ctx, ctx.params.id as string);
        return { ...toItem(row), history: await historyOf(ctx.services, row.id) };
      },
    } satisfies AnyRoute;
  }
  if (r.path === '/api/v1/tasks/commands/transition' && r.response.kind === 'single') {
    return { ...r, response: { kind: 'single', item: withHistory(r.response.item) } } satisfies AnyRoute;
  }
  return r;
});
