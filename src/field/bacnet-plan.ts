import { BACNET_TAGS, type BacnetItem, type BacnetMultipleItem, type BacnetWriteFields } from './request.js';

// Checks a BACnet value against its application tag before sending: an unsigned tag with -1 or a
// REAL beyond float32 would otherwise be encoded into some other number by the library.

export interface BacnetWrite {
  objectType: number;
  objectInstance: number;
  property: number;
  /** undefined = whole property (the contract's -1). */
  index?: number;
  /** undefined = no priority (the device's default, usually 16). */
  priority?: number;
  tag: number;
  /** null for NULL (relinquish). */
  value: number | boolean | null;
}

export interface BacnetPlan {
  deviceInstance: number;
  writes: BacnetWrite[];
  multiple: boolean;
  verify: boolean;
}

export function describeWrite(deviceInstance: number, w: BacnetWrite): string {
  return `device:${deviceInstance} obj:${w.objectType}:${w.objectInstance} prop:${w.property}${w.index === undefined ? '' : `[${w.index}]`}`;
}

function checkValue(f: BacnetWriteFields): { ok: true; w: BacnetWrite } | { ok: false; why: string } {
  const base = {
    objectType: f.object_type,
    objectInstance: f.object_instance,
    property: f.property,
    ...(f.index === undefined || f.index === -1 ? {} : { index: f.index }),
    ...(f.priority === undefined ? {} : { priority: f.priority }),
    tag: f.tag,
  };
  // node-bacnet treats arrayIndex 0 as "no index" on WriteProperty; refuse rather than write the whole array.
  if (f.index === 0) return { ok: false, why: 'index 0 (array length) cannot be written' };
  const x = f.value;
  const isInt = (n: unknown, lo: number, hi: number): n is number => typeof n === 'number' && Number.isInteger(n) && n >= lo && n <= hi;
  switch (f.tag) {
    case BACNET_TAGS.NULL:
      // A NULL without a priority would relinquish nothing the device can identify.
      if (f.priority === undefined) return { ok: false, why: 'tag 0 (NULL, relinquish) needs a priority 1..16' };
      return { ok: true, w: { ...base, value: null } };
    case BACNET_TAGS.BOOLEAN:
      if (x === true || x === 1) return { ok: true, w: { ...base, value: true } };
      if (x === false || x === 0) return { ok: true, w: { ...base, value: false } };
      return { ok: false, why: `tag 1 (BOOLEAN) takes 0 or 1, got ${String(x)}` };
    case BACNET_TAGS.UNSIGNED_INTEGER:
    case BACNET_TAGS.ENUMERATED:
      if (isInt(x, 0, 4294967295)) return { ok: true, w: { ...base, value: x } };
      return { ok: false, why: `tag ${f.tag} takes an integer 0..4294967295, got ${String(x)}` };
    case BACNET_TAGS.SIGNED_INTEGER:
      if (isInt(x, -2147483648, 2147483647)) return { ok: true, w: { ...base, value: x } };
      return { ok: false, why: `tag 3 (SIGNED) takes an integer -2147483648..2147483647, got ${String(x)}` };
    case BACNET_TAGS.REAL:
      // Sent as the nearest float32; only what rounds to infinity is refused (3.4028235e38, the
      // largest float32 as printed, is a little above its exact value and fits).
      if (typeof x === 'number' && Number.isFinite(Math.fround(x))) return { ok: true, w: { ...base, value: x } };
      return { ok: false, why: `tag 4 (REAL) takes a number within float32, got ${String(x)}` };
    case BACNET_TAGS.DOUBLE:
      if (typeof x === 'number') return { ok: true, w: { ...base, value: x } };
      return { ok: false, why: `tag 5 (DOUBLE) takes a number, got ${String(x)}` };
    default:
      return { ok: false, why: `tag ${f.tag} is not supported` };
  }
}

export type BacnetPlanResult = { ok: true; plan: BacnetPlan } | { ok: false; messages: string[] };

export function planBacnet(item: BacnetItem | BacnetMultipleItem, multiple: boolean): BacnetPlanResult {
  const fields: BacnetWriteFields[] = multiple ? (item as BacnetMultipleItem).array : [item as BacnetItem];
  const writes: BacnetWrite[] = [];
  const messages: string[] = [];
  fields.forEach((f, i) => {
    const r = checkValue(f);
    if (r.ok) writes.push(r.w);
    else {
      const where = `device:${item.device_instance} obj:${f.object_type}:${f.object_instance} prop:${f.property}`;
      messages.push(`Invalid value ${where}${multiple ? ` (array[${i}])` : ''} ${r.why}`);
    }
  });
  if (messages.length) return { ok: false, messages };
  return { ok: true, plan: { deviceInstance: item.device_instance, writes, multiple, verify: item.verify ?? false } };
}
