// An alarm as a short account: what, where, since when, its cause in words (the value against its
// limit, as the box words it), its state in words, who acknowledged it by name, the response time
// as "12 min left" or "overdue by 4 min" while nobody has, the comments with who and when, and the
// times its record keeps. The raw record only behind "Details", and only for admins.
// It reads the box's alarm view item; a generic list's alarm record (a module's alarm tab) is shown
// through the store's item of the same alarm, else the box's item read by its key (alarm-view/{key}):
// the one truth every screen shows, never derived here from the raw record.
import { useEffect, useState } from 'preact/hooks';
import { alarmStore } from '../lib/alarms';
import { describeError, getItem } from '../lib/api';
import { countdown, formatTime, humanise } from '../lib/format';
import { t } from '../lib/i18n';
import { nameOf, people } from '../lib/people';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import type { AlarmViewItem } from '../lib/types';
import type { AlarmRecord } from '../lib/inbox';
import { alarmCause, alarmTitle, alarmWhere, hasOwnCause, since, stateWords, story, when, type StoryStep } from './alarm-words';
import { useNow } from './hooks';

export { since } from './alarm-words';


const isItem = (a: AlarmViewItem | AlarmRecord): a is AlarmViewItem => 'tone' in a && 'applicable' in a;

export function AlarmAccount({ alarm }: { alarm: AlarmViewItem | AlarmRecord }) {
  const store = useObservable(alarmStore);
  const key = alarm.key;
  // The same alarm in the store, else the box's view of it read once by its key.
  const listed = isItem(alarm) ? alarm : store.items?.find((x) => x.key === key);
  const [read, setRead] = useState<AlarmViewItem | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    if (listed) return;
    let gone = false;
    getItem<AlarmViewItem>(`/api/v1/alarm-view/${encodeURIComponent(key)}`)
      .then((a) => !gone && setRead(a))
      .catch((err: unknown) => !gone && setFailed(describeError(err)));
    return () => {
      gone = true;
    };
  }, [key, listed]);
  const a = listed ?? read;
  if (a) return <Account a={a} />;
  return failed ? <p class="error" role="alert">{failed}</p> : <p class="loading">{t('alarms.loading')}</p>;
}

function Account({ a }: { a: AlarmViewItem }) {
  const s = useObservable(session);
  const names = useObservable(people);
  const now = useNow(15_000);
  const [raw, setRaw] = useState(false);
  // The SLA runs while nobody has acknowledged an active alarm; afterwards it says nothing.
  const sla = a.sla_deadline_at && !a.acked_at && a.condition === 'active' && a.state !== 'normal' ? countdown(a.sla_deadline_at, now) : null;
  const admin = s?.user.role === 'admin';
  const steps = story(a, names).filter((x) => !x.key.startsWith('comment-'));
  return (
    <div class="alarm-account" data-alarm-account={a.key}>
      <dl class="detail-fields account-fields">
        <div>
          <dt>{t('alarms.account.what')}</dt>
          <dd>{alarmTitle(a)}</dd>
        </div>
        {a.where ? (
          <div>
            <dt>{t('alarms.account.where')}</dt>
            <dd>{alarmWhere(a)}</dd>
          </div>
        ) : null}
        <div>
          <dt>{t('alarms.account.since')}</dt>
          <dd>{t('alarms.account.sinceValue', { at: formatTime(a.raised_at), for: since(a.raised_at, now) })}</dd>
        </div>
        {hasOwnCause(a) ? (
          <div>
            <dt>{t('alarms.account.cause')}</dt>
            <dd data-field="cause">{alarmCause(a)}</dd>
          </div>
        ) : null}
        <div>
          <dt>{t('alarms.account.state')}</dt>
          <dd data-state={a.state}>{stateWords(a, names)}</dd>
        </div>
        {a.acked_at || a.acked_by ? (
          <div>
            <dt>{t('alarms.account.ackedBy', { farm: a.farm ? 'yes' : 'no' })}</dt>
            <dd class="acked-by">
              {nameOf(a.acked_by, names)}
              {a.acked_at ? `, ${formatTime(a.acked_at)}` : ''}
            </dd>
          </div>
        ) : null}
        {sla ? (
          <div>
            <dt>{t('alarms.account.responseTime')}</dt>
            <dd>
              <span class={`badge countdown tone-${sla.overdue ? 'alarm' : 'warn'}`}>{sla.text}</span>
            </dd>
          </div>
        ) : null}
      </dl>
      {steps.length > 1 ? (
        <>
          <h4 class="account-sub">{t('alarms.account.times')}</h4>
          <AlarmStory steps={steps} />
        </>
      ) : null}
      <AlarmComments a={a} />
      {admin ? (
        <div class="account-raw">
          <button type="button" class="btn small" aria-expanded={raw} onClick={() => setRaw(!raw)}>
            {raw ? t('alarms.account.hideDetails') : t('alarms.account.details')}
          </button>
          {raw ? (
            <dl class="detail-fields raw-fields">
              {Object.entries(a)
                .filter(([, v]) => v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0))
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

/** The comments, oldest first, each with who by name and when; the latest `last` when given. */
export function AlarmComments({ a, last }: { a: AlarmViewItem; last?: number }) {
  const names = useObservable(people);
  if (a.comments.length === 0) return null;
  const shown = last ? a.comments.slice(-last) : a.comments;
  const earlier = a.comments.length - shown.length;
  return (
    <div class="alarm-comments-block">
      <ol class="alarm-comments" data-field="comments" aria-label={t('alarms.account.comments')}>
        {shown.map((c, i) => (
          <li key={`${c.at}-${i}`} data-comment>
            <span class="comment-who">
              {nameOf(c.by, names)}, {when(c.at)}:
            </span>{' '}
            <span class="comment-text">{c.text}</span>
          </li>
        ))}
      </ol>
      {earlier > 0 ? <p class="muted comment-more">{t('alarms.account.earlier', { n: earlier })}</p> : null}
    </div>
  );
}

/** Every time an alarm's record keeps, oldest first, with who (the account and the history say it the same way). */
export function AlarmStory({ steps }: { steps: StoryStep[] }) {
  return (
    <dl class="alarm-story" data-field="story">
      {steps.map((x) => (
        <div key={x.key} data-step={x.key}>
          <dt>{x.what}</dt>
          <dd>{when(x.at)}</dd>
        </div>
      ))}
    </dl>
  );
}
