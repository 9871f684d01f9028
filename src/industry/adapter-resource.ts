// The adapter profiles of an industry's controllers as a resource (poultry-adapters,
// swine-adapters): which controller holds which setpoint key, over which transport, at which
// register or BACnet object. Admins create (the contract's {item}), read and delete them; the
// setpoint dispatch (dispatch.ts) reads them. One declaration for every industry.
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { defineResource } from '../kernel/resource.js';
import { ownerSite, requiredTenant } from '../kernel/tenancy.js';
import { adapterBodySchema, type AdapterRow, type defineAdapterRecord } from './dispatch.js';

const createBody = v.strictObject({ item: adapterBodySchema });

export function defineAdapterResource(o: { name: string; module: string; title: string; record: ReturnType<typeof defineAdapterRecord>; accessResource: string }) {
  return defineResource<AdapterRow, v.InferOutput<typeof createBody>>({
    name: o.name,
    module: o.module,
    title: o.title,
    record: o.record,
    access: { resource: o.accessResource, scope: 'tenant' },
    tenantColumn: 'tenant_id',
    siteColumn: 'site_id',
    defaultSort: { field: 'controller_id', order: 'asc' },
    create: {
      body: createBody,
      toRow: ({ item: b }, ctx) => {
        const now = new Date().toISOString();
        return {
          id: b.id ?? randomUUID(), tenant_id: requiredTenant(ctx.caller, b.tenant_id), site_id: ownerSite(ctx.caller, b.site_id), unit_id: b.unit_id,
          controller_id: b.controller_id, transport: b.transport, host: b.host ?? null, port: b.port ?? null, serial_path: b.serial_path ?? null,
          modbus_unit_id: b.modbus_unit_id ?? null, device_instance: b.device_instance ?? null, points: b.points, created_at: now, updated_at: now,
        };
      },
    },
    delete: true,
  });
}
