// One output's live state in words: not set up (and what that means on this farm), switched off,
// energised or released (and why), or failing since a time with the field service's words and a
// link to its alarm in the inbox. Colour only where there is an alarm: a failing output is a P1.
import { since, stateWords, when } from '../alarm-words';
import { useNow } from '../hooks';
import { alarmStore } from '../../lib/alarms';
import { t, type MessageKey } from '../../lib/i18n';
import { href } from '../../lib/router';
import { useObservable } from '../../lib/store';
import { people } from '../../lib/people';
import type { OutputView } from './relay-draft';

export const NOT_SET: Record<OutputView['output'], MessageKey> = {
  siren: 'siren.not_set.siren',
  watchdog: 'siren.not_set.watchdog',
};

/** The messages' `priorities` argument: "P1", "P2", or "both" (said "P1 or P2" in the reader's words). */
function prioritiesArg(p: string[]): string {
  return p.length > 1 ? 'both' : (p[0] ?? 'P1');
}

/** What the output is doing now, as one sentence. */
function doing(o: OutputView, now: number): { badge: string; line: string } {
  const badge = t(o.energised ? 'siren.badge.energised' : 'siren.badge.released');
  if (o.energised === null) return { badge: t('siren.badge.not_driven'), line: t('siren.line.not_written') };
  if (o.output === 'siren') {
    const pulse = o.pulse_until && Date.parse(o.pulse_until) > now;
    if (o.energised) return { badge, line: pulse ? t('siren.line.pulse', { time: when(o.pulse_until!) }) : t('siren.line.sounding', { n: o.driving_alarms }) };
    return { badge, line: t('siren.line.quiet', { priorities: prioritiesArg(o.priorities) }) };
  }
  if (o.healthy === false) return { badge, line: t('siren.line.unhealthy') };
  return { badge, line: t('siren.line.toggling', { period: o.period_s ?? 10 }) };
}

export function OutputState({ o }: { o: OutputView }) {
  const now = useNow(5_000);
  const store = useObservable(alarmStore);
  const names = useObservable(people);
  if (!o.configured) {
    return (
      <p class="notice relay-unset" data-field="not-configured">
        {t(NOT_SET[o.output])}
      </p>
    );
  }
  const alarm = o.alarm_id ? store.items?.find((a) => a.key === `industry-alarms:${o.alarm_id}`) : undefined;
  const d = doing(o, now);
  return (
    <div class="relay-state" data-field="state" data-energised={String(o.energised)} data-failing={String(o.failing)}>
      <p class="relay-target">
        <span class="muted">{t('siren.where')} </span>
        {o.target}
        {o.output === 'siren' ? <span class="muted"> · {t('siren.sounds_for', { priorities: prioritiesArg(o.priorities) })}</span> : null}
      </p>
      {!o.enabled ? (
        <p class="relay-line" data-field="switched-off">
          <span class="badge tone-muted">{t('siren.badge.switched_off')}</span> {t(o.output === 'siren' ? 'siren.line.switched_off.siren' : 'siren.line.switched_off.watchdog')}
        </p>
      ) : o.failing ? (
        <div class="relay-failing" role="alert">
          <p class="relay-line">
            <span class="badge tone-alarm" data-field="badge">{t('siren.badge.failing')}</span>{' '}
            {o.failing_since ? t('siren.failing.since', { time: when(o.failing_since), ago: since(o.failing_since, now) }) : t('siren.failing.last_write')}
          </p>
          {o.last_error ? <p class="relay-error" data-field="last-error">{t('siren.io_answer', { error: o.last_error })}</p> : null}
          <p>
            <a class="btn" href={href('alarms')} data-field="alarm-link">
              {t('siren.alarm_link')}
            </a>
            {alarm ? <span class="muted relay-alarm-state"> {stateWords(alarm, names)}</span> : null}
          </p>
        </div>
      ) : (
        <p class="relay-line">
          <span class="badge tone-muted" data-field="badge">{d.badge}</span> {d.line}
        </p>
      )}
      {o.last_ok_at && o.enabled ? <p class="muted relay-ok">{t('siren.last_ok', { time: when(o.last_ok_at) })}</p> : null}
    </div>
  );
}
