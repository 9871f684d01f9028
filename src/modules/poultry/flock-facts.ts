// What production and feed/water need to know about a flock: its placement date (age), subtype
// and birds placed. Read from the flock records (poultry-flock) when the batch has one.
import type { Services } from '../../kernel/context.js';

export const SUBTYPES = ['broiler', 'layer', 'breeder'] as const;

export interface FlockFacts {
  start_date: string;
  subtype: (typeof SUBTYPES)[number];
  birds_placed: number | null;
}

export async function flockFacts(services: Services, tenant: string, house: string, batch: string): Promise<FlockFacts | undefined> {
  // Loaded on use: flock.ts imports SUBTYPES from here (a static import would be a cycle).
  const { findFlock } = await import('./flock.js');
  const flock = await findFlock(services, tenant, house, batch);
  return flock ? { start_date: flock.start_date, subtype: flock.subtype, birds_placed: flock.birds_placed } : undefined;
}
