// Whether a controller answers the box, in the installer's words, from the poller's link state
// (device-polling/list): "Answering, last reading 12 s ago", "Not answering since 10:42", "Bus lost
// since 10:42", "Not polled yet". The field service's failure messages ("Connection refused
// 127.0.0.1:5020 addr:0", "Error read register /dev/ttyUSB0 unit:3 addr:40 Illegal data address")
// are said as what to check, never as the raw text. Colour means priority: a lost controller is
// red only when its communication-loss alarm is a P1, amber for a P2.
import { formatTime } from '../../lib/format';
import { t } from '../../lib/i18n';

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
  if (s < 60) return t('adapters.ago.seconds', { n: s });
  if (s < 3600) return t('adapters.ago.minutes', { n: Math.floor(s / 60) });
  if (s < 48 * 3600) return t('adapters.ago.hours', { n: Math.floor(s / 3600) });
  return t('adapters.ago.days', { n: Math.floor(s / 86_400) });
}

/** "127.0.0.1:5020" -> "127.0.0.1 port 5020"; "/dev/ttyUSB0 unit:3" -> "/dev/ttyUSB0, unit 3". */
function placeWords(target: string): string {
  const tcp = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d+)$/.exec(target);
  if (tcp) return t('adapters.place.tcp', { host: tcp[1], port: tcp[2] });
  const unit = /^(.*?)\s+unit:(\d+)$/.exec(target);
  if (unit) return t('adapters.place.unit', { path: unit[1], unit: unit[2] });
  const device = /^(.*?)\bdevice:(\d+)(.*)$/.exec(target);
  return device ? `${device[1]}${t('adapters.place.bacnet', { device: device[2] })}${device[3]}` : target;
}

/** A Modbus exception (the field service's suffix) and the words for what to check (adapters.exception.<name>). */
const EXCEPTIONS: [RegExp, string][] = [
  [/Illegal data address/i, 'address'],
  [/Illegal function/i, 'function'],
  [/Illegal data value/i, 'value'],
  [/busy|Acknowledge/i, 'busy'],
  [/Gateway/i, 'gateway'],
  [/device failure|parity/i, 'failure'],
  [/Unexpected reply/i, 'unexpected'],
];

/** A field-service failure message as what happened and what to check. */
export function errorWords(message: string | null | undefined): string | null {
  if (!message) return null;
  const bus = /^(RS-485 bus (\S+)|Bus (\S+)) lost: ?(.*)$/.exec(message);
  if (bus) {
    const path = bus[2] ?? bus[3] ?? '';
    return path.startsWith('/') || bus[2] ? t('adapters.error.adapterLost', { path }) : t('adapters.error.lineLost', { line: path.replace(/^tcp:/, '') });
  }
  const m = /^(.+?) (\S+(?: unit:\d+)?) addr:(\d+)(?: (.*))?$/.exec(message);
  const what = m?.[1] ?? message;
  const where = m ? placeWords(m[2]!) : '';
  const suffix = m?.[4] ?? '';
  if (/^Connection refused/i.test(what)) return t('adapters.error.refused', { where });
  if (/^Host unreachable/i.test(what)) return t('adapters.error.unreachable', { where });
  if (/^Timeout/i.test(what)) return where ? t('adapters.error.timeout', { where }) : t('adapters.error.timeoutController');
  if (/^Connection lost/i.test(what)) return where ? t('adapters.error.dropped', { where }) : t('adapters.error.droppedController');
  if (/^CRC error/i.test(what)) return t('adapters.error.crc', { where });
  if (/^Queue full/i.test(what)) return t('adapters.error.queue');
  for (const [re, name] of EXCEPTIONS) {
    if (!re.test(suffix) && !re.test(what)) continue;
    const check = t(`adapters.exception.${name}` as 'adapters.exception.address');
    return m ? t('adapters.error.readingAt', { where, address: m[3], check }) : t('adapters.error.reading', { where, check });
  }
  // Anything else: the message without its codes.
  return message.replace(/\baddr:(\d+)/g, (_, a: string) => t('adapters.place.address', { address: a })).replace(/\bunit:(\d+)/g, (_, u: string) => t('adapters.place.unitOnly', { unit: u })).replace(/\b(E[A-Z]{3,}|ERR_[A-Z_]+)\b/g, '').replace(/\s{2,}/g, ' ').trim();
}

/**
 * The link of one adapter profile: `device` is its entry in device-polling/list (undefined when
 * the box does not poll it), `reads` whether the profile has anything to read, `priority` its
 * communication-loss priority.
 */
export function linkWords(device: PolledDevice | undefined, o: { reads: boolean; priority: string | null | undefined; now?: number }): LinkWords {
  const now = o.now ?? Date.now();
  const lostTone: LinkTone = o.priority === 'P2' ? 'warn' : 'alarm';
  if (!device) {
    return o.reads
      ? { kind: 'not_polled', tone: 'muted', headline: t('adapters.link.notPolledYet'), detail: t('adapters.link.startsSoon'), error: null }
      : { kind: 'nothing_to_read', tone: 'muted', headline: t('adapters.link.notPolled'), detail: t('adapters.link.writeOnly'), error: null };
  }
  if (device.state === 'ok') {
    const detail = device.last_ok_at ? t('adapters.link.lastReadingAgo', { ago: agoWords(device.last_ok_at, now) }) : t('adapters.link.noReadingYet');
    return { kind: 'answering', tone: 'ok', headline: t('adapters.link.answering'), detail, error: null };
  }
  if (device.state === 'lost' && device.reason === 'bus_lost') {
    return {
      kind: 'bus_lost', tone: lostTone, headline: device.lost_since ? t('adapters.link.busLostSince', { since: formatTime(device.lost_since) }) : t('adapters.link.busLost'),
      detail: device.last_ok_at ? t('adapters.link.lastReadingAt', { at: formatTime(device.last_ok_at) }) : t('adapters.link.noReadingYetCap'), error: errorWords(device.last_message),
    };
  }
  if (device.state === 'lost') {
    const since = device.lost_since ?? null;
    return {
      kind: 'lost', tone: lostTone, headline: since ? t('adapters.link.lostSince', { since: formatTime(since) }) : t('adapters.link.lost'),
      detail: device.last_ok_at ? t('adapters.link.missedLast', { n: device.misses, at: formatTime(device.last_ok_at) }) : t('adapters.link.missedNone', { n: device.misses }),
      error: errorWords(device.last_message),
    };
  }
  // Polled, not yet answered nor lost: the first reads are on their way (or failing, not yet a loss).
  return {
    kind: 'unknown', tone: 'muted', headline: t('adapters.link.notPolledYet'), detail: device.misses ? t('adapters.link.missedSoFar', { n: device.misses }) : t('adapters.link.firstOnItsWay'),
    error: errorWords(device.last_message),
  };
}
