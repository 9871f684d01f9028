import { describe, expect, it } from 'vitest';
import { encodeRegisters, encodeCoils, registersHex, roundHalfAway, scaleForInteger, EncodingError } from '../../src/field/encoding.js';
import { EXACT, MATRIX, caseName } from './matrix.js';

describe('encoding (pure, hand-written expectations)', () => {
  for (const c of [...MATRIX, ...EXACT]) {
    it(caseName(c), () => {
      expect(registersHex(encodeRegisters(c.data_type, c.order, c.value, c.scale ?? 1))).toBe(c.hex);
    });
  }

  it('rounds half away from zero, after removing binary noise from the scaled product', () => {
    expect(roundHalfAway(2.5)).toBe(3);
    expect(roundHalfAway(-2.5)).toBe(-3);
    expect(roundHalfAway(-0.4)).toBe(-0);
    expect(scaleForInteger(1.005, 100)).toBe(100.5);
    expect(registersHex(encodeRegisters('int16', 'LE', 1.005, 100))).toBe('0065'); // 101
    expect(registersHex(encodeRegisters('int16', 'LE', -1.005, 100))).toBe('ff9b'); // -101
    expect(registersHex(encodeRegisters('uint32', 'LE', 42.94967295, 1e8))).toBe('ffff ffff');
  });

  it('the clean-up is only for integer targets: scale 1 and floating-point targets take the value as sent', () => {
    expect(scaleForInteger(2.4999999999999996, 1)).toBe(2.4999999999999996);
    expect(registersHex(encodeRegisters('int16', 'LE', 2.4999999999999996, 1))).toBe('0002');
    // the same value through a scale: the product's noise is removed, then half rounds away
    expect(registersHex(encodeRegisters('int16', 'LE', 0.24999999999999997, 10))).toBe('0003');
    expect(registersHex(encodeRegisters('float64', 'LE', 0.24999999999999997, 10))).toBe('4003 ffff ffff ffff');
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
    ['float32', 3.4028235677973366e38, 1], // halfway to 2^128: ties to even round to infinity
    ['float32', -3.4028235677973366e38, 1],
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
