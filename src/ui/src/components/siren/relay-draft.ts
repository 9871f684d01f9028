// The siren relay screen's model: an output as alarm-relay/list gives it, the form's draft (text
// as typed, defaults filled in), the checks made as the installer types (the same limits the
// configure command applies, said in words), and the body the configure and check commands take.
import type { ErrorDetail } from '../../lib/api';

export type OutputName = 'siren' | 'watchdog';
export type Transport = 'modbus-tcp' | 'modbus-rtu' | 'bacnet';
export const PRIORITIES = ['P1', 'P2'] as const;

export interface OutputSettings {
  enabled: boolean; transport: Transport; host: string | null; port: number | null; serial_port: string | null; baud_rate: number | null;
  parity: string | null; unit_id: number | null; coil: number | null; device_instance: number | null; object_instance: number | null;
  priorities: string[]; period_s: number;
}

export interface OutputView {
  output: OutputName; configured: boolean; enabled: boolean; transport: Transport | null; target: string | null; priorities: string[]; period_s: number | null;
  energised: boolean | null; driving_alarms: number; healthy: boolean | null; failing: boolean; failing_since: string | null; alarm_id: string | null;
  last_write_at: string | null; last_ok_at: string | null; last_error: string | null; pulse_until: string | null; settings: OutputSettings | null;
}

export interface Draft {
  transport: Transport; host: string; port: string; serial_port: string; baud_rate: string; parity: string; unit_id: string; coil: string;
  device_instance: string; object_instance: string; priorities: string[]; period_s: string; enabled: boolean;
}
export type Field = Exclude<keyof Draft, 'enabled'>;

export const DEFAULT_PERIOD: Record<OutputName, number> = { siren: 60, watchdog: 10 };

export const TRANSPORT_WORDS: Record<Transport, string> = {
  'modbus-tcp': 'I/O module on the network (Modbus TCP)',
  'modbus-rtu': 'I/O module on a serial cable (Modbus RTU, RS485)',
  bacnet: 'BACnet binary output',
};

const txt = (n: number | null | undefined, fallback = '') => (n === null || n === undefined ? fallback : String(n));

export function draftOf(o: OutputView): Draft {
  const s = o.settings;
  return {
    transport: s?.transport ?? 'modbus-tcp', host: s?.host ?? '', port: txt(s?.port, '502'), serial_port: s?.serial_port ?? '/dev/ttyUSB0',
    baud_rate: txt(s?.baud_rate), parity: s?.parity ?? '', unit_id: txt(s?.unit_id, '1'), coil: txt(s?.coil, '0'),
    device_instance: txt(s?.device_instance), object_instance: txt(s?.object_instance),
    priorities: s?.priorities.length ? [...s.priorities] : ['P1'], period_s: txt(s?.period_s, String(DEFAULT_PERIOD[o.output])), enabled: s?.enabled ?? true,
  };
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function whole(raw: string, min: number, max: number, what: string, optional = false): string | null {
  const t = raw.trim();
  if (t === '') return optional ? null : `Needed: ${what}.`;
  if (!/^\d+$/.test(t)) return `A whole number, ${min} to ${max}.`;
  const n = Number(t);
  return n < min || n > max ? `From ${min} to ${max}.` : null;
}

/** The fields this transport uses, in the form's order. */
export function fieldsOf(output: OutputName, t: Transport): Field[] {
  const where: Field[] = t === 'modbus-tcp' ? ['host', 'port', 'unit_id', 'coil'] : t === 'modbus-rtu' ? ['serial_port', 'baud_rate', 'parity', 'unit_id', 'coil'] : ['device_instance', 'object_instance'];
  return [...where, ...(output === 'siren' ? (['priorities'] as Field[]) : []), 'period_s'];
}

/** What is wrong with each field as typed, in words (none: an empty map). */
export function problems(output: OutputName, d: Draft): Partial<Record<Field, string>> {
  const out: Partial<Record<Field, string>> = {};
  const put = (f: Field, p: string | null) => { if (p) out[f] = p; };
  if (d.transport === 'modbus-tcp') {
    put('host', d.host.trim() === '' ? 'Needed: the I/O module\'s address.' : IPV4.test(d.host.trim()) ? null : 'Not a network address: four numbers with dots, like 192.168.1.20.');
    put('port', whole(d.port, 1, 65535, 'the port (502 for most modules)'));
    put('unit_id', whole(d.unit_id, 0, 255, 'the unit'));
  }
  if (d.transport === 'modbus-rtu') {
    put('serial_port', d.serial_port.trim() === '' ? 'Needed: the serial port, like /dev/ttyUSB0.' : d.serial_port.length > 200 ? 'At most 200 characters.' : null);
    put('baud_rate', whole(d.baud_rate, 300, 4_000_000, 'the speed', true));
    put('unit_id', whole(d.unit_id, 1, 247, 'the unit'));
  }
  if (d.transport !== 'bacnet') put('coil', whole(d.coil, 0, 65535, 'the coil number'));
  else {
    put('device_instance', whole(d.device_instance, 0, 4194302, 'the device number'));
    put('object_instance', whole(d.object_instance, 0, 4194303, 'the binary output number'));
  }
  if (output === 'siren' && d.priorities.length === 0) out.priorities = 'Choose at least one priority.';
  put('period_s', whole(d.period_s, 1, 3600, 'the period in seconds'));
  return out;
}

/** The configure (and check) body; only the fields of the chosen transport. */
export function bodyOf(output: OutputName, d: Draft): Record<string, unknown> {
  const n = (s: string) => Number(s.trim());
  const b: Record<string, unknown> = { output, transport: d.transport, enabled: d.enabled, period_s: n(d.period_s) };
  if (output === 'siren') b.priorities = PRIORITIES.filter((p) => d.priorities.includes(p));
  if (d.transport === 'modbus-tcp') Object.assign(b, { host: d.host.trim(), port: n(d.port), unit_id: n(d.unit_id), coil: n(d.coil) });
  else if (d.transport === 'modbus-rtu') {
    Object.assign(b, { serial_port: d.serial_port.trim(), unit_id: n(d.unit_id), coil: n(d.coil) });
    if (d.baud_rate.trim()) b.baud_rate = n(d.baud_rate);
    if (d.parity) b.parity = d.parity;
  } else Object.assign(b, { device_instance: n(d.device_instance), object_instance: n(d.object_instance) });
  return b;
}

const REASONS: Record<string, string> = {
  required: 'The box needs this.', out_of_range: 'The box refused it: out of range.', invalid_format: 'The box refused it: not in the right form.',
  invalid_type: 'The box refused it: a whole number is needed.', unsupported_value: 'The box does not know this choice.', siren_only: 'Only the siren has priorities.',
};

/** The box's refusal, field by field, in words; what names no field of the form is said apart. */
export function refusalOf(details: ErrorDetail[]): { fields: Partial<Record<Field, string>>; rest: string[] } {
  const fields: Partial<Record<Field, string>> = {};
  const rest: string[] = [];
  const known = new Set<string>(['host', 'port', 'serial_port', 'baud_rate', 'parity', 'unit_id', 'coil', 'device_instance', 'object_instance', 'priorities', 'period_s']);
  for (const d of details) {
    const words = REASONS[d.reason] ?? `The box refused it (${d.reason.replace(/_/g, ' ')}).`;
    const f = d.field.split('.')[0] ?? '';
    if (known.has(f)) fields[f as Field] = words;
    else rest.push(words);
  }
  return { fields, rest };
}
