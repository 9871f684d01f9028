// Time-ordered ids (UUIDv7 layout): rows inserted later sort later, so "newest first" is stable
// and B-tree inserts stay append-mostly even for telemetry bursts.
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

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
  const r = randomBytes(8);
  const hex = now.toString(16).padStart(12, '0');
  const c = (0x7000 | counter).toString(16);
  r[0] = ((r[0] as number) & 0x3f) | 0x80;
  const tail = r.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${c}-${tail.slice(0, 4)}-${tail.slice(4, 16)}`;
}
