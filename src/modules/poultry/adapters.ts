// poultry-adapters: the adapter profiles of the house controllers (src/industry/adapter-resource.ts):
// which controller holds which climate setpoint; setpoint acks read them. A saved profile is
// changed by commands/revise and keeps its versions (adapter-revise.ts); create, revise and
// delete are audited.
import { defineAdapterResource } from '../../industry/adapter-resource.js';
import { adapterRecord } from './climate-schema.js';
import { adapterVersionRoutes, withAudit } from './adapter-revise.js';

export const adapterResource = defineAdapterResource({ name: 'poultry-adapters', module: 'poultry', title: 'Poultry controller adapters', record: adapterRecord, accessResource: 'poultry-climate' });
export const adapterRoutes = [...withAudit(adapterResource.routes), ...adapterVersionRoutes(adapterResource.kit)];
