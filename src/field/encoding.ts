// Modbus value encoding. Pure functions, no I/O: everything here is decided before a byte is sent,
// so a value that cannot be represented is refused instead of written wrong.

export const REGISTER_TYPES = ['int16', 'uint16', 'bool', 'int32', 'uint32', 'float32', 'float64'] as const;
export type RegisterDataType = (typeof REGISTER_TYPES)[number];

/**
 * Layout of a value's bytes on registers. The contract's two values: LE = most significant byte
 * first (ABCD, the Modbus standard), BE = least significant byte first (DCBA). Added beside them
 * (not in the contract) for the many controllers that split 32/64-bit values differently:
 * CDAB = registers least significant first, each register most significant byte first (64-bit:
 * GHEFCDAB); BADC = registers most significant first, bytes swapped inside each register (64-bit:
 * BADCFEHG). For a 16-bit value CDAB is the same as LE and BADC the same as BE.
 */
export const ORDERS = ['LE', 'BE', 'CDAB', 'BADC'] as const;
export type ByteOrder = (typeof ORDERS)[number];

/** Registers per value. The contract says 1 for 32-bit types; 32 bits need 2 registers. */
export const REGISTER_COUNT: Readonly<Record<RegisterDataType, number>> = {
  int16: 1,
  uint16: 1,
  bool: 1,
  int32: 2,
  uint32: 2,
  float32: 2,
  float64: 4,
};

const INTEGER_RANGE: Readonly<Partial<Record<RegisterDataType, readonly [number, number]>>> = {
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

export class EncodingError extends Error {}

/**
 * value * scale for an integer type, with the binary noise of the multiplication removed before
 * rounding (1.005 * 100 is 100.49999999999999 in IEEE doubles; an operator means 100.5, which
 * rounds to 101). 15 significant digits is what a double holds exactly, and every integer type
 * here needs at most 10 of them. Only here: a floating-point target gets the exact product, and
 * scale 1 leaves the value as sent.
 */
export function scaleForInteger(value: number, scale: number): number {
  if (scale === 1) return value;
  const product = value * scale;
  if (!Number.isFinite(product)) return product;
  return Number(product.toPrecision(15));
}

/** Round half away from zero (Math.round rounds -2.5 to -2). */
export function roundHalfAway(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}

/** Bytes of one value, most significant first, or an EncodingError saying why it cannot be held. */
function valueBytes(dataType: RegisterDataType, raw: number | boolean, scale: number): Buffer {
  if (dataType === 'bool') {
    if (scale !== 1) throw new EncodingError('scale is not allowed with data_type bool');
    const bit = typeof raw === 'boolean' ? (raw ? 1 : 0) : raw;
    if (bit !== 0 && bit !== 1) throw new EncodingError(`bool value must be 0, 1, true or false, got ${String(raw)}`);
    const b = Buffer.alloc(2);
    b.writeUInt16BE(bit);
    return b;
  }
  if (typeof raw !== 'number') throw new EncodingError(`${dataType} value must be a number, got ${String(raw)}`);
  const range = INTEGER_RANGE[dataType];
  // IEEE product for floating-point targets: scale 1 writes the double exactly as sent.
  const scaled = range ? scaleForInteger(raw, scale) : raw * scale;
  if (!Number.isFinite(scaled)) throw new EncodingError(`${dataType} value ${raw} * scale ${scale} is not finite`);
  if (range) {
    const n = roundHalfAway(scaled);
    if (n < range[0] || n > range[1]) {
      throw new EncodingError(
        `${dataType} value ${raw} * scale ${scale} = ${scaled} does not fit ${dataType} (${range[0]}..${range[1]})`,
      );
    }
    const b = Buffer.alloc(REGISTER_COUNT[dataType] * 2);
    if (dataType === 'int16') b.writeInt16BE(n);
    else if (dataType === 'uint16') b.writeUInt16BE(n);
    else if (dataType === 'int32') b.writeInt32BE(n);
    else b.writeUInt32BE(n);
    return b;
  }
  if (dataType === 'float32') {
    // The nearest float32 (ties to even). Only what rounds to infinity is refused: 3.4028235e38,
    // the largest float32 as float32 tools print it, is a little above its exact value and fits.
    // A magnitude below the smallest float32 becomes 0 with its sign, which is the nearest too.
    const f = Math.fround(scaled);
    if (!Number.isFinite(f)) {
      throw new EncodingError(`float32 value ${raw} * scale ${scale} = ${scaled} does not fit float32 (largest 3.4028235e38)`);
    }
    const b = Buffer.alloc(4);
    b.writeFloatBE(f);
    return b;
  }
  const b = Buffer.alloc(8);
  b.writeDoubleBE(scaled);
  return b;
}

const swapBytes = (r: number): number => ((r & 0xff) << 8) | (r >> 8);

/**
 * Registers for one value, in wire order. Start from the most-significant-first registers (LE,
 * ABCD); the other layouts are that with the register order reversed (CDAB), the bytes inside
 * each register swapped (BADC), or both, which reverses the whole byte sequence (BE, DCBA).
 */
export function encodeValue(dataType: RegisterDataType, order: ByteOrder, value: number | boolean, scale: number, offset = 0): number[] {
  const bytes = valueBytes(dataType, offset === 0 || typeof value !== 'number' ? value : removeOffset(value, offset), scale);
  let regs: number[] = [];
  for (let i = 0; i < bytes.length; i += 2) regs.push(bytes.readUInt16BE(i));
  if (order === 'BE' || order === 'CDAB') regs.reverse();
  if (order === 'BE' || order === 'BADC') regs = regs.map(swapBytes);
  return regs;
}

/** Registers for a value or an array of values, written sequentially from the start address. */
export function encodeRegisters(
  dataType: RegisterDataType,
  order: ByteOrder,
  value: number | boolean | ReadonlyArray<number | boolean>,
  scale: number,
  offset = 0,
): number[] {
  if (!Array.isArray(value)) return encodeValue(dataType, order, value as number | boolean, scale, offset);
  const regs: number[] = [];
  (value as ReadonlyArray<number | boolean>).forEach((item, i) => {
    try {
      regs.push(...encodeValue(dataType, order, item, scale, offset));
    } catch (err) {
      if (err instanceof EncodingError) throw new EncodingError(`value[${i}]: ${err.message}`);
      throw err;
    }
  });
  return regs;
}

/**
 * value - offset with the subtraction's binary noise removed (21.6 - 0.1 is 21.500000000000004):
 * the offset is a decimal the operator typed, and the difference is scaled and rounded next.
 */
function removeOffset(value: number, offset: number): number {
  const d = value - offset;
  return Number.isFinite(d) ? Number(d.toPrecision(15)) : d;
}

/** Scratch bytes for decoding: decodeRaw runs for every polled value, so it allocates nothing. */
const scratch = Buffer.alloc(8);

/**
 * The raw value of one value's registers (wire order, from `start`): the inverse of encodeValue
 * before the scale. Swapping bytes and reversing registers are each their own inverse and commute,
 * so the same two steps undo any layout. A bool register reads 1 for any non-zero content
 * (controllers differ on what they put in a "true" word).
 */
export function decodeRaw(dataType: RegisterDataType, order: ByteOrder, registers: readonly number[], start = 0): number {
  const width = REGISTER_COUNT[dataType];
  if (registers.length - start < width) throw new EncodingError(`${dataType} needs ${width} registers, got ${registers.length - start}`);
  const swap = order === 'BE' || order === 'BADC';
  if (width === 1) {
    const r = (registers[start] ?? 0) & 0xffff;
    const v = swap ? swapBytes(r) : r;
    if (dataType === 'int16') return v >= 0x8000 ? v - 0x10000 : v;
    return dataType === 'bool' ? (v === 0 ? 0 : 1) : v;
  }
  const reverse = order === 'BE' || order === 'CDAB';
  for (let i = 0; i < width; i++) {
    const r = (registers[start + (reverse ? width - 1 - i : i)] ?? 0) & 0xffff;
    scratch.writeUInt16BE(swap ? swapBytes(r) : r, i * 2);
  }
  switch (dataType) {
    case 'bool':
      return scratch.readUInt16BE(0) === 0 ? 0 : 1;
    case 'int16':
      return scratch.readInt16BE(0);
    case 'uint16':
      return scratch.readUInt16BE(0);
    case 'int32':
      return scratch.readInt32BE(0);
    case 'uint32':
      return scratch.readUInt32BE(0);
    case 'float32':
      return scratch.readFloatBE(0);
    case 'float64':
      return scratch.readDoubleBE(0);
  }
}

/**
 * raw / scale + offset, the engineering value of a raw reading. For integer types the result is
 * the decimal the device means, like the write side's clean-up: 1235 / 10 is 123.5, and 3 / 0.1
 * must read 30, not 29.999999999999996. A division by an integer scale is correctly rounded (for
 * 10, 100, 1000 that is the decimal itself), and a 0.1-like scale is a multiplication by an exact
 * integer; only other scales and offsets pay for the 15-digit clean-up, which costs a string round
 * trip per value. Floating-point raw values keep the IEEE result.
 */
export function toEngineering(dataType: RegisterDataType, raw: number, scale = 1, offset = 0): number {
  const integer = INTEGER_RANGE[dataType] !== undefined;
  let scaled: number;
  if (scale === 1) scaled = raw;
  else if (!integer || Number.isInteger(scale)) scaled = raw / scale;
  else if (Number.isInteger(1 / scale)) scaled = raw * (1 / scale);
  else scaled = fifteenDigits(raw / scale);
  if (offset === 0) return scaled;
  return integer ? fifteenDigits(scaled + offset) : scaled + offset;
}

function fifteenDigits(x: number): number {
  return Number.isFinite(x) ? Number(x.toPrecision(15)) : x;
}

/** Engineering values of consecutive values of one type (the inverse of encodeRegisters). */
export function decodeRegisters(dataType: RegisterDataType, order: ByteOrder, registers: readonly number[], scale = 1, offset = 0): number[] {
  const width = REGISTER_COUNT[dataType];
  if (registers.length % width !== 0) throw new EncodingError(`${registers.length} registers do not hold whole ${dataType} values`);
  const out: number[] = [];
  for (let i = 0; i < registers.length; i += width) out.push(toEngineering(dataType, decodeRaw(dataType, order, registers, i), scale, offset));
  return out;
}

/** Coil states. Coils are bits: only 0/1/true/false, no scale, no byte order. */
export function encodeCoils(value: number | boolean | ReadonlyArray<number | boolean>): boolean[] {
  const one = (x: number | boolean, where: string): boolean => {
    if (x === true || x === 1) return true;
    if (x === false || x === 0) return false;
    throw new EncodingError(`${where}coil value must be 0, 1, true or false, got ${String(x)}`);
  };
  if (Array.isArray(value)) return (value as ReadonlyArray<number | boolean>).map((x, i) => one(x, `value[${i}]: `));
  return [one(value as number | boolean, '')];
}

export function registersHex(regs: readonly number[]): string {
  return regs.map((r) => r.toString(16).padStart(4, '0')).join(' ');
}
