// One output's live state in words: not set up (and what that means on this farm), switched off,
// energised or released (and why), or failing since a time with the field service's words and a
// link to its alarm in the inbox. Colour only where there is an alarm: a failing output is a P1.
import { since, stateWords, when } from '../alarm-words';
import { useNow } from '../hooks';
import { alarmStore } from '../../lib/alarms';
import { href } from '../../lib/router';
import { useObservable } from '../../lib/store';
import { people } from '../../lib/people';
import type { OutputView } from './relay-draft';

export const NOT_SET: Record<OutputView['output'], string> = {
  siren: 'No siren output: an unacknowledged P1 sounds only on the tablets.',
  watchdog: 'No watchdog output: a dialler cannot know when this box stops.',
};

function prioritiesWords(p: string[]): string {
  return p.length > 1 ? `${p.slice(0, -1).join(', ')} or ${p[p.length - 1]}` : (p[0] ?? 'P1');
}

/** What the output is doing now, as one sentence. */
function doing(o: OutputView, now: number): { badge: string; line: string } {
  if (o.energised === null) return { badge: 'Not driven yet', line: 'The box has not written this output yet.' };
  if (o.output === 'siren') {
    const pulse = o.pulse_until && Date.parse(o.pulse_until) > now;
    if (o.energised) {
      const why = pulse ? `test pulse until ${when(o.pulse_until!)}` : o.driving_alarms === 1 ? '1 alarm not acknowledged' : `${o.driving_alarms} alarms not acknowledged`;
      return { badge: 'Energised', line: `The siren sounds: ${why}.` };
    }
    return { badge: 'Released', line: `The siren is quiet: no ${prioritiesWords(o.priorities)} alarm waits for acknowledgement.` };
  }
  if (o.healthy === false) return { badge: o.energised ? 'Energised' : 'Released', line: 'Stopped toggling: the box is not healthy, so the dialler will call.' };
  return { badge: o.energised ? 'Energised' : 'Released', line: `Toggling every ${o.period_s ?? 10} s while the box is healthy.` };
}

export function OutputState({ o }: { o: OutputView }) {
  const now = useNow(5_000);
  const store = useObservable(alarmStore);
  const names = useObservable(people);
  if (!o.configured) {
    return (
      <p class="notice relay-unset" data-field="not-configured">
        {NOT_SET[o.output]}
      </p>
    );
  }
  const alarm = o.alarm_id ? store.items?.find((a) => a.key === `industry-alarms:${o.alarm_id}`) : undefined;
  const d = doing(o, now);
  return (
    <div class="relay-state" data-field="state" data-energised={String(o.energised)} data-failing={String(o.failing)}>
      <p class="relay-target">
        <span class="muted">Where: </span>
        {o.target}
        {o.output === 'siren' ? <span class="muted"> · sounds for {prioritiesWords(o.priorities)}</span> : null}
      </p>
      {!o.enabled ? (
        <p class="relay-line" data-field="switched-off">
          <span class="badge tone-muted">Switched off</span> The box does not drive this output. {o.output === 'siren' ? NOT_SET.siren.split(': ')[1] : ''}
        </p>
      ) : o.failing ? (
        <div class="relay-failing" role="alert">
          <p class="relay-line">
            <span class="badge tone-alarm" data-field="badge">Failing</span> since {o.failing_since ? `${when(o.failing_since)} (${since(o.failing_since, now)})` : 'the last write'}: the output does not answer.
          </p>
          {o.last_error ? <p class="relay-error" data-field="last-error">The I/O module's answer: {o.last_error}</p> : null}
          <p>
            <a class="btn" href={href('alarms')} data-field="alarm-link">
              See its alarm in Alarms
            </a>
            {alarm ? <span class="muted relay-alarm-state"> {stateWords(alarm, names)}</span> : null}
          </p>
        </div>
      ) : (
        <p class="relay-line">
          <span class="badge tone-muted" data-field="badge">{d.badge}</span> {d.line}
        </p>
      )}
      {o.last_ok_at && o.enabled ? <p class="muted relay-ok">Last answered {when(o.last_ok_at)}.</p> : null}
    </div>
  );
}
