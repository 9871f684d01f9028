// auth/security-log: every login, logout, allow and deny, for admin and security roles.
import { defineResource } from '../../kernel/resource.js';
import { securityLog } from '../../auth/tables.js';
import type { SecurityLogRow } from '../../auth/security-log.js';
import { timeOfId } from '../../kernel/ids.js';

export const securityLogResource = defineResource<SecurityLogRow>({
  name: 'auth/security-log',
  module: 'auth',
  title: 'Security log',
  table: securityLog,
  access: { resource: 'security-log', scope: 'any' },
  tenantColumn: 'tenant_id',
  // The table is keyed by (at, id) with no index on the id (an index would be a fifth of each
  // entry's bytes on flash): an entry's time id says when it was made, and `at` is taken then.
  locate: (id) => {
    const ms = timeOfId(id);
    return ms === undefined ? undefined : [
      { column: 'at', op: 'gte', value: new Date(ms - 2000).toISOString() },
      { column: 'at', op: 'lte', value: new Date(ms + 1000).toISOString() },
    ];
  },
  fields: {
    id: { type: 'string', label: 'ID' },
    at: { type: 'datetime', label: 'When', description: 'When the request came (of a merged entry, the first: see count).' },
    category: { type: 'string', label: 'Category', enum: ['auth', 'access', 'session'] },
    result: { type: 'string', label: 'Result', enum: ['allow', 'deny'] },
    event: { type: 'string', label: 'Event' },
    method: { type: 'string', label: 'Method' },
    path: { type: 'string', label: 'Path' },
    tenant_id: { type: 'string', label: 'Tenant', nullable: true },
    subject: { type: 'string', label: 'Subject', nullable: true },
    role: { type: 'string', label: 'Role', nullable: true },
    client_address: { type: 'string', label: 'Client address', nullable: true },
    reason: { type: 'string', label: 'Reason', nullable: true },
    request_id: { type: 'string', label: 'Request id', nullable: true },
    route_context: { type: 'object', label: 'Route context' },
    count: {
      type: 'integer', label: 'Requests',
      description: 'How many requests the entry stands for. An allowed read (GET, HEAD) repeated within the minute it waited to be written (the same tenant, subject, role, client address, method, path and event) is merged into one entry: its id, at, request_id and route_context are the first request\'s, count says how many there were and last_at when the last came. Changes, refusals and authentication or session events are never merged: 1.',
    },
    last_at: { type: 'datetime', label: 'Last request', description: 'When the last request the entry stands for came: at when count is 1.' },
  },
  filters: {
    category: { type: 'string', enum: ['auth', 'access', 'session'] },
    result: { type: 'string', enum: ['allow', 'deny'] },
    event: { type: 'string' },
    method: { type: 'string', enum: ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] },
    path: { type: 'string' },
    tenant_id: { type: 'string' },
    subject: { type: 'string' },
  },
  sortable: ['at', 'category', 'result', 'event', 'path'],
  defaultSort: { field: 'at', order: 'desc' },
  search: ['path', 'subject', 'reason', 'event'],
  beforeRead: (ctx) => ctx.services.security.flush(),
  // last_at is stored only for a merged entry (a null costs no bytes on flash); shown always.
  toItem: (row) => ({ ...row, last_at: row.last_at ?? row.at }),
});
