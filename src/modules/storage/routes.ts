// The storage budget's routes: its report, and the admin command that runs retention and the
// budget at once (an operator freeing room; the tests drive time and thinning through it).
import { need } from '../../kernel/context.js';
import { defineRoute, type AnyRoute, type JsonSchema } from '../../kernel/route.js';

const TAGS = ['storage'];

const snapshotSchema: JsonSchema = {
  type: 'object',
  required: ['budget_bytes', 'used_bytes', 'live_bytes', 'percent', 'state', 'projection', 'tables', 'last_run'],
  properties: {
    budget_bytes: { type: 'integer', description: 'storage_budget_bytes.' },
    used_bytes: { type: 'integer', description: 'On disk: the SQLite file and its WAL, or pg_database_size.' },
    live_bytes: { type: 'integer', description: 'In use by data (SQLite pages minus free pages); what the budget is held to.' },
    free_bytes: { type: 'integer', description: 'SQLite free pages inside the file: the next rows take them (a file still in incremental auto-vacuum gives them back).' },
    percent: { type: 'number', description: 'live_bytes as a percentage of the budget.' },
    state: { type: 'string', enum: ['ok', 'warn', 'thinning'], description: 'warn from 85 %, thinning past 90 % (thinned down to 80 % at the next run).' },
    warning: { type: ['string', 'null'] },
    space_return: { type: 'string', enum: ['incremental', 'full', 'none', 'server'], description: 'SQLite auto_vacuum mode; server on PostgreSQL (its own VACUUM).' },
    projection: { type: 'object', description: 'bytes_per_day: growth of the data over the last runs (up to 7 days), what thinning removed added back; days_until_budget at that rate.' },
    tables: { type: 'array', items: { type: 'object' }, description: 'Per thinned table, in thinning order: configured, floor and effective retention in days, oldest row.' },
    last_run: { type: ['object', 'null'], description: 'The last run: rows purged by retention, rows thinned per table with the retention left, bytes given back, or skipped: clock_jump.' },
  },
};

export const storageRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/storage/usage', module: 'storage', tags: TAGS,
    summary: 'How much room the database takes against the storage budget, its growth, and what was thinned',
    description: 'The same object as `storage` in GET /api/v1/operability/runtime.',
    access: { resource: 'storage', action: 'read', scope: 'any' },
    response: { kind: 'single', item: snapshotSchema },
    handler: async ({ services }) => need(services, 'storage').snapshot(),
  }),
  defineRoute({
    method: 'post', path: '/api/v1/storage/commands/thin', module: 'storage', tags: TAGS,
    summary: 'Run retention and the storage budget now (admin; audited as storage.thin)',
    description: 'Purges every table by its configured retention (never past the retention before the table\'s own newest row), thins to the budget when the data passes 90 % of it (raw readings, minute roll-ups, status events, audit, hour roll-ups, alarms in the normal state; each down to its floor), and keeps the freed room in the file for the next rows (SQLite; a file still in incremental auto-vacuum gives it back to the file system). A run right after the wall clock moved by more than 5 minutes against the monotonic clock deletes nothing (`last_run.skipped: clock_jump`); the next run does. Runs are serialised: a command during a scheduled run waits for it. The answer is the usage after the run.',
    access: { resource: 'storage', action: 'thin', owner: 'installation' },
    idempotent: false,
    response: { kind: 'single', item: snapshotSchema },
    handler: async ({ services, caller, requestId }) => {
      const storage = need(services, 'storage');
      const run = await storage.run('command');
      await services.audit.record({
        actor: caller?.subject ?? 'unknown', action: 'storage.thin', resource: 'storage', result: 'success', correlation_id: requestId,
        tenant_id: caller?.tenant_id ?? null,
        details: { purged: run.purged, thinned: run.thinned, returned_bytes: run.returned_bytes, skipped: run.skipped, live_bytes_after: run.live_bytes_after },
      });
      return storage.snapshot();
    },
  }),
];
