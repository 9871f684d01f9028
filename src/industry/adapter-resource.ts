// The adapter profiles of an industry's controllers as a resource (poultry-adapters,
// swine-adapters): which controller holds which setpoint key, over which transport, at which
// register or BACnet object. Admins create (the contract's {item}), read and delete them; the
// setpoint dispatch (dispatch.ts) and the poller (polled-devices.ts) read them. One declaration
// for every industry. A create or delete tells the device-polling runtime (adapterChanged), which
// hands the poller the new set at once instead of finding it on a timer.
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { command, defineResource } from '../kernel/resource.js';
import { ownerSite, requiredTenant } from '../kernel/tenancy.js';
import type { AnyRoute } from '../kernel/route.js';
import { adapterBodySchema, adapterBodySchemaOf, type AdapterRow, type defineAdapterRecord, type ReadingKeySchema } from './dispatch.js';
import { adapterChanged, POLL_DEFAULTS } from './polled-devices.js';
import { readNow, readNowBody, readNowBodyOf, readNowResponse } from './read-now.js';
import { refuseOnMaster } from '../runtime/egress.js';

const createBody = v.strictObject({ item: adapterBodySchema });

/**
 * `readings`: the industry's reading keys and whether its devices hold setpoints; by default the
 * climate controllers' (poultry and swine: setpoints, climate reading keys).
 */
export function defineAdapterResource(o: { name: string; module: string; title: string; record: ReturnType<typeof defineAdapterRecord>; accessResource: string; readings?: { key: ReadingKeySchema; setpoints: boolean } }) {
  const body = (o.readings ? v.strictObject({ item: adapterBodySchemaOf(o.readings) }) : createBody) as typeof createBody;
  const resource = defineResource<AdapterRow, v.InferOutput<typeof createBody>>({
    name: o.name,
    module: o.module,
    title: o.title,
    record: o.record,
    access: { resource: o.accessResource, scope: 'tenant' },
    tenantColumn: 'tenant_id',
    siteColumn: 'site_id',
    defaultSort: { field: 'controller_id', order: 'asc' },
    create: {
      body,
      toRow: ({ item: b }, ctx) => {
        const now = new Date().toISOString();
        return {
          id: b.id ?? randomUUID(), tenant_id: requiredTenant(ctx.caller, b.tenant_id), site_id: ownerSite(ctx.caller, b.site_id), unit_id: b.unit_id,
          controller_id: b.controller_id, transport: b.transport, host: b.host ?? null, port: b.port ?? null, serial_path: b.serial_path ?? null,
          modbus_unit_id: b.modbus_unit_id ?? null, device_instance: b.device_instance ?? null, points: b.points,
          readings: b.readings ?? [], poll_period_s: b.poll_period_s ?? POLL_DEFAULTS.poll_period_s, loss_after_misses: b.loss_after_misses ?? POLL_DEFAULTS.loss_after_misses,
          comm_loss_priority: b.comm_loss_priority ?? 'P1', created_at: now, updated_at: now,
        };
      },
    },
    delete: true,
    commands: {
      // The action of a create: whoever may save a profile may try one of its points first.
      'read-now': command({
        summary: 'Read one reading or setpoint of a profile being set up from the controller now, before saving: the value in engineering units (raw / scale + offset), through the poller\'s own codec. Nothing is saved or written.',
        action: 'create', body: o.readings ? readNowBodyOf(o.readings) : readNowBody, errors: ['device_read_failed'], idempotent: false, response: readNowResponse,
        handler: (ctx) => readNow(ctx),
      }),
    },
  });
  const notifying = (r: AnyRoute): AnyRoute => (r.method === 'post' && !r.path.includes('/commands/')) || r.method === 'delete'
    ? { ...r, handler: async (ctx) => { const out = await r.handler(ctx); await adapterChanged(ctx.services); return out; } } as AnyRoute
    : r;
  // The master dials nobody's address (src/runtime/egress.ts): a read-now or a profile it would
  // poll is refused before anything is validated against the device or stored.
  const onBoxOnly = (r: AnyRoute): AnyRoute => r.method === 'post'
    ? { ...r, errors: [...(r.errors ?? []), 'not_on_master'], handler: (ctx) => { refuseOnMaster(ctx.services.config, `${r.path.includes('/commands/') ? 'read-now' : 'an adapter profile'} (${o.name})`); return r.handler(ctx); } } as AnyRoute
    : r;
  return { ...resource, routes: resource.routes.map(notifying).map(onBoxOnly) };
}
