import { describe, expect, it } from 'vitest';
import { decodeRaw, decodeRegisters, encodeRegisters, roundHalfAway, toEngineering, type RegisterDataType } from '../../src/field/encoding.js';
import { planReads, pointValue, ReadPlanError } from '../../src/field/read-plan.js';
import { BusQueue } from '../../src/field/queue.js';
import { FieldFailure } from '../../src/field/errors.js';
import type { PollPoint } from '../../src/field/poll-types.js';
import { EXACT, MATRIX, caseName } from './matrix.js';

// The read side's pure parts: decode is the inverse of encode over the whole encoding matrix, the
// read plan's grouping, and the queue's write-first priority.

const regsOf = (hex: string): number[] => hex.split(' ').map((w) => parseInt(w, 16));

describe('decode = the inverse of encode', () => {
  for (const c of MATRIX) {
    it(caseName(c), () => {
      const scale = c.scale ?? 1;
      const regs = regsOf(c.hex);
      const values = decodeRegisters(c.data_type, c.order, regs, scale);
      // the registers a device holds read back as values that write the very same registers
      expect(encodeRegisters(c.data_type, c.order, values, scale)).toEqual(regs);
      const sent = Array.isArray(c.value) ? c.value : [c.value];
      expect(values).toHaveLength(sent.length);
      sent.forEach((x, i) => {
        const got = values[i]!;
        if (c.data_type === 'float32') expect(got).toBe(Math.fround(x * scale) / scale);
        else if (c.data_type === 'float64') expect(got).toBe((x * scale) / scale);
        // an integer type holds x to the nearest step of 1/scale, half away from zero
        else expect(got).toBe(toEngineering(c.data_type, roundHalfAway(Number((x * scale).toPrecision(15))), scale));
        if (c.data_type !== 'float32' && c.data_type !== 'float64') expect(Math.abs(got - x)).toBeLessThanOrEqual(0.5 / Math.abs(scale) + 1e-12);
      });
    });
  }

  for (const c of EXACT) {
    it(`exact: ${caseName(c)} reads ${c.device}`, () => {
      const scale = c.scale ?? 1;
      const [got] = decodeRegisters(c.data_type, c.order, regsOf(c.hex), scale);
      expect(Object.is(got, c.device / scale)).toBe(true);
    });
  }

  it('values that fit read back exactly, every type and order', () => {
    const samples: Record<RegisterDataType, number[]> = {
      int16: [-32768, -1, 0, 1, 32767],
      uint16: [0, 1, 4660, 65535],
      bool: [0, 1],
      int32: [-2147483648, -305419896, 0, 2147483647],
      uint32: [0, 65536, 3735928559, 4294967295],
      float32: [0, -2.25, 1.5, 21.5, 3.4028234663852886e38],
      float64: [Math.PI, -1e-300, 5e-324, 9007199254740994],
    };
    for (const order of ['LE', 'BE', 'CDAB', 'BADC'] as const) {
      for (const [type, xs] of Object.entries(samples) as [RegisterDataType, number[]][]) {
        expect(decodeRegisters(type, order, encodeRegisters(type, order, xs, 1)), `${type} ${order}`).toEqual(xs);
      }
    }
  });

  it('hand-decoded layouts', () => {
    expect(decodeRaw('int32', 'LE', regsOf('1234 5678'))).toBe(0x12345678);
    expect(decodeRaw('int32', 'BE', regsOf('7856 3412'))).toBe(0x12345678);
    expect(decodeRaw('int32', 'CDAB', regsOf('5678 1234'))).toBe(0x12345678);
    expect(decodeRaw('int32', 'BADC', regsOf('3412 7856'))).toBe(0x12345678);
    expect(decodeRaw('float32', 'LE', regsOf('41ac 0000'))).toBe(21.5);
    expect(decodeRaw('int16', 'LE', regsOf('fffe'))).toBe(-2);
    expect(decodeRaw('bool', 'LE', regsOf('00ff'))).toBe(1);
  });

  it('offset both ways: a write sends (value - offset) * scale, a read gives raw / scale + offset', () => {
    // a temperature in tenths of a degree above -40: 21.5 C is (21.5 + 40) * 10 = 615
    expect(encodeRegisters('int16', 'LE', 21.5, 10, -40)).toEqual([615]);
    expect(decodeRegisters('int16', 'LE', [615], 10, -40)).toEqual([21.5]);
    // decimal noise of the subtraction and of the division is removed for integer types
    expect(encodeRegisters('int16', 'LE', 21.6, 10, 0.1)).toEqual([215]);
    expect(decodeRegisters('int16', 'LE', [215], 10, 0.1)).toEqual([21.6]);
    expect(decodeRegisters('uint16', 'LE', [3], 0.1)).toEqual([30]);
    expect(decodeRegisters('float32', 'LE', encodeRegisters('float32', 'LE', 21.5, 10, -40), 10, -40)).toEqual([21.5]);
    expect(decodeRegisters('uint32', 'CDAB', encodeRegisters('uint32', 'CDAB', [12.5, 2], 100, 2), 100, 2)).toEqual([12.5, 2]);
    expect(() => encodeRegisters('uint32', 'LE', 1, 1, 2)).toThrow(/does not fit uint32/);
  });
});

const hr = (key: string, address: number, extra: Partial<PollPoint> = {}): PollPoint => ({ key, kind: 'reading', object_type: 'holding register', address, ...extra });

describe('read plan', () => {
  it('50 contiguous holding registers are one request', () => {
    const runs = planReads(Array.from({ length: 50 }, (_, i) => hr(`r${i}`, 100 + i)));
    expect(runs.map((r) => [r.table, r.address, r.count])).toEqual([['holding register', 100, 50]]);
  });

  it('splits at 125 registers and at gaps over 8; bridges gaps up to 8', () => {
    const runs = planReads([hr('a', 0, { data_type: 'float64' }), hr('b', 12), hr('c', 30), ...Array.from({ length: 130 }, (_, i) => hr(`x${i}`, 200 + i))]);
    expect(runs.map((r) => [r.address, r.count])).toEqual([[0, 13], [30, 1], [200, 125], [325, 5]]);
    expect(runs[0]!.points.map((p) => [p.point.key, p.at])).toEqual([['a', 0], ['b', 12]]);
    expect(planReads([hr('a', 0), hr('b', 9)], 0).map((r) => r.count)).toEqual([1, 1]);
  });

  it('one run per table; bits up to 2000; a 32-bit value never straddles two requests', () => {
    const points: PollPoint[] = [
      hr('h', 5),
      { key: 'i', kind: 'reading', object_type: 'input register', address: 5, data_type: 'float32', order: 'CDAB' },
      ...Array.from({ length: 2100 }, (_, i): PollPoint => ({ key: `c${i}`, kind: 'reading', object_type: 'coil', address: i })),
      { key: 'd', kind: 'setpoint', object_type: 'discrete input', address: 3 },
      hr('f', 123, { data_type: 'float32', order: 'LE' }),
      hr('g', 0),
    ];
    const runs = planReads(points);
    expect(runs.map((r) => [r.table, r.address, r.count])).toEqual([
      ['holding register', 0, 6],
      ['holding register', 123, 2],
      ['input register', 5, 2],
      ['coil', 0, 2000],
      ['coil', 2000, 100],
      ['discrete input', 3, 1],
    ]);
  });

  it('values come out of the run by position', () => {
    const [run] = planReads([hr('t', 10, { data_type: 'int16', scale: 10, offset: -40 }), hr('f', 12, { data_type: 'float32', order: 'CDAB' })]);
    const data = [615, 0xdead, ...encodeRegisters('float32', 'CDAB', 1.5, 1)];
    expect(run!.points.map((p) => pointValue(p, data))).toEqual([21.5, 1.5]);
  });

  it('refuses points that cannot be read as given', () => {
    expect(() => planReads([{ key: 'c', kind: 'reading', object_type: 'coil', address: 1, data_type: 'int16' }])).toThrow(ReadPlanError);
    expect(() => planReads([hr('x', 65535, { data_type: 'int32', order: 'LE' })])).toThrow(/outside/);
    expect(() => planReads([hr('x', 1, { scale: 0 })])).toThrow(/scale/);
  });
});

describe('bus queue priority', () => {
  const refusal = () => new FieldFailure('queue_full', 'Queue full');
  it('a write pushed while reads wait is on the wire next, never pre-empting the job on the wire', async () => {
    const q = new BusQueue('x', 4);
    const wire: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const job = (name: string, wait?: Promise<void>) => ({
      run: async () => {
        wire.push(`start ${name}`);
        if (wait) await wait;
        wire.push(`end ${name}`);
      },
      abandon: () => new FieldFailure('timeout', 't'),
      watchdogMs: 5000,
    });
    const all = [q.push(job('read1', gate), refusal, 'read'), q.push(job('read2'), refusal, 'read'), q.push(job('read3'), refusal, 'read')];
    all.push(q.push(job('write'), refusal, 'write'));
    expect(q.readsWaiting).toBe(2);
    release();
    await Promise.all(all);
    expect(wire).toEqual(['start read1', 'end read1', 'start write', 'end write', 'start read2', 'end read2', 'start read3', 'end read3']);
  });

  it('reads do not use up the write backlog', async () => {
    const q = new BusQueue('x', 1);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const job = { run: () => gate, abandon: () => new FieldFailure('timeout', 't'), watchdogMs: 5000 };
    const jobs = [q.push(job, refusal, 'read'), ...Array.from({ length: 10 }, () => q.push(job, refusal, 'read')), q.push(job, refusal, 'write')];
    await expect(q.push(job, refusal, 'write')).rejects.toMatchObject({ kind: 'queue_full' });
    release();
    await Promise.all(jobs);
  });
});
