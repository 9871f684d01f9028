import { col, defineTable } from '../../db/table.js';
import { defineRecord } from '../../kernel/record.js';

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

/** The task record, declared once: its fields give the table, the UI scheme, the filters and the row type. */
export const taskRecord = defineRecord('tasks', {
  id: { type: 'string', label: 'ID', description: 'Given at create, or generated (UUID).' },
  tenant_id: { type: 'string', label: 'Tenant', nullable: true, readOnly: true, filter: { description: 'Master callers only; a tenant caller always sees its own tenant.' } },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  title: { type: 'string', label: 'Title', required: true, sortable: true, searchable: true },
  description: { type: 'string', label: 'Description', nullable: true, searchable: true },
  priority: { type: 'string', label: 'Priority', enum: PRIORITIES, filter: true, sortable: true },
  status: { type: 'string', label: 'State', enum: TASK_STATES, readOnly: true, sortable: true },
  state: { type: 'string', label: 'State', description: 'The same value as status (the contract names the filter state).', enum: TASK_STATES, readOnly: true, ui: { hidden: true }, column: false },
  scope: { type: 'string', label: 'Scope', enum: TASK_SCOPES, readOnly: true, filter: true },
  assignee: { type: 'string', label: 'Assignee', nullable: true, filter: true, sortable: true, searchable: true },
  sla_minutes: { type: 'integer', label: 'SLA (minutes)', nullable: true },
  due_at: { type: 'datetime', label: 'Due', nullable: true, readOnly: true, description: 'created_at + sla_minutes.', column: false },
  overdue: { type: 'boolean', label: 'Overdue', readOnly: true, description: 'Not done or canceled, and past due_at (computed when read).', column: false },
  created_by: { type: 'string', label: 'Created by', readOnly: true },
  created_at: { type: 'datetime', label: 'Created', readOnly: true, sortable: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
}, {
  indexes: [
    { name: 'tasks_tenant_created', columns: ['tenant_id', 'created_at'] },
    { name: 'tasks_status', columns: ['status'] },
  ],
});

export const tasks = taskRecord.table;
export type TaskRow = typeof taskRecord.row;
