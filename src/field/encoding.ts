// Modbus value encoding. Pure functions, no I/O: everything here is decided before a byte is sent,
// so a value that cannot be represented is refused instead of written wrong.

export const REGISTER_TYPES = ['int16', 'uint16', 'bool', 'int32', 'uint32', 'float32', 'float64'] as const;
export type RegisterDataType = (typeof REGISTER_TYPES)[number];

/** Contract wording: LE = most significant byte first, BE = least significant byte first. */
export type ByteOrder = 'LE' | 'BE';

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

const FLOAT32_MAX = 3.4028234663852886e38;

export class EncodingError extends Error {}

/**
 * value * scale, with binary floating-point noise removed (1.005 * 100 is 100.49999999999999 in
 * IEEE doubles; an operator means 100.5). 15 significant digits is what a double holds exactly.
 */
export function applyScale(value: number, scale: number): number {
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
  const scaled = applyScale(raw, scale);
  if (!Number.isFinite(scaled)) throw new EncodingError(`${dataType} value ${raw} * scale ${scale} is not finite`);
  const range = INTEGER_RANGE[dataType];
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
    // Rounds to the nearest float32; only magnitudes beyond float32 are refused.
    if (Math.abs(scaled) > FLOAT32_MAX) {
      throw new EncodingError(`float32 value ${raw} * scale ${scale} = ${scaled} does not fit float32`);
    }
    const b = Buffer.alloc(4);
    b.writeFloatBE(scaled);
    return b;
  }
  const b = Buffer.alloc(8);
  b.writeDoubleBE(scaled);
  return b;
}

/**
 * Registers for one value. 'LE' keeps the most-significant-first byte sequence (the Modbus
 * standard: ABCD for 32 bits); 'BE' reverses the whole byte sequence (DCBA), which also swaps
 * the two bytes inside each register. The value's bytes are laid on registers in wire order.
 */
export function encodeValue(dataType: RegisterDataType, order: ByteOrder, value: number | boolean, scale: number): number[] {
  const bytes = valueBytes(dataType, value, scale);
  if (order === 'BE') bytes.reverse();
  const regs: number[] = [];
  for (let i = 0; i < bytes.length; i += 2) regs.push(bytes.readUInt16BE(i));
  return regs;
}

/** Registers for a value or an array of values, written sequentially from the start address. */
export function encodeRegisters(
  dataType: RegisterDataType,
  order: ByteOrder,
  value: number | boolean | ReadonlyArray<number | boolean>,
  scale: number,
): number[] {
  if (!Array.isArray(value)) return encodeValue(dataType, order, value as number | boolean, scale);
  const regs: number[] = [];
  (value as ReadonlyArray<number | boolean>).forEach((item, i) => {
    try {
      regs.push(...encodeValue(dataType, order, item, scale));
    } catch (err) {
      if (err instanceof EncodingError) throw new EncodingError(`value[${i}]: ${err.message}`);
      throw err;
    }
  });
  return regs;
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
