// Whether a controller answers the box, in the installer's words, from the poller's link state
// (device-polling/list): "Answering, last reading 12 s ago", "Not answering since 10:42", "Bus lost
// since 10:42", "Not polled yet". The field service's failure messages ("Connection refused
// 127.0.0.1:5020 addr:0", "Error read register /dev/ttyUSB0 unit:3 addr:40 Illegal data address")
// are said as what to check, never as the raw text. Colour means priority: a lost controller is
// red only when its communication-loss alarm is a P1, amber for a P2.
import { formatTime } from '../../lib/format';

/** One controller of device-polling/list (the fields a screen reads). */
export interface PolledDevice {
  device_id: string;
  state: 'unknown' | 'ok' | 'lost';
  reason: 'bus_lost' | 'no_answer' | null;
  bus: string;
  misses: number;
  last_ok_at: string | null;
  last_message: string | null;
  lost_since?: string | null;
}

export type LinkKind = 'answering' | 'lost' | 'bus_lost' | 'not_polled' | 'nothing_to_read' | 'unknown';
export type LinkTone = 'ok' | 'alarm' | 'warn' | 'muted';

export interface LinkWords {
  kind: LinkKind;
  tone: LinkTone;
  headline: string;
  detail: string | null;
  /** The last failure, in words; null when there is none to tell. */
  error: string | null;
}

/** "12 s ago", "4 min ago", "3 h ago", "2 days ago". */
export function agoWords(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} days ago`;
}

/** "127.0.0.1:5020" -> "127.0.0.1 port 5020"; "/dev/ttyUSB0 unit:3" -> "/dev/ttyUSB0, unit 3". */
function placeWords(target: string): string {
  const tcp = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d+)$/.exec(target);
  if (tcp) return `${tcp[1]} port ${tcp[2]}`;
  return target.replace(/\s+unit:(\d+)/, ', unit $1').replace(/\bdevice:(\d+)/, 'BACnet device $1');
}

const EXCEPTION_WORDS: [RegExp, string][] = [
  [/Illegal data address/i, 'the controller has no such register: check the address and the register table'],
  [/Illegal function/i, 'the controller does not offer this register table: check the register table'],
  [/Illegal data value/i, 'the controller refused the value asked for: check the data type'],
  [/busy|Acknowledge/i, 'the controller was busy and did not answer the read'],
  [/Gateway/i, 'the gateway could not reach the controller behind it: check the gateway\'s cable to it and its unit id'],
  [/device failure|parity/i, 'the controller reported a fault of its own'],
  [/Unexpected reply/i, 'the controller answered something else than what was asked: check the unit id and that no other device answers at it'],
];

/** A field-service failure message as what happened and what to check. */
export function errorWords(message: string | null | undefined): string | null {
  if (!message) return null;
  const bus = /^(RS-485 bus (\S+)|Bus (\S+)) lost: ?(.*)$/.exec(message);
  if (bus) {
    const path = bus[2] ?? bus[3] ?? '';
    return path.startsWith('/') || bus[2] ? `The RS485 adapter ${path} does not answer: check that it is plugged in` : `The line to the controllers (${path.replace(/^tcp:/, '')}) does not answer: check the network`;
  }
  const m = /^(.+?) (\S+(?: unit:\d+)?) addr:(\d+)(?: (.*))?$/.exec(message);
  const what = m?.[1] ?? message;
  const where = m ? placeWords(m[2]!) : '';
  const at = m ? ` (address ${m[3]})` : '';
  const suffix = m?.[4] ?? '';
  if (/^Connection refused/i.test(what)) return `Nothing answers at ${where}: check that the controller is on and that the IP address and port are right`;
  if (/^Host unreachable/i.test(what)) return `The network does not reach ${where}: check the cable or the IP address`;
  if (/^Timeout/i.test(what)) return `No answer in time from ${where || 'the controller'}: check its power, its cable and its unit id`;
  if (/^Connection lost/i.test(what)) return `The connection to ${where || 'the controller'} dropped while reading: check the cable`;
  if (/^CRC error/i.test(what)) return `A garbled answer on the cable from ${where}: check the RS485 wiring and the line settings`;
  if (/^Queue full/i.test(what)) return 'Too many requests are waiting for this line: the box will try again';
  for (const [re, words] of EXCEPTION_WORDS) if (re.test(suffix) || re.test(what)) return `Reading ${where}${at}: ${words}`;
  // Anything else: the message without its codes.
  return message.replace(/\baddr:(\d+)/g, 'address $1').replace(/\bunit:(\d+)/g, 'unit $1').replace(/\b(E[A-Z]{3,}|ERR_[A-Z_]+)\b/g, '').replace(/\s{2,}/g, ' ').trim();
}

/**
 * The link of one adapter profile: `device` is its entry in device-polling/list (undefined when
 * the box does not poll it), `reads` whether the profile has anything to read, `priority` its
 * communication-loss priority.
 */
export function linkWords(device: PolledDevice | undefined, o: { reads: boolean; priority: string | null | undefined; now?: number }): LinkWords {
  const now = o.now ?? Date.now();
  const lostTone: LinkTone = o.priority === 'P2' ? 'warn' : 'alarm';
  const last = device?.last_ok_at ? `last reading ${agoWords(device.last_ok_at, now)}` : 'no reading yet';
  if (!device) {
    return o.reads
      ? { kind: 'not_polled', tone: 'muted', headline: 'Not polled yet', detail: 'The box starts reading it within a few seconds.', error: null }
      : { kind: 'nothing_to_read', tone: 'muted', headline: 'Not polled', detail: 'It has no reading and no setpoint read back: the box only writes to it.', error: null };
  }
  if (device.state === 'ok') return { kind: 'answering', tone: 'ok', headline: 'Answering', detail: last, error: null };
  if (device.state === 'lost' && device.reason === 'bus_lost') {
    return {
      kind: 'bus_lost', tone: lostTone, headline: device.lost_since ? `Bus lost since ${formatTime(device.lost_since)}` : 'Bus lost',
      detail: device.last_ok_at ? `Last reading ${formatTime(device.last_ok_at)}` : 'No reading yet', error: errorWords(device.last_message),
    };
  }
  if (device.state === 'lost') {
    const since = device.lost_since ?? null;
    return {
      kind: 'lost', tone: lostTone, headline: since ? `Not answering since ${formatTime(since)}` : 'Not answering',
      detail: `${device.misses} read${device.misses === 1 ? '' : 's'} missed in a row; ${device.last_ok_at ? `last reading ${formatTime(device.last_ok_at)}` : 'no reading yet'}`,
      error: errorWords(device.last_message),
    };
  }
  // Polled, not yet answered nor lost: the first reads are on their way (or failing, not yet a loss).
  return {
    kind: 'unknown', tone: 'muted', headline: 'Not polled yet', detail: device.misses ? `${device.misses} read${device.misses === 1 ? '' : 's'} missed so far` : 'The first reading is on its way.',
    error: errorWords(device.last_message),
  };
}
