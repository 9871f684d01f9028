// Every data type x order x scale x single/array, with the registers expected on the device
// written out by hand (4-digit hex words in wire order). LE = most significant first, BE = least
// significant first over the whole value (see src/field/README.md).
//
// Worked examples:
//   int16 123.45*10 = 1234.5 -> 1235 (half away from zero) = 0x04D3
//   int32 305419896 = 0x12345678;  -305419896 = 0xEDCBA988
//   float32 21.5 = 0x41AC0000, 0.1 = 0x3DCCCCCD, 1.5 = 0x3FC00000, -2.25 = 0xC0100000
//   float64 21.5 = 0x4035800000000000, 0.1 = 0x3FB999999999999A, 1.5 = 0x3FF8..., -2 = 0xC000...

export interface MatrixCase {
  data_type: 'int16' | 'uint16' | 'bool' | 'int32' | 'uint32' | 'float32' | 'float64';
  order: 'LE' | 'BE';
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
];

export const caseName = (c: MatrixCase): string =>
  `${c.data_type} ${c.order} scale=${c.scale ?? 'none'} ${Array.isArray(c.value) ? 'array' : 'single'} -> ${c.hex}`;

export const words = (hex: string): number => hex.split(' ').length;
