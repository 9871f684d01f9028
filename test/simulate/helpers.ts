// A decoder written here from Buffer's own readers, independent of the box's codec
// (src/field/encoding.ts) that the simulator encodes with: a layout mistake shows as a mismatch.
import type { ModbusDataType, WordOrder } from '../../src/field/poll-types.js';

export function decode(words: readonly number[], dataType: ModbusDataType, order: WordOrder = 'LE'): number {
  let regs = [...words];
  // Back to ABCD (most significant register first, most significant byte first).
  if (order === 'BE' || order === 'CDAB') regs.reverse();
  if (order === 'BE' || order === 'BADC') regs = regs.map((r) => ((r & 0xff) << 8) | (r >> 8));
  const b = Buffer.alloc(regs.length * 2);
  regs.forEach((r, i) => b.writeUInt16BE(r, i * 2));
  switch (dataType) {
    case 'int16': return b.readInt16BE(0);
    case 'uint16': case 'bool': return b.readUInt16BE(0);
    case 'int32': return b.readInt32BE(0);
    case 'uint32': return b.readUInt32BE(0);
    case 'float32': return b.readFloatBE(0);
    case 'float64': return b.readDoubleBE(0);
  }
}

export const WORDS: Readonly<Record<ModbusDataType, number>> = { int16: 1, uint16: 1, bool: 1, int32: 2, uint32: 2, float32: 2, float64: 4 };
