import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { adapterBodySchema, adapterPointSchema } from '../../src/industry/dispatch.js';
import { adapterProfile } from '../../src/simulate/profile.js';
import { REGISTER_MAP, registerCount, registerMapMarkdown } from '../../src/simulate/register-map.js';

// The reading declaration agreed between helpers (issue 21); the industry helper implements it.
const ITEM_KEYS = ['id', 'tenant_id', 'site_id', 'unit_id', 'controller_id', 'transport', 'host', 'port', 'serial_path', 'modbus_unit_id',
  'device_instance', 'points', 'poll_period_s', 'loss_after_misses', 'comm_loss_priority', 'readings'];
const READING_KEYS = ['key', 'object_type', 'address', 'data_type', 'order', 'scale', 'offset', 'bacnet_object_type', 'property', 'period_s', 'cov'];
const POULTRY_READINGS = ['temp', 'humidity', 'co2', 'nh3', 'ventilation', 'water_l', 'feed_kg', 'outside_temp'];
const POULTRY_SETPOINTS = ['target_temp_c', 'temp_tolerance_c', 'humidity_min_pct', 'humidity_max_pct', 'co2_max_ppm', 'nh3_max_ppm', 'min_ventilation_pct'];

describe('simulator adapter profile', () => {
  const { item } = adapterProfile({ house: 3, port: 5020 });

  it('has only the agreed keys, poultry reading names and every poultry setpoint', () => {
    for (const k of Object.keys(item)) expect(ITEM_KEYS).toContain(k);
    for (const r of item.readings) {
      for (const k of Object.keys(r)) expect(READING_KEYS).toContain(k);
      expect(POULTRY_READINGS).toContain(r.key);
    }
    expect(item.points.map((p) => p.key).sort()).toEqual([...POULTRY_SETPOINTS].sort());
    expect(item).toMatchObject({ transport: 'modbus-tcp', host: '127.0.0.1', port: 5020, modbus_unit_id: 3, unit_id: '3', poll_period_s: 10 });
    expect(item.poll_period_s).toBeGreaterThanOrEqual(1);
    expect(item.loss_after_misses).toBeGreaterThanOrEqual(1);
  });

  it('every reading and setpoint point is a register map entry: same table, address, type, order and scale', () => {
    for (const p of [...item.readings, ...item.points]) {
      const e = REGISTER_MAP.find((m) => m.key === p.key);
      expect(e, p.key).toBeDefined();
      expect({ table: p.object_type, address: p.address, data_type: p.data_type, order: 'order' in p ? p.order : undefined, scale: p.scale })
        .toEqual({ table: e!.table, address: e!.address, data_type: e!.data_type, order: e!.order, scale: e!.scale });
    }
    // No two map entries of a table share a register.
    for (const table of ['input register', 'holding register', 'coil'] as const) {
      const used = REGISTER_MAP.filter((e) => e.table === table).flatMap((e) => Array.from({ length: registerCount(e) }, (_, i) => e.address + i));
      expect(new Set(used).size, table).toBe(used.length);
    }
  });

  it('what the current adapter schema knows of it validates (the reading fields arrive with the industry helper)', () => {
    const { readings: _r, poll_period_s: _p, loss_after_misses: _l, comm_loss_priority: _c, ...known } = item;
    const points = item.points.map(({ read_back: _rb, ...rest }) => rest);
    for (const p of points) expect(v.safeParse(adapterPointSchema, p).success, p.key).toBe(true);
    const parsed = v.safeParse(adapterBodySchema, { ...known, points });
    expect(parsed.issues?.map((i) => i.message)).toBeUndefined();
  });

  it('over RTU the profile names the serial line instead of host and port', () => {
    const rtu = adapterProfile({ house: 1, serial_path: '/dev/ttyUSB0' }).item;
    expect(rtu).toMatchObject({ transport: 'modbus-rtu', serial_path: '/dev/ttyUSB0', modbus_unit_id: 1 });
    expect(rtu).not.toHaveProperty('host');
  });

  it('docs/simulator.md carries the register map table generated from the same declaration', () => {
    const doc = readFileSync(new URL('../../docs/simulator.md', import.meta.url), 'utf8');
    expect(doc).toContain(registerMapMarkdown());
    const shown = /## The adapter profile[\s\S]*?```json\n([\s\S]*?)\n```/.exec(doc)?.[1];
    expect(JSON.parse(shown ?? 'null')).toEqual(adapterProfile({ house: 1 }));
  });
});
