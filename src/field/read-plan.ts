import { REGISTER_COUNT, decodeRaw, toEngineering } from './encoding.js';
import type { ModbusDataType, ModbusTable, PollPoint, WordOrder } from './poll-types.js';

// Groups one device's Modbus points into the fewest read requests: per table, points sorted by
// address and merged into contiguous runs up to the protocol's limit. A small gap between two
// points is read and thrown away rather than costing a second request: 8 unused registers are 16
// bytes on the wire, less than a second request's address, CRC, header and two 3.5-character
// silences plus the device's turnaround.

/** FC03/FC04 answer at most 125 registers, FC01/FC02 at most 2000 bits (Modbus application protocol 1.1b3). */
export const MAX_REGISTERS_PER_READ = 125;
export const MAX_BITS_PER_READ = 2000;
/** Largest gap bridged inside one run: registers for FC03/04, bits for FC01/02 (x16, the same bytes). */
export const DEFAULT_MAX_GAP = 8;

export interface PlannedPoint {
  point: PollPoint;
  /** Position of the point's first register/bit inside the run's answer. */
  at: number;
  dataType: ModbusDataType;
  order: WordOrder;
  width: number;
}

export interface ReadRun {
  table: ModbusTable;
  address: number;
  count: number;
  points: PlannedPoint[];
}

const isBitTable = (t: ModbusTable): boolean => t === 'coil' || t === 'discrete input';
const TABLES: readonly ModbusTable[] = ['holding register', 'input register', 'coil', 'discrete input'];

export class ReadPlanError extends Error {}

/** The runs for these points; throws ReadPlanError for a point that cannot be read as given. */
export function planReads(points: readonly PollPoint[], maxGap = DEFAULT_MAX_GAP): ReadRun[] {
  const runs: ReadRun[] = [];
  for (const table of TABLES) {
    const bits = isBitTable(table);
    const limit = bits ? MAX_BITS_PER_READ : MAX_REGISTERS_PER_READ;
    const gap = bits ? maxGap * 16 : maxGap;
    const planned = points
      .filter((p) => (p.object_type ?? 'holding register') === table)
      .map((p) => plannedPoint(p, bits))
      .sort((a, b) => a.point.address - b.point.address);
    let run: ReadRun | null = null;
    for (const pp of planned) {
      const start = pp.point.address;
      const end = start + pp.width;
      if (run) {
        const runEnd = run.address + run.count;
        if (start - runEnd <= gap && end - run.address <= limit) {
          run.count = Math.max(runEnd, end) - run.address;
          run.points.push({ ...pp, at: start - run.address });
          continue;
        }
      }
      run = { table, address: start, count: pp.width, points: [{ ...pp, at: 0 }] };
      runs.push(run);
    }
  }
  return runs;
}

function plannedPoint(p: PollPoint, bits: boolean): PlannedPoint {
  const dataType: ModbusDataType = bits ? 'bool' : (p.data_type ?? 'uint16');
  if (bits && p.data_type !== undefined && p.data_type !== 'bool') {
    throw new ReadPlanError(`point ${p.key}: a ${p.object_type} holds one bit, data_type must be bool, got ${p.data_type}`);
  }
  const width = bits ? 1 : REGISTER_COUNT[dataType];
  if (!Number.isInteger(p.address) || p.address < 0 || p.address + width > 65536) {
    throw new ReadPlanError(`point ${p.key}: address ${p.address} (+${width}) is outside 0..65535`);
  }
  if (p.scale === 0) throw new ReadPlanError(`point ${p.key}: scale must not be 0`);
  return { point: p, at: 0, dataType, order: p.order ?? 'LE', width };
}

/** The engineering value of one planned point from its run's answer. */
export function pointValue(pp: PlannedPoint, data: readonly number[]): number {
  const raw = pp.dataType === 'bool' ? (data[pp.at] ? 1 : 0) : decodeRaw(pp.dataType, pp.order, data, pp.at);
  return toEngineering(pp.dataType, raw, pp.point.scale ?? 1, pp.point.offset ?? 0);
}
