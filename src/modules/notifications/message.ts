// What a notification says, in the farm's words: the site, the house (or room, field) and the
// cause, the reading against its limit, since when, the priority and the escalation, and a link
// to the box when one is configured. E-mail gets subject and text; a webhook the same text and
// the facts as JSON.
import type { Config } from '../../config.js';
import { siteTimeZone } from '../../industry/site-day.js';
import { canonicalName, VOCABULARY, type Industry } from '../../industry/vocabulary.js';
import type { NotifyEvent, Suppression } from './schema.js';

/** An alarm event as the notifier sees it, from the box's alarm row or a site's synced event. */
export interface AlarmFacts {
  id: string;
  tenant_id: string;
  site_id: string | null;
  event: NotifyEvent;
  title: string;
  severity: string;
  priority: string | null;
  escalation_level: number;
  industry_code: string | null;
  unit_id: string | null;
  source: string;
  correlation_id: string | null;
  metric: string | null;
  value: number | null;
  threshold: number | null;
  /** Who acknowledged it (an acknowledgement event), if known. */
  acknowledged_by: string | null;
  /** How the reading compares with the limit to be an alarm (gt, lt, ...), if known. */
  comparator: string | null;
  /** When the condition began (raised_at), if known. */
  since: string | null;
  /** When this event happened (raise, escalation, clear). */
  at: string;
  /** Not annunciated at the event: shelved, or its unit out of service (no message then); null when it was, or unknown. */
  suppressed?: Suppression | null;
}

export interface Message {
  subject: string;
  text: string;
  payload: Record<string, unknown>;
}

const unitOf = (facts: AlarmFacts): string => {
  if (!facts.metric) return '';
  const industry = (['poultry', 'swine', 'melioration'] as const).find((i) => i === facts.industry_code) as Industry | undefined;
  const canonical = industry ? canonicalName(industry, facts.metric) : undefined;
  return canonical ? VOCABULARY[canonical].unit : '';
};

const amount = (n: number, unit: string) => `${Number.isInteger(n) ? n : Number(n.toFixed(2))}${unit ? ` ${unit}` : ''}`;

/** HH:MM on the site's clock, with the date when it is not today there. */
export function clockTime(iso: string, config: Config, now = new Date()): string {
  const zone = siteTimeZone(config);
  const at = new Date(iso);
  const day = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
  const time = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
  return day(at) === day(now) ? time : `${day(at)} ${time}`;
}

export function compose(facts: AlarmFacts, site: { name: string; link: string | null }, config: Config, now = new Date()): Message {
  const unit = unitOf(facts);
  const reading = facts.value !== null
    ? `, ${amount(facts.value, unit)}${facts.threshold !== null ? ` against a limit of ${amount(facts.threshold, unit)}` : ''}`
    : '';
  const since = facts.since ? `, since ${clockTime(facts.since, config, now)}` : '';
  const rank = [facts.priority, facts.severity].filter(Boolean).join(' ');
  const what = facts.event === 'cleared'
    ? `Cleared at ${clockTime(facts.at, config, now)}: ${facts.title}`
    : `${facts.title}${reading}${since}`;
  const status = {
    raised: 'New alarm, not acknowledged.',
    escalated: `Not acknowledged: escalation ${facts.escalation_level}.`,
    acknowledged: `Acknowledged${facts.acknowledged_by ? ` by ${facts.acknowledged_by}` : ''} at ${clockTime(facts.at, config, now)}; someone is on it.`,
    cleared: 'The condition has ended.',
  }[facts.event];
  const tag = { raised: '', escalated: `ESCALATION ${facts.escalation_level}: `, acknowledged: 'acknowledged: ', cleared: 'cleared: ' }[facts.event];
  const subject = `${site.name}: ${tag}${facts.title} [${rank}]`;
  const lines = [
    `Site ${site.name}`,
    `${what}.`,
    `${status} Priority ${facts.priority ?? 'none'}, severity ${facts.severity}.`,
    ...(site.link ? [`Open the box: ${site.link}`] : []),
    '',
    `Alarm ${facts.id}${facts.correlation_id ? `, correlation ${facts.correlation_id}` : ''}, from ${facts.source}.`,
  ];
  const text = lines.join('\n');
  const payload = {
    event: facts.event,
    site: { tenant_id: facts.tenant_id, site_id: facts.site_id, name: site.name, link: site.link },
    alarm: {
      id: facts.id, title: facts.title, severity: facts.severity, priority: facts.priority, escalation_level: facts.escalation_level, acknowledged_by: facts.acknowledged_by,
      industry_code: facts.industry_code, unit_id: facts.unit_id, source: facts.source, correlation_id: facts.correlation_id,
      metric: facts.metric, value: facts.value, threshold: facts.threshold, comparator: facts.comparator, unit: unit || null, since: facts.since, at: facts.at,
    },
    subject,
    text,
  };
  return { subject, text, payload };
}
