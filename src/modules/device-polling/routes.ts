// GET device-polling/list: the polled controllers with their link state (the poller's snapshot
// joined to the adapter profiles), scoped like every list: a tenant caller sees its tenant, a
// session bound to a site that site only; a master caller may filter by tenant_id.
import type { AnyRoute } from '../../kernel/route.js';
import { defineRoute } from '../../kernel/route.js';
import { need } from '../../kernel/context.js';
import { pageItems } from '../../kernel/query.js';

const str = { type: 'string' };
const nstr = { type: ['string', 'null'] };
const deviceItem = {
  type: 'object',
  required: ['device_id', 'industry', 'tenant_id', 'site_id', 'unit_id', 'controller_id', 'transport', 'period_ms', 'bus', 'state', 'reason', 'misses', 'last_ok_at', 'last_message', 'lost_since'],
  properties: {
    device_id: { type: 'string', description: '<industry>:<adapter profile id>' }, industry: { enum: ['poultry', 'swine', 'melioration'] }, tenant_id: str, site_id: nstr,
    unit_id: { type: 'string', description: 'The house or room.' }, controller_id: str, transport: { enum: ['modbus-tcp', 'modbus-rtu', 'bacnet'] }, period_ms: { type: 'integer' },
    bus: { type: 'string', description: 'The bus the poller reads it on; empty before the first poll.' },
    state: { enum: ['unknown', 'ok', 'lost'], description: 'unknown until the first poll (or while no poller runs); lost while its serial bus is lost too.' },
    reason: { enum: ['bus_lost', 'no_answer', null], description: 'Why it is lost: bus_lost while its RS-485 adapter (the bus) is gone and the bus alarm is open (last_message names the bus); no_answer when the controller itself missed loss_after_misses polls; null otherwise.' },
    misses: { type: 'integer' }, last_ok_at: { type: ['string', 'null'], format: 'date-time' }, last_message: nstr,
    lost_since: { type: ['string', 'null'], format: 'date-time', description: 'While lost: when the poller found it lost (after its missed polls), or when its bus was lost; null otherwise.' },
  },
};

export const devicePollingRoutes: AnyRoute[] = [defineRoute({
  method: 'get', path: '/api/v1/device-polling/list', module: 'device-polling', tags: ['device-polling'],
  summary: 'The controllers the box polls (from the poultry and swine adapter profiles that declare readings or read-back setpoints) with their link state: ok, lost (after loss_after_misses missed polls, or while their serial bus is lost; a comm_loss alarm is open) or unknown.',
  access: { resource: 'device-polling', action: 'read', scope: 'tenant' },
  query: {
    tenant_id: { type: 'string', description: 'Master callers: only this tenant.' },
    industry: { type: 'string', enum: ['poultry', 'swine'] },
    unit_id: { type: 'string', description: 'Only this house or room.' },
    state: { type: 'string', enum: ['unknown', 'ok', 'lost'] },
    limit: { type: 'integer', min: 1, max: 500, default: 100 },
    offset: { type: 'integer', min: 0, default: 0 },
  },
  response: { kind: 'list', item: deviceItem },
  handler: async ({ services, caller, query }) => {
    const tenant = caller?.scope_type === 'tenant' ? caller.tenant_id : (query.tenant_id as string | undefined);
    const site = caller?.scope_type === 'tenant' ? caller.site_id : undefined;
    const items = need(services, 'devicePolling').list().filter((d) => (tenant === undefined || d.tenant_id === tenant) && (site === undefined || d.site_id === site)
      && (query.industry === undefined || d.industry === query.industry) && (query.unit_id === undefined || d.unit_id === query.unit_id) && (query.state === undefined || d.state === query.state));
    items.sort((a, b) => a.unit_id.localeCompare(b.unit_id) || a.controller_id.localeCompare(b.controller_id));
    return pageItems(items, query);
  },
})];
