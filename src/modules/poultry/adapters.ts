// poultry-adapters: the adapter profiles of the house controllers (src/industry/adapter-resource.ts):
// which controller holds which climate setpoint; setpoint acks read them.
import { defineAdapterResource } from '../../industry/adapter-resource.js';
import { adapterRecord } from './climate-schema.js';

export const adapterResource = defineAdapterResource({ name: 'poultry-adapters', module: 'poultry', title: 'Poultry controller adapters', record: adapterRecord, accessResource: 'poultry-climate' });
export const adapterRoutes = adapterResource.routes;
