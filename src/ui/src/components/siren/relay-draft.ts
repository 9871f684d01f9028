// The siren relay screen's model: an output as alarm-relay/list gives it, the form's draft (text
// as typed, defaults filled in), the checks made as the installer types (the same limits the
// configure command applies, said in words), and the body the configure and check commands take.
// Words are read at call time (from render), in the reader's language.
import type { ErrorDetail } from '../../lib/api';
import { t, type MessageKey } from '../../lib/i18n';

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

/** Each transport's words, by key (in the form's order). */
export const TRANSPORT_WORDS: Record<Transport, MessageKey> = {
  'modbus-tcp': 'siren.transport.modbus_tcp',
  'modbus-rtu': 'siren.transport.modbus_rtu',
  bacnet: 'siren.transport.bacnet',
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

/** `needed`: the words for an empty field (none: it may stay empty). */
function whole(raw: string, min: number, max: number, needed: MessageKey | null): string | null {
  const v = raw.trim();
  if (v === '') return needed ? t(needed) : null;
  if (!/^\d+$/.test(v)) return t('siren.problem.whole', { min, max });
  const n = Number(v);
  return n < min || n > max ? t('siren.problem.range', { min, max }) : null;
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
    put('host', d.host.trim() === '' ? t('siren.problem.host_needed') : IPV4.test(d.host.trim()) ? null : t('siren.problem.host'));
    put('port', whole(d.port, 1, 65535, 'siren.problem.port_needed'));
    put('unit_id', whole(d.unit_id, 0, 255, 'siren.problem.unit_needed'));
  }
  if (d.transport === 'modbus-rtu') {
    put('serial_port', d.serial_port.trim() === '' ? t('siren.problem.serial_needed') : d.serial_port.length > 200 ? t('siren.problem.too_long', { max: 200 }) : null);
    put('baud_rate', whole(d.baud_rate, 300, 4_000_000, null));
    put('unit_id', whole(d.unit_id, 1, 247, 'siren.problem.unit_needed'));
  }
  if (d.transport !== 'bacnet') put('coil', whole(d.coil, 0, 65535, 'siren.problem.coil_needed'));
  else {
    put('device_instance', whole(d.device_instance, 0, 4194302, 'siren.problem.device_needed'));
    put('object_instance', whole(d.object_instance, 0, 4194303, 'siren.problem.object_needed'));
  }
  if (output === 'siren' && d.priorities.length === 0) out.priorities = t('siren.problem.priorities');
  put('period_s', whole(d.period_s, 1, 3600, 'siren.problem.period_needed'));
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

const REASONS: Record<string, MessageKey> = {
  required: 'siren.refused.required', out_of_range: 'siren.refused.out_of_range', invalid_format: 'siren.refused.invalid_format',
  invalid_type: 'siren.refused.invalid_type', unsupported_value: 'siren.refused.unsupported_value', siren_only: 'siren.refused.siren_only',
};

/** The box's refusal, field by field, in words; what names no field of the form is said apart. */
export function refusalOf(details: ErrorDetail[]): { fields: Partial<Record<Field, string>>; rest: string[] } {
  const fields: Partial<Record<Field, string>> = {};
  const rest: string[] = [];
  const fieldNames = new Set<string>(['host', 'port', 'serial_port', 'baud_rate', 'parity', 'unit_id', 'coil', 'device_instance', 'object_instance', 'priorities', 'period_s']);
  for (const d of details) {
    const known = REASONS[d.reason];
    const words = known ? t(known) : t('siren.refused.other', { reason: d.reason.replace(/_/g, ' ') });
    const f = d.field.split('.')[0] ?? '';
    if (fieldNames.has(f)) fields[f as Field] = words;
    else rest.push(words);
  }
  return { fields, rest };
}
