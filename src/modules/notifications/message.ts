// What a notification says, in the farm's words and in the channel's language: the site, the
// house (or room, field) and the cause, the reading against its limit, since when, the priority
// and the escalation, and a link to the box when one is configured. E-mail gets subject and text;
// a webhook the same text and the facts as JSON.
//
// Every word comes from the catalogue (src/i18n/messages/<lang>/notifications.json), rendered with
// the channel's translator (its language, else site_language; numbers and dates in that language
// at the site's region; times on the site's clock, site_timezone and site_clock). The alarm's own
// title and cause are its message keys with their parameters where the alarm has them and the
// catalogue knows the key; else the English the alarm was stored with (older alarms, texts typed
// by people, a site's synced event from an older box).
import type { Config } from '../../config.js';
import type { Services } from '../../kernel/context.js';
import { siteTimeZone } from '../../industry/site-day.js';
import { canonicalName, VOCABULARY, type Industry } from '../../industry/vocabulary.js';
import { BASE_LANGUAGE } from '../../i18n/languages.js';
import type { MessageParams, Translator } from '../../i18n/translate.js';
import type { NotifyEvent, Suppression } from './schema.js';

/** An alarm's own text parameters, as its message keys take them (primitive values only). */
export type TextParams = Record<string, string | number | boolean | null>;

/** An alarm event as the notifier sees it, from the box's alarm row or a site's synced event. */
export interface AlarmFacts {
  id: string;
  tenant_id: string;
  site_id: string | null;
  event: NotifyEvent;
  /** The English title the alarm was stored with. */
  title: string;
  /** The title's message key (the box's own texts), when the alarm has one. */
  title_key?: string | null;
  /** The English cause ("check its power and its cable"), when the alarm has one. */
  message?: string | null;
  message_key?: string | null;
  /** The parameters of title_key and message_key. */
  text_params?: TextParams | null;
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
  /** The language it is written in (the channel's, or the site's default; English for a language no catalogue has any more). */
  language: string;
  subject: string;
  text: string;
  payload: Record<string, unknown>;
}

/** The translator of a channel: its language, else the site's default. */
export function channelTranslator(services: Pick<Services, 'catalogues' | 'config'>, channel: { language?: string | null }): Translator {
  return services.catalogues.translator(channel.language ?? services.config.site_language, services.config.site_locale);
}

/** The primitive values of an alarm's text_params (an object, or its JSON as some rows hold it); null when there are none. */
export function textParamsOf(value: unknown): TextParams | null {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const out: TextParams = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (typeof x === 'string' || typeof x === 'boolean' || x === null || (typeof x === 'number' && Number.isFinite(x))) out[k] = x;
  }
  return out;
}

/** A text the box wrote: its key in the translator's language where the catalogue has it, else the English stored beside it. */
export function alarmText(tr: Translator, key: string | null | undefined, params: TextParams | null | undefined, english: string): string {
  if (!key || !tr.has(key)) return english;
  const out = tr.t(key, (params ?? undefined) as MessageParams | undefined);
  return out === key ? english : out;
}

const unitOf = (facts: AlarmFacts): string => {
  if (!facts.metric) return '';
  const industry = (['poultry', 'swine', 'melioration'] as const).find((i) => i === facts.industry_code) as Industry | undefined;
  const canonical = industry ? canonicalName(industry, facts.metric) : undefined;
  return canonical ? VOCABULARY[canonical].unit : '';
};

/** A reading with its unit, in the language's digits (14.2 °C; 14,2 °C in Russian); at most two decimals, no grouping (a reading, not an amount). */
const amount = (tr: Translator, n: number, unit: string) =>
  `${new Intl.NumberFormat(tr.locale, { maximumFractionDigits: 2, useGrouping: false }).format(n)}${unit ? ` ${unit}` : ''}`;

/**
 * An instant as the site's clock reads it, in the translator's language: its time (HH:MM, or the
 * 12-hour clock where site_clock says so), and its day only when that is not today on the site.
 * English writes the day as 2026-11-24 (unambiguous wherever the mail is read); other languages
 * their own numeric date (24.11.2026, 24/11/2026).
 */
export function siteInstant(iso: string, tr: Translator, config: Config, now = new Date()): { time: string; day: string; hasDay: 'yes' | 'no' } {
  const timeZone = siteTimeZone(config);
  const at = new Date(iso);
  const key = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
  const time = new Intl.DateTimeFormat(tr.language === BASE_LANGUAGE ? 'en-GB' : tr.locale, { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: config.site_clock === '12h' ? 'h12' : 'h23' }).format(at);
  if (key(at) === key(now)) return { time, day: '', hasDay: 'no' };
  const day = tr.language === BASE_LANGUAGE ? key(at) : new Intl.DateTimeFormat(tr.locale, { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
  return { time, day, hasDay: 'yes' };
}

/** A severity in the language (critical, высокая, ...); one the catalogue does not name as it is. */
export const severityWord = (tr: Translator, severity: string): string => {
  const key = `notifications.severity.${severity}`;
  return tr.has(key) ? tr.t(key) : severity;
};

/** Parameters as a message takes them: an instant (`*_at`, RFC 3339, as the box's texts keep times) as the site's clock reads it in this language. */
function localParams(params: TextParams | null | undefined, tr: Translator, config: Config, now: Date): TextParams | null {
  if (!params) return null;
  const out: TextParams = {};
  for (const [k, v] of Object.entries(params)) {
    const instant = k.endsWith('_at') && typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? siteInstant(v, tr, config, now) : undefined;
    out[k] = instant ? (instant.day ? `${instant.day} ${instant.time}` : instant.time) : v;
  }
  return out;
}

export function compose(facts: AlarmFacts, site: { name: string; link: string | null }, config: Config, tr: Translator, now = new Date()): Message {
  const unit = unitOf(facts);
  const params = localParams(facts.text_params, tr, config, now);
  const title = alarmText(tr, facts.title_key, params, facts.title);
  const cause = facts.message || facts.message_key ? alarmText(tr, facts.message_key, params, facts.message ?? '') : '';
  const severity = severityWord(tr, facts.severity);
  const priority = facts.priority ?? 'none';
  const at = siteInstant(facts.at, tr, config, now);
  const since = facts.since ? siteInstant(facts.since, tr, config, now) : undefined;
  const what = facts.event === 'cleared'
    ? tr.t('notifications.message.cleared_at', { title, ...at })
    : tr.t('notifications.message.what', {
      title,
      reading: facts.value === null ? 'none' : facts.threshold === null ? 'value' : 'limit',
      value: facts.value === null ? '' : amount(tr, facts.value, unit),
      limit: facts.threshold === null ? '' : amount(tr, facts.threshold, unit),
      hasSince: since ? 'yes' : 'no', sinceTime: since?.time ?? '', sinceDay: since?.day ?? '', hasSinceDay: since?.hasDay ?? 'no',
    });
  const status = {
    raised: () => tr.t('notifications.message.status.raised'),
    escalated: () => tr.t('notifications.message.status.escalated', { level: facts.escalation_level }),
    acknowledged: () => tr.t('notifications.message.status.acknowledged', { hasWho: facts.acknowledged_by ? 'yes' : 'no', who: facts.acknowledged_by ?? '', ...at }),
    cleared: () => tr.t('notifications.message.status.cleared'),
  }[facts.event]();
  const subject = tr.t('notifications.message.subject', {
    site: site.name, event: facts.event, level: facts.escalation_level, title,
    rank: tr.t('notifications.message.rank', { priority, severity }),
  });
  const lines = [
    tr.t('notifications.message.site', { site: site.name }),
    what,
    ...(cause ? [cause] : []),
    `${status} ${tr.t('notifications.message.rank_line', { priority, severity })}`,
    ...(site.link ? [tr.t('notifications.message.link', { link: site.link })] : []),
    '',
    tr.t('notifications.message.reference', { id: facts.id, hasCorrelation: facts.correlation_id ? 'yes' : 'no', correlation: facts.correlation_id ?? '', source: facts.source }),
  ];
  const text = lines.join('\n');
  const payload = {
    event: facts.event,
    // The language subject, text and alarm.rendered are written in; every other field is the same in any language.
    language: tr.language,
    site: { tenant_id: facts.tenant_id, site_id: facts.site_id, name: site.name, link: site.link },
    alarm: {
      id: facts.id, title: facts.title, severity: facts.severity, priority: facts.priority, escalation_level: facts.escalation_level, acknowledged_by: facts.acknowledged_by,
      industry_code: facts.industry_code, unit_id: facts.unit_id, source: facts.source, correlation_id: facts.correlation_id,
      metric: facts.metric, value: facts.value, threshold: facts.threshold, comparator: facts.comparator, unit: unit || null, since: facts.since, at: facts.at,
      message: facts.message ?? null, title_key: facts.title_key ?? null, message_key: facts.message_key ?? null, text_params: facts.text_params ?? null,
      rendered: { title, message: cause || null },
    },
    subject,
    text,
  };
  return { language: tr.language, subject, text, payload };
}
