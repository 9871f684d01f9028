// status/scheme|list|{id}, status/commands/publish, and GET status/stream, which is the
// WebSocket endpoint (the upgrade is served by src/modules/status/stream.ts; a plain GET is
// answered 426 upgrade_required so the endpoint is documented and guarded like any route).
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import type { StatusEvent } from '../../realtime/bus.js';
import { statusEvents, statusRecord, STATUS_VALUES } from './schema.js';
import { ownerTenant } from '../../kernel/tenancy.js';
import { need } from '../../kernel/context.js';

const short = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));

const publishBody = v.strictObject({
  source: short(200),
  event: short(200),
  status: v.picklist(STATUS_VALUES),
  site_id: v.optional(short(200)),
  tenant_id: v.optional(short(200)),
  correlation_id: v.optional(short(200)),
  details: v.optional(v.record(v.string(), v.unknown())),
});

export const statusFields = statusRecord.fields;

export const statusResource = defineResource<StatusEvent & Record<string, unknown>>({
  name: 'status',
  module: 'status',
  title: 'Status events',
  table: statusEvents,
  access: { resource: 'status', scope: 'any' },
  tenantColumn: 'tenant_id',
  fields: statusFields,
  filters: {
    // The polling form of the stream's catch-up, for clients without a WebSocket.
    since: { type: 'integer', min: 0, column: 'id', op: 'gt', defaultOrder: 'asc', description: 'Only events with an id greater than this (the stream\'s last id), oldest first unless sort/order say otherwise: poll with the last id seen.' },
  },
  defaultSort: { field: 'id', order: 'desc' },
  toItem: (row) => ({ ...row, id: Number(row.id) }),
  commands: {
    publish: command({
      summary: 'Store a status event and deliver it to the WebSocket stream and MQTT',
      action: 'publish',
      body: publishBody,
      status: 201,
      handler: async (ctx) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        const tenant = ownerTenant(caller, b.tenant_id);
        const saved = await need(ctx.services, 'status').publish({ ...b, tenant_id: tenant, site_id: b.site_id ?? caller.site_id ?? null });
        await ctx.services.audit.record({ actor: caller.subject, action: 'status.publish', resource: 'status', result: 'success', correlation_id: saved.correlation_id ?? ctx.requestId, details: { id: saved.id, event: saved.event, status: saved.status }, tenant_id: tenant });
        return saved;
      },
    }),
  },
});

export const streamRoute: AnyRoute = defineRoute({
  method: 'get', path: '/api/v1/status/stream', module: 'status', tags: ['status'],
  summary: 'Live status events over WebSocket (catch-up with ?since=<last id>)',
  description: [
    'WebSocket upgrade. Authenticate with the `cabinet_session` cookie, `Authorization: Bearer <token>`, or `?access_token=<token>` (browsers cannot set headers on a WebSocket; accepted over TLS or from loopback only, else 403 https_required). On the plain HTTP port only loopback is taken while HTTPS listens (403 https_required, naming the wss:// address); an upgrade a browser opens from a page of another origin is 403 cross_site_request.',
    'Server messages (JSON text frames): `{"type":"event","data":<status event>}`; `{"type":"ready","last_id":N,"replayed":K}` once the catch-up is sent (events before it are replayed, after it live);',
    '`{"type":"heartbeat","timestamp":"...","last_id":N}` every status_heartbeat_ms (plus a ping frame; a client that answers no ping for two periods is dropped).',
    'Client messages: `{"type":"ping"}` is answered `{"type":"pong"}`; nothing else is needed.',
    'Catch-up: `?since=N` first sends every stored event with id > N (oldest first), then live events, each exactly once. Without `since` only live events are sent.',
    'Close codes: 1001 server stopping, 1008 session no longer valid, 1013 client too slow (reconnect with since=<last id>).',
    'A plain GET without an upgrade is answered 426 upgrade_required.',
  ].join(' '),
  access: { resource: 'status', action: 'read', scope: 'any' },
  query: {
    since: { type: 'integer', min: 0, description: 'Replay stored events with a greater id before the live ones.' },
    site_id: { type: 'string', description: 'Only events of this site (a site-bound session always gets only its site).' },
    access_token: { type: 'string', description: 'Session token, for clients that cannot send a header or cookie: over TLS (wss://) or from loopback only.' },
  },
  errors: ['upgrade_required'],
  response: { kind: 'raw', contentType: 'application/json', description: 'Switching Protocols (101) on a WebSocket upgrade' },
  handler: async () => {
    throw new ApiError('upgrade_required', 'GET /api/v1/status/stream is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket)');
  },
});

export const statusRoutes: AnyRoute[] = [streamRoute, ...statusResource.routes];
