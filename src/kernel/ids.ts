// Time-ordered ids (UUIDv7 layout): rows inserted later sort later, so "newest first" is stable
// and B-tree inserts stay append-mostly even for telemetry bursts.
import { randomFillSync } from 'node:crypto';

let lastMs = 0;
let counter = 0;

// The random tail comes from one pooled buffer, refilled every 512 ids: a synchronous
// randomBytes call per id (one per audit record and request id) cost more than the rest of it.
const POOL_IDS = 512;
const pool = Buffer.alloc(8 * POOL_IDS);
let poolAt = pool.length;

export function timeId(now = Date.now()): string {
  if (now <= lastMs) {
    now = lastMs;
    counter++;
    if (counter > 0xfff) {
      lastMs = ++now;
      counter = 0;
    }
  } else {
    lastMs = now;
    counter = 0;
  }
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += 8;
  pool[at] = ((pool[at] as number) & 0x3f) | 0x80;
  const tail = pool.toString('hex', at, at + 8);
  const hex = now.toString(16).padStart(12, '0');
  const c = (0x7000 | counter).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${c}-${tail.slice(0, 4)}-${tail.slice(4, 16)}`;
}

const TIME_ID = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-/;

/** The millisecond a timeId() was made in (undefined for any other id, e.g. a random one of an older row). */
export function timeOfId(id: string): number | undefined {
  const m = TIME_ID.exec(id);
  return m ? parseInt(m[1]! + m[2]!, 16) : undefined;
}
