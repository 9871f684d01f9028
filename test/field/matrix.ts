// Every data type x order x scale x single/array, with the registers expected on the device
// written out by hand (4-digit hex words in wire order). LE = most significant first, BE = least
// significant first over the whole value (the contract's two); CDAB = registers least significant
// first, bytes in each register most significant first; BADC = the bytes of each register swapped
// (cabinet's additions; see src/field/README.md).
//
// Worked examples:
//   int16 123.45*10 = 1234.5 -> 1235 (half away from zero) = 0x04D3
//   int32 305419896 = 0x12345678;  -305419896 = 0xEDCBA988
//   float32 21.5 = 0x41AC0000, 0.1 = 0x3DCCCCCD, 1.5 = 0x3FC00000, -2.25 = 0xC0100000
//   float64 21.5 = 0x4035800000000000, 0.1 = 0x3FB999999999999A, 1.5 = 0x3FF8..., -2 = 0xC000...

export interface MatrixCase {
  data_type: 'int16' | 'uint16' | 'bool' | 'int32' | 'uint32' | 'float32' | 'float64';
  order: 'LE' | 'BE' | 'CDAB' | 'BADC';
  scale?: number;
  value: number | number[];
  hex: string;
  fc: 6 | 16;
}

export const MATRIX: MatrixCase[] = [
  // int16
  { data_type: 'int16', order: 'LE', value: -2, hex: 'fffe', fc: 6 },
  { data_type: 'int16', order: 'BE', value: -2, hex: 'feff', fc: 6 },
  { data_type: 'int16', order: 'LE', value: [-2, 300], hex: 'fffe 012c', fc: 16 },
  { data_type: 'int16', order: 'BE', value: [-2, 300], hex: 'feff 2c01', fc: 16 },
  { data_type: 'int16', order: 'LE', scale: 10, value: 123.45, hex: '04d3', fc: 6 },
  { data_type: 'int16', order: 'BE', scale: 10, value: 123.45, hex: 'd304', fc: 6 },
  { data_type: 'int16', order: 'LE', scale: 10, value: [123.45, -0.15], hex: '04d3 fffe', fc: 16 },
  { data_type: 'int16', order: 'BE', scale: 10, value: [123.45, -0.15], hex: 'd304 feff', fc: 16 },
  // uint16
  { data_type: 'uint16', order: 'LE', value: 4660, hex: '1234', fc: 6 },
  { data_type: 'uint16', order: 'BE', value: 4660, hex: '3412', fc: 6 },
  { data_type: 'uint16', order: 'LE', value: [4660, 1], hex: '1234 0001', fc: 16 },
  { data_type: 'uint16', order: 'BE', value: [4660, 1], hex: '3412 0100', fc: 16 },
  { data_type: 'uint16', order: 'LE', scale: 0.5, value: 9321, hex: '1235', fc: 6 },
  { data_type: 'uint16', order: 'BE', scale: 0.5, value: 9321, hex: '3512', fc: 6 },
  { data_type: 'uint16', order: 'LE', scale: 0.5, value: [9321, 3], hex: '1235 0002', fc: 16 },
  { data_type: 'uint16', order: 'BE', scale: 0.5, value: [9321, 3], hex: '3512 0200', fc: 16 },
  // bool in a holding register (scale other than 1 is refused: see the refusal tests)
  { data_type: 'bool', order: 'LE', value: 1, hex: '0001', fc: 6 },
  { data_type: 'bool', order: 'BE', value: 1, hex: '0100', fc: 6 },
  { data_type: 'bool', order: 'LE', value: [1, 0, 1], hex: '0001 0000 0001', fc: 16 },
  { data_type: 'bool', order: 'BE', value: [1, 0, 1], hex: '0100 0000 0100', fc: 16 },
  { data_type: 'bool', order: 'LE', scale: 1, value: 0, hex: '0000', fc: 6 },
  { data_type: 'bool', order: 'BE', scale: 1, value: [0, 1], hex: '0000 0100', fc: 16 },
  // int32
  { data_type: 'int32', order: 'LE', value: 305419896, hex: '1234 5678', fc: 16 },
  { data_type: 'int32', order: 'BE', value: 305419896, hex: '7856 3412', fc: 16 },
  { data_type: 'int32', order: 'LE', value: [305419896, -305419896], hex: '1234 5678 edcb a988', fc: 16 },
  { data_type: 'int32', order: 'BE', value: [305419896, -305419896], hex: '7856 3412 88a9 cbed', fc: 16 },
  { data_type: 'int32', order: 'LE', scale: 100, value: 12.345, hex: '0000 04d3', fc: 16 },
  { data_type: 'int32', order: 'BE', scale: 100, value: 12.345, hex: 'd304 0000', fc: 16 },
  { data_type: 'int32', order: 'LE', scale: 100, value: [12.345, -0.005], hex: '0000 04d3 ffff ffff', fc: 16 },
  { data_type: 'int32', order: 'BE', scale: 100, value: [12.345, -0.005], hex: 'd304 0000 ffff ffff', fc: 16 },
  // uint32
  { data_type: 'uint32', order: 'LE', value: 3735928559, hex: 'dead beef', fc: 16 },
  { data_type: 'uint32', order: 'BE', value: 3735928559, hex: 'efbe adde', fc: 16 },
  { data_type: 'uint32', order: 'LE', value: [3735928559, 65536], hex: 'dead beef 0001 0000', fc: 16 },
  { data_type: 'uint32', order: 'BE', value: [3735928559, 65536], hex: 'efbe adde 0000 0100', fc: 16 },
  { data_type: 'uint32', order: 'LE', scale: 1000, value: 65.536, hex: '0001 0000', fc: 16 },
  { data_type: 'uint32', order: 'BE', scale: 1000, value: 65.536, hex: '0000 0100', fc: 16 },
  { data_type: 'uint32', order: 'LE', scale: 1000, value: [65.536, 0.0015], hex: '0001 0000 0000 0002', fc: 16 },
  { data_type: 'uint32', order: 'BE', scale: 1000, value: [65.536, 0.0015], hex: '0000 0100 0200 0000', fc: 16 },
  // float32
  { data_type: 'float32', order: 'LE', value: 1.5, hex: '3fc0 0000', fc: 16 },
  { data_type: 'float32', order: 'BE', value: 1.5, hex: '0000 c03f', fc: 16 },
  { data_type: 'float32', order: 'LE', value: [1.5, -2.25], hex: '3fc0 0000 c010 0000', fc: 16 },
  { data_type: 'float32', order: 'BE', value: [1.5, -2.25], hex: '0000 c03f 0000 10c0', fc: 16 },
  { data_type: 'float32', order: 'LE', scale: 0.1, value: 215, hex: '41ac 0000', fc: 16 },
  { data_type: 'float32', order: 'BE', scale: 0.1, value: 215, hex: '0000 ac41', fc: 16 },
  { data_type: 'float32', order: 'LE', scale: 0.1, value: [215, 1], hex: '41ac 0000 3dcc cccd', fc: 16 },
  { data_type: 'float32', order: 'BE', scale: 0.1, value: [215, 1], hex: '0000 ac41 cdcc cc3d', fc: 16 },
  // float64
  { data_type: 'float64', order: 'LE', value: 1.5, hex: '3ff8 0000 0000 0000', fc: 16 },
  { data_type: 'float64', order: 'BE', value: 1.5, hex: '0000 0000 0000 f83f', fc: 16 },
  { data_type: 'float64', order: 'LE', value: [1.5, -2], hex: '3ff8 0000 0000 0000 c000 0000 0000 0000', fc: 16 },
  { data_type: 'float64', order: 'BE', value: [1.5, -2], hex: '0000 0000 0000 f83f 0000 0000 0000 00c0', fc: 16 },
  { data_type: 'float64', order: 'LE', scale: 0.1, value: 215, hex: '4035 8000 0000 0000', fc: 16 },
  { data_type: 'float64', order: 'BE', scale: 0.1, value: 215, hex: '0000 0000 0080 3540', fc: 16 },
  { data_type: 'float64', order: 'LE', scale: 0.1, value: [215, 1], hex: '4035 8000 0000 0000 3fb9 9999 9999 999a', fc: 16 },
  { data_type: 'float64', order: 'BE', scale: 0.1, value: [215, 1], hex: '0000 0000 0080 3540 9a99 9999 9999 b93f', fc: 16 },
  // word-swapped (CDAB) and byte-swapped (BADC) layouts; a 16-bit value is LE and BE again
  { data_type: 'int16', order: 'CDAB', value: -2, hex: 'fffe', fc: 6 },
  { data_type: 'uint16', order: 'BADC', value: [4660, 1], hex: '3412 0100', fc: 16 },
  { data_type: 'int32', order: 'CDAB', value: [305419896, -305419896], hex: '5678 1234 a988 edcb', fc: 16 },
  { data_type: 'int32', order: 'BADC', value: [305419896, -305419896], hex: '3412 7856 cbed 88a9', fc: 16 },
  { data_type: 'uint32', order: 'CDAB', value: 3735928559, hex: 'beef dead', fc: 16 },
  { data_type: 'uint32', order: 'BADC', value: 3735928559, hex: 'adde efbe', fc: 16 },
  { data_type: 'uint32', order: 'CDAB', scale: 1000, value: 65.536, hex: '0000 0001', fc: 16 },
  { data_type: 'float32', order: 'CDAB', value: [1.5, -2.25], hex: '0000 3fc0 0000 c010', fc: 16 },
  { data_type: 'float32', order: 'BADC', value: [1.5, -2.25], hex: 'c03f 0000 10c0 0000', fc: 16 },
  { data_type: 'float64', order: 'CDAB', value: 1.5, hex: '0000 0000 0000 3ff8', fc: 16 },
  { data_type: 'float64', order: 'BADC', value: 1.5, hex: 'f83f 0000 0000 0000', fc: 16 },
  { data_type: 'float64', order: 'CDAB', scale: 0.1, value: [215, 1], hex: '0000 0000 8000 4035 999a 9999 9999 3fb9', fc: 16 },
];

/**
 * Values whose last bits matter: float64 is written exactly as sent, float32 as the nearest
 * float32, with no decimal clean-up (that is only for a scaled value rounded to an integer type).
 * `device` is the value the device holds, as pymodbus's own decoder reads it back; the hex and
 * the decimals are written out by hand (IEEE 754 tables), not computed by the code under test.
 */
export interface ExactCase extends MatrixCase {
  data_type: 'float32' | 'float64';
  value: number;
  device: number;
}

export const EXACT: ExactCase[] = [
  // Math.PI: a decimal clean-up to 15 digits wrote 4009 21fb 5444 2d11 (3.14159265358979)
  { data_type: 'float64', order: 'LE', value: 3.141592653589793, device: 3.141592653589793, hex: '4009 21fb 5444 2d18', fc: 16 },
  { data_type: 'float64', order: 'BE', value: 3.141592653589793, device: 3.141592653589793, hex: '182d 4454 fb21 0940', fc: 16 },
  { data_type: 'float64', order: 'CDAB', value: 3.141592653589793, device: 3.141592653589793, hex: '2d18 5444 21fb 4009', fc: 16 },
  { data_type: 'float64', order: 'BADC', value: 3.141592653589793, device: 3.141592653589793, hex: '0940 fb21 4454 182d', fc: 16 },
  { data_type: 'float64', order: 'LE', value: 0.1, device: 0.1, hex: '3fb9 9999 9999 999a', fc: 16 },
  { data_type: 'float64', order: 'LE', value: 1e-300, device: 1e-300, hex: '01a5 6e1f c2f8 f359', fc: 16 },
  { data_type: 'float64', order: 'CDAB', value: -1e-300, device: -1e-300, hex: 'f359 c2f8 6e1f 81a5', fc: 16 },
  { data_type: 'float64', order: 'LE', value: 5e-324, device: 5e-324, hex: '0000 0000 0000 0001', fc: 16 },
  // 2^53 + 2: clean-up to 15 digits would give 9007199254740990
  { data_type: 'float64', order: 'LE', value: 9007199254740994, device: 9007199254740994, hex: '4340 0000 0000 0001', fc: 16 },
  { data_type: 'float64', order: 'LE', value: 3.4028234663852886e38, device: 3.4028234663852886e38, hex: '47ef ffff e000 0000', fc: 16 },
  // scale on a floating-point target: the IEEE product, not 100.5
  { data_type: 'float64', order: 'LE', scale: 100, value: 1.005, device: 100.49999999999999, hex: '4059 1fff ffff ffff', fc: 16 },
  { data_type: 'float32', order: 'LE', value: 3.141592653589793, device: 3.1415927410125732, hex: '4049 0fdb', fc: 16 },
  { data_type: 'float32', order: 'CDAB', value: 3.141592653589793, device: 3.1415927410125732, hex: '0fdb 4049', fc: 16 },
  { data_type: 'float32', order: 'BADC', value: 3.141592653589793, device: 3.1415927410125732, hex: '4940 db0f', fc: 16 },
  { data_type: 'float32', order: 'LE', value: 0.1, device: 0.10000000149011612, hex: '3dcc cccd', fc: 16 },
  // the largest float32, exact and as float32 tools print it (a little above, rounds down to it)
  { data_type: 'float32', order: 'LE', value: 3.4028234663852886e38, device: 3.4028234663852886e38, hex: '7f7f ffff', fc: 16 },
  { data_type: 'float32', order: 'BE', value: 3.4028235e38, device: 3.4028234663852886e38, hex: 'ffff 7f7f', fc: 16 },
  // 2^24 + 1 is halfway between two float32s: ties to even, 2^24
  { data_type: 'float32', order: 'LE', value: 16777217, device: 16777216, hex: '4b80 0000', fc: 16 },
  { data_type: 'float32', order: 'LE', value: 9007199254740994, device: 9007199254740992, hex: '5a00 0000', fc: 16 },
  // below the smallest float32 subnormal: the nearest float32 is zero, with the sign kept
  { data_type: 'float32', order: 'LE', value: 1e-300, device: 0, hex: '0000 0000', fc: 16 },
  { data_type: 'float32', order: 'LE', value: -1e-300, device: -0, hex: '8000 0000', fc: 16 },
];

export const caseName = (c: MatrixCase): string =>
  `${c.data_type} ${c.order} scale=${c.scale ?? 'none'} ${Array.isArray(c.value) ? 'array' : 'single'} -> ${c.hex}`;

export const words = (hex: string): number => hex.split(' ').length;
