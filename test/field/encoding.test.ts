import { describe, expect, it } from 'vitest';
import { encodeRegisters, encodeCoils, registersHex, roundHalfAway, applyScale, EncodingError } from '../../src/field/encoding.js';
import { MATRIX, caseName } from './matrix.js';

describe('encoding (pure, hand-written expectations)', () => {
  for (const c of MATRIX) {
    it(caseName(c), () => {
      expect(registersHex(encodeRegisters(c.data_type, c.order, c.value, c.scale ?? 1))).toBe(c.hex);
    });
  }

  it('rounds half away from zero, after removing binary noise from the scaled product', () => {
    expect(roundHalfAway(2.5)).toBe(3);
    expect(roundHalfAway(-2.5)).toBe(-3);
    expect(roundHalfAway(-0.4)).toBe(-0);
    expect(applyScale(1.005, 100)).toBe(100.5);
    expect(registersHex(encodeRegisters('int16', 'LE', 1.005, 100))).toBe('0065'); // 101
    expect(registersHex(encodeRegisters('int16', 'LE', -1.005, 100))).toBe('ff9b'); // -101
  });

  it.each([
    ['int16', 32768, 1],
    ['int16', -32769, 1],
    ['int16', 3276.75, 10], // 32767.5 rounds to 32768
    ['uint16', -1, 1],
    ['uint16', -0.5, 1], // rounds to -1
    ['uint16', 65536, 1],
    ['int32', 2147483648, 1],
    ['uint32', 4294967296, 1],
    ['uint32', -1, 1],
    ['float32', 3.5e38, 1],
    ['float64', 1e308, 10],
    ['bool', 2, 1],
    ['bool', 1, 10],
  ] as const)('refuses %s value %s scale %s instead of wrapping', (type, value, scale) => {
    expect(() => encodeRegisters(type, 'LE', value, scale)).toThrow(EncodingError);
  });

  it('edge values that do fit', () => {
    expect(registersHex(encodeRegisters('int16', 'LE', [32767, -32768], 1))).toBe('7fff 8000');
    expect(registersHex(encodeRegisters('uint16', 'LE', -0.4, 1))).toBe('0000');
    expect(registersHex(encodeRegisters('uint32', 'LE', 4294967295, 1))).toBe('ffff ffff');
    expect(registersHex(encodeRegisters('int32', 'BE', -2147483648, 1))).toBe('0000 0080');
  });

  it('names the failing array element', () => {
    expect(() => encodeRegisters('int16', 'LE', [1, 40000], 1)).toThrow(/value\[1\].*does not fit int16/);
  });

  it('coils take 0/1/true/false only', () => {
    expect(encodeCoils([1, 0, true, false])).toEqual([true, false, true, false]);
    expect(() => encodeCoils(2)).toThrow(EncodingError);
    expect(() => encodeCoils([1, 0.5])).toThrow(/value\[1\]/);
  });
});
