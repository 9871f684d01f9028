// Module runtimes start in catalogue order, and the sync module starts before the status module
// that creates the bus and the status service. whenProvided() runs a function as soon as a
// service is assigned (or at once when it already is), without reordering the catalogue.
import type { Services } from '../../../kernel/context.js';

type Key = 'bus' | 'status';

export function whenProvided<K extends Key>(services: Services, key: K, fn: (value: NonNullable<Services[K]>) => void): void {
  const existing = services[key];
  if (existing) {
    fn(existing as NonNullable<Services[K]>);
    return;
  }
  let value: Services[K] | undefined;
  Object.defineProperty(services, key, {
    configurable: true, enumerable: true,
    get: () => value,
    set: (next: Services[K]) => {
      value = next;
      // Back to a plain property once assigned: nobody pays for the accessor afterwards.
      Object.defineProperty(services, key, { value: next, writable: true, configurable: true, enumerable: true });
      if (next) fn(next as NonNullable<Services[K]>);
    },
  });
}
