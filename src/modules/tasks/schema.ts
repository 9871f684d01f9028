import { col, defineTable } from '../../db/table.js';

export const tasks = defineTable('tasks', {
  id: col.id(),
  tenant_id: col.text(),
  site_id: col.text(),
  title: col.text({ notNull: true }),
  description: col.text(),
  priority: col.text({ notNull: true }),
  status: col.text({ notNull: true }),
  scope: col.text({ notNull: true }),
  assignee: col.text(),
  sla_minutes: col.integer(),
  created_by: col.text({ notNull: true }),
  created_at: col.timestamp({ notNull: true }),
  updated_at: col.timestamp({ notNull: true }),
}, {
  indexes: [
    { name: 'tasks_tenant_created', columns: ['tenant_id', 'created_at'] },
    { name: 'tasks_status', columns: ['status'] },
  ],
});

/** Every move of a task, appended in the same transaction as the move. */
export const taskHistory = defineTable('task_history', {
  id: col.id(),
  task_id: col.text({ notNull: true }),
  tenant_id: col.text(),
  from_state: col.text({ notNull: true }),
  to_state: col.text({ notNull: true }),
  changed_by: col.text({ notNull: true }),
  changed_at: col.timestamp({ notNull: true }),
  comment: col.text(),
}, { indexes: [{ name: 'task_history_task', columns: ['task_id', 'changed_at'] }] });

export const TASK_STATES = ['planned', 'in_progress', 'blocked', 'done', 'canceled'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const PRIORITIES = ['low', 'normal', 'high', 'critical'] as const;
export const TASK_SCOPES = ['site', 'tenant', 'master'] as const;

/**
 * The lifecycle policy: the moves a task may make. done and canceled are final; a move to the
 * state the task is already in is not a move (409 like any other refused move).
 */
export const MOVES: Record<TaskState, readonly TaskState[]> = {
  planned: ['in_progress', 'blocked', 'canceled'],
  in_progress: ['planned', 'blocked', 'done', 'canceled'],
  blocked: ['planned', 'in_progress', 'canceled'],
  done: [],
  canceled: [],
};

export interface TaskRow extends Record<string, unknown> {
  id: string;
  tenant_id: string | null;
  site_id: string | null;
  title: string;
  description: string | null;
  priority: (typeof PRIORITIES)[number];
  status: TaskState;
  scope: (typeof TASK_SCOPES)[number];
  assignee: string | null;
  sla_minutes: number | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface HistoryRow extends Record<string, unknown> {
  id: string;
  task_id: string;
  tenant_id: string | null;
  from_state: TaskState;
  to_state: TaskState;
  changed_by: string;
  changed_at: string;
  comment: string | null;
}
