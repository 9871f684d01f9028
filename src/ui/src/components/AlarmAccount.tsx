// An alarm as a short account: what, where, since when, the value against its limit with units,
// its state in words, who acknowledged it by name, the SLA as time left or "overdue by"; the raw
// record only behind a "Details" toggle, and only for admins.
import { useState } from 'preact/hooks';
import { countdown, formatTime, humanise } from '../lib/format';
import { stateWords, type InboxAlarm } from '../lib/inbox';
import { nameOf, people } from '../lib/people';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import { useNow } from './hooks';

const UNITS: Record<string, string> = {
  temp: '°C', temp_c: '°C', temperature: '°C', humidity: '%', humidity_pct: '%', rh: '%', co2: 'ppm', co2_ppm: 'ppm', nh3: 'ppm', nh3_ppm: 'ppm',
  ventilation: '%', ventilation_pct: '%', water_deviation_pct: '%', feed_deviation_pct: '%', pressure_bar: 'bar', soil_moisture: '%', level_m: 'm',
};
const METRIC_WORDS: Record<string, string> = { temp: 'Temperature', temp_c: 'Temperature', nh3: 'NH3', co2: 'CO2', water_deviation_pct: 'Water against expected', feed_deviation_pct: 'Feed against expected', pressure_bar: 'Line pressure' };

const fmt = (n: number, unit: string | undefined) => `${Number.isInteger(n) ? n : n.toFixed(1)}${unit ? (unit === '%' || unit === '°C' ? '' : ' ') + unit : ''}`;

/** "30.9 °C, above the limit of 28 °C" (the rule's threshold and comparator, when the alarm carries them). */
export function valueWords(a: Pick<InboxAlarm, 'metric' | 'value' | 'threshold' | 'comparator'>): string | null {
  if (a.value === null) return null;
  const unit = a.metric ? UNITS[a.metric] : undefined;
  const what = a.metric ? `${METRIC_WORDS[a.metric] ?? humanise(a.metric)} ` : '';
  const value = `${what}${fmt(a.value, unit)}`;
  if (a.threshold === null) return value;
  const side = a.comparator?.startsWith('l') ? 'below' : a.comparator?.startsWith('g') ? 'above' : 'against';
  return `${value}, ${side} the limit of ${fmt(a.threshold, unit)}`;
}

/** For how long, in words: "12 min", "3 h 5 min", "2 days". */
export function since(iso: string, now = Date.now()): string {
  const m = Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000));
  if (m < 1) return 'under 1 min';
  if (m < 120) return `${m} min`;
  if (m < 48 * 60) return `${Math.floor(m / 60)} h ${m % 60} min`;
  return `${Math.floor(m / 1440)} days`;
}

export function AlarmAccount({ alarm: a }: { alarm: InboxAlarm }) {
  const s = useObservable(session);
  const names = useObservable(people);
  const now = useNow(15_000);
  const [raw, setRaw] = useState(false);
  const value = valueWords(a);
  // The SLA runs while nobody has acknowledged; afterwards it says nothing (no "breached: Yes" beside a countdown).
  const sla = a.sla_deadline_at && !a.acknowledged ? countdown(a.sla_deadline_at, now) : null;
  const admin = s?.user.role === 'admin';
  return (
    <div class="alarm-account" data-alarm-account={a.key}>
      <dl class="detail-fields account-fields">
        <div>
          <dt>What</dt>
          <dd>
            {a.title}
            {a.message ? <span class="muted"> — {a.message}</span> : null}
          </dd>
        </div>
        {a.where ? (
          <div>
            <dt>Where</dt>
            <dd>{a.where}</dd>
          </div>
        ) : null}
        <div>
          <dt>Since</dt>
          <dd>
            {formatTime(a.raised_at)} ({since(a.raised_at, now)})
          </dd>
        </div>
        {value ? (
          <div>
            <dt>Value</dt>
            <dd>{value}</dd>
          </div>
        ) : null}
        <div>
          <dt>State</dt>
          <dd data-state={a.state}>{stateWords(a, formatTime)}</dd>
        </div>
        {a.cleared_at ? (
          <div>
            <dt>Cleared</dt>
            <dd>{formatTime(a.cleared_at)}</dd>
          </div>
        ) : null}
        {a.acknowledged ? (
          <div>
            <dt>{a.farm ? 'Acknowledged at the farm by' : 'Acknowledged by'}</dt>
            <dd class="acked-by">
              {nameOf(a.acked_by, names)}
              {a.acked_at ? `, ${formatTime(a.acked_at)}` : ''}
            </dd>
          </div>
        ) : null}
        {sla ? (
          <div>
            <dt>Response time</dt>
            <dd>
              <span class={`badge countdown tone-${sla.overdue ? 'alarm' : 'warn'}`}>{sla.text}</span>
            </dd>
          </div>
        ) : null}
      </dl>
      {admin ? (
        <div class="account-raw">
          <button type="button" class="btn small" aria-expanded={raw} onClick={() => setRaw(!raw)}>
            {raw ? 'Hide details' : 'Details'}
          </button>
          {raw ? (
            <dl class="detail-fields raw-fields">
              {Object.entries(a.raw)
                .filter(([, v]) => v !== null && v !== undefined && v !== '')
                .map(([k, v]) => (
                  <div key={k}>
                    <dt>{humanise(k)}</dt>
                    <dd>{typeof v === 'object' ? JSON.stringify(v) : String(v)}</dd>
                  </div>
                ))}
            </dl>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
