import { defineModule, grant } from '../../kernel/module.js';
import { taskRoutes } from './resource.js';
import { taskHistory, tasks } from './schema.js';

export default defineModule({
  id: 'tasks',
  name: 'Tasks',
  description: 'Work items with a lifecycle (planned, in_progress, blocked, done, canceled), a move history, SLA minutes and an overdue flag.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'task',
  provides_enrichment_for: [],
  routes: taskRoutes,
  tables: [tasks, taskHistory],
  permissions: grant('tasks', { operator: ['read', 'create', 'transition'], admin: ['read', 'create', 'transition'], security: ['read'] }),
});
