// The simulator's register map: ONE declaration that the Modbus server serves, the adapter
// profile points at, and docs/simulator.md prints (registerMapMarkdown). The data types are
// chosen to exercise the box's codec: int16 and uint16 with scales, a float32, and uint32
// counters in CDAB word order.
import { REGISTER_COUNT, type ByteOrder, type RegisterDataType } from '../field/encoding.js';
import type { Readings, SetpointKey } from './model.js';

export type Table = 'input register' | 'holding register' | 'coil';

interface Base {
  /** The industry's name: a poultry reading key, a setpoint key, or (not polled) a status name. */
  key: string;
  table: Table;
  address: number;
  data_type: RegisterDataType;
  order?: ByteOrder;
  /** raw / scale = engineering value (the box's codec). */
  scale: number;
  unit: string;
  description: string;
}
export interface ReadingEntry extends Base {
  table: 'input register' | 'coil';
  source: keyof Readings;
  /** A poultry reading key the adapter profile polls (false: informational only). */
  polled: boolean;
}
export interface SetpointEntry extends Base {
  table: 'holding register';
  key: SetpointKey;
  /** One register each: a write (FC 6 or 16) then always sets whole setpoints. */
  data_type: 'int16' | 'uint16';
  /** What the controller accepts; a write outside is refused with exception 03 (illegal value). */
  min: number;
  max: number;
}
export type MapEntry = ReadingEntry | SetpointEntry;

const reading = (e: Omit<ReadingEntry, 'polled'> & { polled?: boolean }): ReadingEntry => ({ polled: true, ...e });
const setpoint = (e: Omit<SetpointEntry, 'table' | 'data_type'> & { data_type?: SetpointEntry['data_type'] }): SetpointEntry => ({
  table: 'holding register', data_type: 'uint16', ...e,
});

export const REGISTER_MAP: readonly MapEntry[] = [
  reading({ key: 'temp', source: 'temp', table: 'input register', address: 0, data_type: 'int16', scale: 10, unit: '°C', description: 'inside temperature' }),
  reading({ key: 'humidity', source: 'humidity', table: 'input register', address: 1, data_type: 'uint16', scale: 10, unit: '% RH', description: 'relative humidity' }),
  reading({ key: 'co2', source: 'co2', table: 'input register', address: 2, data_type: 'uint16', scale: 1, unit: 'ppm', description: 'carbon dioxide' }),
  reading({ key: 'nh3', source: 'nh3', table: 'input register', address: 3, data_type: 'uint16', scale: 10, unit: 'ppm', description: 'ammonia' }),
  reading({ key: 'ventilation', source: 'ventilation', table: 'input register', address: 4, data_type: 'uint16', scale: 10, unit: '%', description: 'ventilation output (fans)' }),
  reading({ key: 'outside_temp', source: 'outside_temp', table: 'input register', address: 5, data_type: 'float32', order: 'LE', scale: 1, unit: '°C', description: 'outside temperature (daily sine 8..18 °C)' }),
  reading({ key: 'water_l', source: 'water_l', table: 'input register', address: 7, data_type: 'uint32', order: 'CDAB', scale: 1, unit: 'L', description: 'water meter (counter since start)' }),
  reading({ key: 'feed_kg', source: 'feed_kg', table: 'input register', address: 9, data_type: 'uint32', order: 'CDAB', scale: 10, unit: 'kg', description: 'feed scale (counter since start)' }),
  reading({ key: 'age_days', source: 'age_days', table: 'input register', address: 11, data_type: 'uint16', scale: 10, unit: 'days', description: 'flock age', polled: false }),
  reading({ key: 'birds', source: 'birds', table: 'input register', address: 12, data_type: 'uint32', order: 'CDAB', scale: 1, unit: 'birds', description: 'birds in the house', polled: false }),
  setpoint({ key: 'target_temp_c', address: 0, data_type: 'int16', scale: 10, unit: '°C', min: 5, max: 40, description: 'target temperature (heating setpoint; the fans start above it)' }),
  setpoint({ key: 'temp_tolerance_c', address: 1, scale: 10, unit: '°C', min: 0.5, max: 10, description: 'alarm band around the target' }),
  setpoint({ key: 'humidity_min_pct', address: 2, scale: 1, unit: '% RH', min: 0, max: 100, description: 'low humidity alarm' }),
  setpoint({ key: 'humidity_max_pct', address: 3, scale: 1, unit: '% RH', min: 10, max: 100, description: 'high humidity alarm; fans ramp up from 5 % below it' }),
  setpoint({ key: 'co2_max_ppm', address: 4, scale: 1, unit: 'ppm', min: 600, max: 10000, description: 'CO2 alarm; fans ramp up from 500 ppm below it' }),
  setpoint({ key: 'nh3_max_ppm', address: 5, scale: 1, unit: 'ppm', min: 5, max: 100, description: 'NH3 alarm; fans ramp up from 5 ppm below it' }),
  setpoint({ key: 'min_ventilation_pct', address: 6, scale: 10, unit: '%', min: 0, max: 100, description: 'minimum ventilation (the fans never run below it)' }),
  reading({ key: 'heating_on', source: 'heating_on', table: 'coil', address: 0, data_type: 'bool', scale: 1, unit: '0/1', description: 'heater running (read only)', polled: false }),
  reading({ key: 'alarm', source: 'alarm', table: 'coil', address: 1, data_type: 'bool', scale: 1, unit: '0/1', description: 'a reading is outside its setpoint limits (read only)', polled: false }),
];

export const registerCount = (e: MapEntry): number => (e.table === 'coil' ? 1 : REGISTER_COUNT[e.data_type]);

export const setpointEntries = (): SetpointEntry[] => REGISTER_MAP.filter((e): e is SetpointEntry => e.table === 'holding register');
export const readingEntries = (): ReadingEntry[] => REGISTER_MAP.filter((e): e is ReadingEntry => e.table !== 'holding register');

/** The map as the Markdown table docs/simulator.md carries (a test checks the two agree). */
export function registerMapMarkdown(): string {
  const rows = REGISTER_MAP.map((e) => {
    const last = e.address + registerCount(e) - 1;
    const where = last === e.address ? `${e.address}` : `${e.address}-${last}`;
    const range = e.table === 'holding register' ? `${e.min}..${e.max}` : '';
    return `| ${e.table} | ${where} | \`${e.key}\` | ${e.data_type} | ${e.order ?? ''} | ${e.scale} | ${e.unit} | ${range} | ${e.description} |`;
  });
  return [
    '| Table | Address | Key | Type | Order | Scale | Unit | Writable range | Meaning |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
