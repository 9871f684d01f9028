// The notification records as the box answers them, and the words the screen says them in: the
// encryption choices, priorities, the events a rule tells of, addresses typed one per line or
// with commas, houses (rooms, fields) typed by number, and a delivery's fate.
import { placeOf } from '../../lib/inbox';
import type { Session } from '../../lib/session';

export const API = '/api/v1';

export interface Channel {
  id: string; name: string; kind: 'email' | 'webhook'; enabled: boolean;
  smtp_host: string | null; smtp_port: number | null; smtp_tls: Tls | null; smtp_user: string | null; smtp_from: string | null;
  webhook_url: string | null; recipients: string[]; has_secret: boolean; site_name: string | null; link_url: string | null;
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
export const TLS_WORDS: Record<Tls, string> = {
  tls: 'Encrypted from the start (port 465)',
  starttls: 'Upgrade with STARTTLS (port 587)',
  none: 'None — only on a trusted network',
};
export const TLS_PORT: Record<Tls, number> = { tls: 465, starttls: 587, none: 25 };

export const PRIORITY_WORDS: Record<string, string> = { P1: 'P1 — act now', P2: 'P2 — act soon' };

export const EVENTS = [
  ['on_raise', 'A new alarm'],
  ['on_escalation', 'Not acknowledged in time (each escalation)'],
  ['on_ack', 'Someone acknowledged it'],
  ['on_clear', 'It is over'],
] as const;
export type EventFlag = (typeof EVENTS)[number][0];

/** The levels a rule covers, as the installer picks them. */
export const REACH = [
  { id: 'all', words: 'At once, and again at every escalation', min: 0, max: null },
  { id: 'raise', words: 'At once only', min: 0, max: 0 },
  { id: 'esc1', words: 'Only when not acknowledged in time (from the first escalation)', min: 1, max: null },
  { id: 'esc2', words: 'Only from the second escalation', min: 2, max: null },
] as const;
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

const NOUN: Record<string, [string, string]> = { poultry: ['house', 'houses'], swine: ['room', 'rooms'], melioration: ['field', 'fields'] };
/** "house"/"houses" on a poultry box; "unit" where the industry has no noun. */
export const unitNoun = (industry: string, plural = false) => (NOUN[industry] ?? ['house, room or field', 'houses, rooms or fields'])[plural ? 1 : 0]!;
export const place = (industry: string, unit: string) => placeOf(industry, unit) ?? unit;

/** "3, House 4, room-7" → ['3', '4', 'room-7']: the noun a person types in front of a number is not part of the id. */
export function unitIds(text: string): { ok: string[]; bad: string[] } {
  const parts = text.split(/[\n,;]+/).map((p) => p.trim().replace(/^(house|room|field)\s+/i, '')).filter(Boolean);
  const good = (p: string) => /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(p);
  return { ok: parts.filter(good), bad: parts.filter((p) => !good(p)) };
}

export const listWords = (xs: string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/** A rule in one sentence: which alarms, where to, when. */
export function ruleWords(r: Rule, channel: Channel | undefined, industry: string): string {
  const pri = r.priorities.length ? `${listWords(r.priorities)} alarms` : 'Alarms of any priority';
  const where = r.unit_ids.length ? ` of ${listWords(r.unit_ids.map((u) => place(industry, u)))}` : ` of every ${unitNoun(industry)}`;
  const to = channel ? (channel.kind === 'email' ? `e-mail to ${listWords(r.recipients.length ? r.recipients : channel.recipients) || 'nobody yet'}` : `the webhook ${channel.name}`) : 'a channel that no longer exists';
  const events = EVENTS.filter(([k]) => r[k]).map(([, w]) => w.toLowerCase());
  const reach = reachOf(r)?.words.toLowerCase() ?? `escalation levels ${r.min_escalation_level} to ${r.max_escalation_level ?? 'any'}`;
  return `${pri}${where} go by ${to}: ${events.length ? listWords(events) : 'no event chosen'}; ${reach}.`;
}

/** A delivery's last error said for a person (the box's own text where no pattern fits). */
export function errorWords(e: string | null): string {
  if (!e) return '';
  if (/ECONNREFUSED/.test(e)) return 'nothing answered at the server (connection refused)';
  if (/EAUTH|535/.test(e)) return 'the mail server refused the login';
  if (/ENOTFOUND|EAI_AGAIN|EDNS/.test(e)) return 'the server\'s name is not known';
  if (/timeout|timed out|ETIMEDOUT/i.test(e)) return 'the server did not answer in time';
  const hook = /the webhook answered HTTP (\d+)/.exec(e);
  if (hook) return `the receiver answered ${hook[1]}, not success`;
  return e;
}
