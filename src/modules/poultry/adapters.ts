// poultry-adapters: the adapter profiles of the house controllers (src/industry/dispatch.ts):
// which controller holds which climate setpoint, over which transport, at which register or
// BACnet object, in which encoding. Admins create, change and delete them; setpoint acks read them.
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { defineResource } from '../../kernel/resource.js';
import { adapterBodySchema, type AdapterRow } from '../../industry/dispatch.js';
import { ownerSite as writeSite } from '../../kernel/tenancy.js';
import { adapterRecord } from './climate-schema.js';
import { tenantOf } from './flock.js';

// POST takes the contract's {item: {...}}.
const createBody = v.strictObject({ item: adapterBodySchema });

export const adapterResource = defineResource<AdapterRow, v.InferOutput<typeof createBody>>({
  name: 'poultry-adapters',
  module: 'poultry',
  title: 'Poultry controller adapters',
  table: adapterRecord.table,
  access: { resource: 'poultry-climate', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  fields: adapterRecord.fields,
  defaultSort: { field: 'controller_id', order: 'asc' },
  toItem: (row) => ({ ...row }),
  create: {
    body: createBody,
    toRow: ({ item: b }, ctx) => {
      const now = new Date().toISOString();
      return {
        id: b.id ?? randomUUID(), tenant_id: tenantOf(ctx.caller, b.tenant_id), site_id: writeSite(ctx.caller, b.site_id), unit_id: b.unit_id,
        controller_id: b.controller_id, transport: b.transport, host: b.host ?? null, port: b.port ?? null, serial_path: b.serial_path ?? null,
        modbus_unit_id: b.modbus_unit_id ?? null, device_instance: b.device_instance ?? null, points: b.points, created_at: now, updated_at: now,
      };
    },
  },
  delete: true,
});

export const adapterRoutes = adapterResource.routes;
