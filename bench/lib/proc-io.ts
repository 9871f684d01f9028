// Bytes this process wrote, from /proc/self/io (all its threads): `wchar`, every write(2) (files,
// sockets, pipes); `writeBytes` (write_bytes), what it sent or will send to the block device.
import { readFileSync } from 'node:fs';

export interface ProcIo {
  wchar: number;
  writeBytes: number;
}

export function procIo(): ProcIo {
  const text = readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { wchar: field('wchar'), writeBytes: field('write_bytes') };
}
