// The notification records as the box answers them, and the words the screen says them in (the
// notifications area of the catalogue, read at render time): the encryption choices, priorities,
// the events a rule tells of, addresses typed one per line or with commas, houses (rooms, fields)
// typed by number, and a delivery's fate.
import { placeOf } from '../../lib/inbox';
import { boxText, readerLocale, t, type MessageKey } from '../../lib/i18n';
import type { Session } from '../../lib/session';

export const API = '/api/v1';

export interface Channel {
  id: string; name: string; kind: 'email' | 'webhook'; enabled: boolean;
  smtp_host: string | null; smtp_port: number | null; smtp_tls: Tls | null; smtp_user: string | null; smtp_from: string | null;
  webhook_url: string | null; recipients: string[]; has_secret: boolean; site_name: string | null; link_url: string | null;
  /** The language its messages are written in; null: the site's default. */
  language: string | null;
}
export interface Rule {
  id: string; name: string; channel_id: string; site_id: string | null; recipients: string[]; priorities: string[]; severities: string[]; unit_ids: string[];
  min_escalation_level: number; max_escalation_level: number | null; on_raise: boolean; on_escalation: boolean; on_ack: boolean; on_clear: boolean; enabled: boolean;
}
export interface Delivery {
  id: string; channel_id: string; kind: 'email' | 'webhook'; recipient: string; event: string; escalation_level: number; priority: string | null; subject: string;
  status: 'pending' | 'sent' | 'failed' | 'suppressed'; suppressed: 'out_of_service' | 'shelved' | null; attempts: number;
  next_attempt_at: string | null; last_error: string | null; created_at: string; sent_at: string | null;
}

export type Tls = 'tls' | 'starttls' | 'none';
/** The encryption choices, in the order the form offers them. */
export const TLS_MODES: readonly Tls[] = ['tls', 'starttls', 'none'];
const TLS_KEYS: Record<Tls, MessageKey> = { tls: 'notifications.tls.tls', starttls: 'notifications.tls.starttls', none: 'notifications.tls.none' };
/** An encryption choice in words ("Upgrade with STARTTLS (port 587)"). */
export const tlsWords = (tls: Tls): string => t(TLS_KEYS[tls]);
export const TLS_PORT: Record<Tls, number> = { tls: 465, starttls: 587, none: 25 };

/** The priorities a rule offers, each said with what it asks of the crew. */
export const PRIORITIES = ['P1', 'P2'] as const;
const PRIORITY_KEYS: Record<(typeof PRIORITIES)[number], MessageKey> = { P1: 'notifications.priority.P1', P2: 'notifications.priority.P2' };
export const priorityWords = (p: (typeof PRIORITIES)[number]): string => t(PRIORITY_KEYS[p]);

/** The events a rule may tell of: the form's label, and the same in the middle of a rule's sentence. */
export const EVENTS = [
  ['on_raise', 'notifications.event.on_raise', 'notifications.event_in_sentence.on_raise'],
  ['on_escalation', 'notifications.event.on_escalation', 'notifications.event_in_sentence.on_escalation'],
  ['on_ack', 'notifications.event.on_ack', 'notifications.event_in_sentence.on_ack'],
  ['on_clear', 'notifications.event.on_clear', 'notifications.event_in_sentence.on_clear'],
] as const satisfies readonly (readonly [string, MessageKey, MessageKey])[];
export type EventFlag = (typeof EVENTS)[number][0];

/** The levels a rule covers, as the installer picks them. */
export const REACH = [
  { id: 'all', words: 'notifications.reach.all', inSentence: 'notifications.reach_in_sentence.all', min: 0, max: null },
  { id: 'raise', words: 'notifications.reach.raise', inSentence: 'notifications.reach_in_sentence.raise', min: 0, max: 0 },
  { id: 'esc1', words: 'notifications.reach.esc1', inSentence: 'notifications.reach_in_sentence.esc1', min: 1, max: null },
  { id: 'esc2', words: 'notifications.reach.esc2', inSentence: 'notifications.reach_in_sentence.esc2', min: 2, max: null },
] as const satisfies readonly { id: string; words: MessageKey; inSentence: MessageKey; min: number; max: number | null }[];
export const reachOf = (r: Pick<Rule, 'min_escalation_level' | 'max_escalation_level'>) =>
  REACH.find((x) => x.min === r.min_escalation_level && x.max === r.max_escalation_level);

/** The permission matrix the shell has: may this person call that route? */
export const may = (s: Session, method: string, path: string) => s.ctx.policy.permissions.api[`api:${method} ${API}${path}`] === true;

const ADDRESS = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>".]+$/;
/** Addresses typed one per line or separated by commas (or semicolons): the good ones, and what is not an address. */
export function addresses(text: string): { ok: string[]; bad: string[] } {
  const parts = text.split(/[\n,;]+/).map((p) => p.trim()).filter(Boolean);
  return { ok: parts.filter((p) => ADDRESS.test(p)), bad: parts.filter((p) => !ADDRESS.test(p)) };
}
export const isAddress = (s: string) => ADDRESS.test(s.trim());

/** The industry as the words' select takes it: a noun of its own (house, room, field), or "other". */
export const industryOf = (industry: string): string => (['poultry', 'swine', 'melioration'].includes(industry) ? industry : 'other');

/** A house (room, field) as the crew says it, in the reader's language: "House 3", "Корпус 3"; an id that is no number as it is. */
export function place(industry: string, unit: string): string {
  const english = placeOf(industry, unit) ?? unit;
  const bare = /^(?:house|room|pen|field|h|r|f)?[\s_-]*(\d+[a-z]?)$/i.exec(unit)?.[1];
  return bare && industryOf(industry) !== 'other' ? boxText('box.place.unit', { industry, place: bare }, english) : english;
}

/** "3, House 4, room-7" → ['3', '4', 'room-7']: the noun a person types in front of a number is not part of the id. */
export function unitIds(text: string): { ok: string[]; bad: string[] } {
  const parts = text.split(/[\n,;]+/).map((p) => p.trim().replace(/^(house|room|field)\s+/i, '')).filter(Boolean);
  const good = (p: string) => /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(p);
  return { ok: parts.filter(good), bad: parts.filter((p) => !good(p)) };
}

const SEVERITY_KEYS: Record<string, MessageKey> = {
  critical: 'notifications.severity.critical', high: 'notifications.severity.high', medium: 'notifications.severity.medium',
  low: 'notifications.severity.low', info: 'notifications.severity.info', warning: 'notifications.severity.warning',
};
/** A severity in the reader's language; one the catalogue does not name as it is. */
export const severityWord = (severity: string): string => (SEVERITY_KEYS[severity] ? t(SEVERITY_KEYS[severity]) : severity);

/** A list in the reader's language: "a, b and c", "a, b и c". */
export const listWords = (xs: string[]): string => new Intl.ListFormat(readerLocale(), { style: 'long', type: 'conjunction' }).format(xs);

/** A rule in one sentence: which alarms, where to, when. */
export function ruleWords(r: Rule, channel: Channel | undefined, industry: string): string {
  const to = channel?.kind === 'email' ? listWords(r.recipients.length ? r.recipients : channel.recipients) : '';
  const events = EVENTS.filter(([k]) => r[k]).map(([, , inSentence]) => t(inSentence));
  const reach = reachOf(r);
  return t('notifications.rule.words', {
    priorities: r.priorities.length ? 'some' : 'any', which: listWords(r.priorities),
    units: r.unit_ids.length ? 'some' : 'every', places: listWords(r.unit_ids.map((u) => place(industry, u))), industry: industryOf(industry),
    channel: channel ? channel.kind : 'gone', hasTo: to ? 'yes' : 'no', to, name: channel?.name ?? '',
    hasEvents: events.length ? 'yes' : 'no', events: listWords(events),
    reach: reach ? t(reach.inSentence) : t('notifications.reach_in_sentence.custom', { min: r.min_escalation_level, hasMax: r.max_escalation_level === null ? 'no' : 'yes', max: r.max_escalation_level ?? 0 }),
  });
}

/** A delivery's last error said for a person (the box's own text where no pattern fits). */
export function errorWords(e: string | null): string {
  if (!e) return '';
  if (/ECONNREFUSED/.test(e)) return t('notifications.error.refused');
  if (/EAUTH|535/.test(e)) return t('notifications.error.login');
  if (/ENOTFOUND|EAI_AGAIN|EDNS/.test(e)) return t('notifications.error.unknown_host');
  if (/timeout|timed out|ETIMEDOUT/i.test(e)) return t('notifications.error.timeout');
  const hook = /the webhook answered HTTP (\d+)/.exec(e);
  if (hook) return t('notifications.error.answered', { status: hook[1]! });
  return e;
}
