// The versioning of climate profiles: one lineage per tenant, house, batch and age phase.
import { versioned } from '../../industry/versions.js';
import { climateRecord, type ClimateRow } from './climate-schema.js';

export const CLIMATE_LINEAGE = ['tenant_id', 'house_id', 'batch_id', 'age_phase_id'] as const;
export const climateVersions = versioned<ClimateRow>(climateRecord.table, CLIMATE_LINEAGE);
