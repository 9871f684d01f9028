// toPolledDevices: an adapter profile row as the poller's device (id, kinds, codec, defaults),
// and the write request's offset: what a profile writes it reads back the same way.
import { describe, expect, it } from 'vitest';
import { toPolledDevices } from '../../src/industry/polled-devices.js';
import { rpcRequest, type AdapterRow } from '../../src/industry/dispatch.js';

const row = (extra: Partial<AdapterRow> = {}): AdapterRow => ({
  id: 'a1', tenant_id: 'tA', site_id: 's1', unit_id: 'house-3', controller_id: 'house-3-climate', transport: 'modbus-tcp', host: '10.0.0.5', port: null,
  serial_path: null, modbus_unit_id: 2, device_instance: null,
  points: [{ key: 'target_temp_c', address: 100, scale: 10, offset: -40 }, { key: 'min_ventilation_pct', address: 101, read_back: false }],
  readings: [{ key: 'temp', address: 0, scale: 10, offset: -40, period_s: 5 }, { key: 'ventilation', object_type: 'coil', address: 3 }],
  poll_period_s: null, loss_after_misses: null, comm_loss_priority: null, created_at: '', updated_at: '', ...extra,
});

describe('toPolledDevices', () => {
  it('makes readings and read-back setpoints points, with the codec and the defaults', () => {
    const [d] = toPolledDevices('poultry', [row()]);
    expect(d).toEqual({
      id: 'poultry:a1', industry: 'poultry', tenant_id: 'tA', site_id: 's1', unit_id: 'house-3', controller_id: 'house-3-climate', transport: 'modbus-tcp',
      host: '10.0.0.5', port: 502, modbus_unit_id: 2, period_ms: 10_000, loss_after_misses: 3,
      points: [
        { key: 'temp', kind: 'reading', object_type: 'input register', address: 0, data_type: 'int16', scale: 10, offset: -40, period_ms: 5000 },
        { key: 'ventilation', kind: 'reading', object_type: 'coil', address: 3, data_type: 'bool' },
        { key: 'target_temp_c', kind: 'setpoint', object_type: 'holding register', address: 100, data_type: 'int16', scale: 10, offset: -40 },
      ],
    });
  });

  it('uses the profile\'s period and misses, and leaves out a profile with nothing to read', () => {
    const devices = toPolledDevices('swine', [
      row({ id: 'b', poll_period_s: 2, loss_after_misses: 5 }),
      row({ id: 'quiet', readings: [], points: [{ key: 'target_temp_c', address: 1, read_back: false }] }),
      row({ id: 'old', readings: null, site_id: null }),
    ]);
    // A profile of no site keeps site_id null: the device's events and the list say so.
    expect(devices[1]!.site_id).toBeNull();
    expect(devices.map((d) => [d.id, d.period_ms, d.loss_after_misses, d.points.length])).toEqual([['swine:b', 2000, 5, 3], ['swine:old', 10_000, 3, 1]]);
  });

  it('writes (value - offset) * scale: the field service gets value - offset with the scale', () => {
    const modbus = rpcRequest(row(), { target_temp_c: 26.5 }).request.params[0]!;
    expect(modbus).toMatchObject({ object_address: 100, value: 66.5, scale: 10 });
    const bacnet = rpcRequest(row({ transport: 'bacnet', device_instance: 9, points: [{ key: 'target_temp_c', address: 1, bacnet_object_type: 2, scale: 10, offset: -40 }] }), { target_temp_c: 26.5 }).request.params[0]!;
    expect(bacnet).toMatchObject({ value: 665, object_instance: 1 });
  });
});
