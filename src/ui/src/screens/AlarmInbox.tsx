// The one alarm inbox (the menu's Alarms entry, the pinned Alarms button, the annunciator): every
// alarm this person may see, as the shell's one alarm store holds it (the box's alarm view, kept
// current by its events), in the box's order; each with its state in words and the work that
// applies to it (acknowledge, comment, shelve, unshelve, reset); its account one tap away; the past
// alarms on a History tab. On a master, the farms' alarms too, with the farm as where they are:
// read-only, "Acknowledged at the farm by …" once someone there did.
import { useEffect, useState } from 'preact/hooks';
import { AlarmAccount, AlarmComments } from '../components/AlarmAccount';
import { AlarmActions } from '../components/AlarmActions';
import { ackLine, alarmCause, hasOwnCause, headline, placeWords, since, stateBadge, stateWords, when } from '../components/alarm-words';
import { useNow } from '../components/hooks';
import { alarmStore, refreshAlarms } from '../lib/alarms';
import { ApiError, describeError } from '../lib/api';
import { formatTime } from '../lib/format';
import { t, type MessageKey } from '../lib/i18n';
import { loadPeople, nameOf, people } from '../lib/people';
import { href, route } from '../lib/router';
import { session, type Session } from '../lib/session';
import { useObservable } from '../lib/store';
import type { AlarmSummary, AlarmViewItem } from '../lib/types';
import { AlarmHistory } from './AlarmHistory';

function InboxItem({ a, open, onOpen }: { a: AlarmViewItem; open: boolean; onOpen: () => void }) {
  const now = useNow(30_000);
  const names = useObservable(people);
  const extraAck = ackLine(a, names);
  const head = headline(a);
  return (
    <li class={`inbox-item tone-edge-${a.tone}`} data-alarm={a.key} data-state={a.state} data-tone={a.tone} data-resource={a.resource}>
      <div class="inbox-line">
        <span class={`badge tone-${a.tone}`} data-badge="state">
          {stateBadge(a.state)}
        </span>
        {/* The priority is said in the alarm's own tone: a P1 back to normal is no longer red. */}
        {a.priority ? (
          <span class={`badge tone-${a.tone}`} data-badge="priority">
            {a.priority}
          </span>
        ) : null}
        <span class="inbox-title">
          {head.where ? <span class="inbox-where">{head.where}: </span> : null}
          {head.title}
        </span>
      </div>
      {hasOwnCause(a) ? (
        <p class="inbox-cause" data-field="cause">
          {alarmCause(a)}
        </p>
      ) : null}
      <p class="inbox-meta">
        {t('alarms.inbox.meta', { place: placeWords(a), at: formatTime(a.raised_at), for: since(a.raised_at, now) })}
        {a.raise_count > 1 ? ` · ${t('alarms.banner.raisedTimes', { n: a.raise_count, at: when(a.last_raised_at) })}` : ''}
      </p>
      <p class="inbox-state" data-field="state-words">
        {stateWords(a, names)}
      </p>
      {a.farm && a.acked_by ? (
        <p class="inbox-meta" data-field="acked-at-farm">
          {t('alarms.acked.by', { farm: 'yes', who: nameOf(a.acked_by, names) })}
        </p>
      ) : extraAck ? (
        <p class="inbox-meta" data-field="acked">
          {extraAck}
        </p>
      ) : null}
      {/* Open, the account lists them all. */}
      {open ? null : <AlarmComments a={a} last={2} />}
      <AlarmActions a={a} open={open} onOpen={onOpen} />
      {open ? <AlarmAccount alarm={a} /> : null}
    </li>
  );
}

const SUMMARY_WORDS: [keyof AlarmSummary['by_state'], MessageKey][] = [
  ['unacknowledged_active', 'alarms.summary.unacknowledged_active'],
  ['unacknowledged_cleared', 'alarms.summary.unacknowledged_cleared'],
  ['latched', 'alarms.summary.latched'],
  ['acknowledged_active', 'alarms.summary.acknowledged_active'],
  ['shelved', 'alarms.summary.shelved'],
  ['out_of_service', 'alarms.summary.out_of_service'],
];

/** "2 not acknowledged, 1 acknowledged and still active, 1 shelved": the box's counts in words. */
function summaryWords(items: AlarmViewItem[], summary: AlarmSummary | null, reachable: boolean): string {
  // Unknown is not normal: an empty list the box cannot confirm is what it last said.
  if (items.length === 0) return t(reachable ? 'alarms.summary.none' : 'alarms.summary.noneLastKnown');
  // The summary is the box's count of the same list; the list itself where the summary is older.
  const by = (state: keyof AlarmSummary['by_state']) => (summary && summary.listed === items.length ? summary.by_state[state] : items.filter((a) => a.state === state).length);
  // Counts in a list (each its own plural), not a sentence made of pieces.
  const parts = SUMMARY_WORDS.map(([state, key]) => [by(state), key] as const)
    .filter(([n]) => n > 0)
    .map(([n, key]) => t(key, { n }));
  return t('alarms.summary.list', { list: parts.join(', ') });
}

/** This person reads no alarms: the policy says so, or the box answered 403/404. */
const denied = (s: Session, err: unknown) =>
  s.ctx.policy.permissions.api['api:GET /api/v1/alarm-view/list'] === false || (err instanceof ApiError && (err.status === 403 || err.status === 404));

/** Farms' alarms are read here, not handled: a master's person lists the farms' alarms (sync-alarms). */
const listsFarms = (s: Session) => s.ctx.deployment_mode === 'cloud-multi' && s.ctx.policy.permissions.api['api:GET /api/v1/sync-alarms/list'] === true;

/** The inbox screen; embedded (the fleet, a workspace) with its own heading and a shorter list. */
export function AlarmInbox({ heading, embedded = false, limit }: { heading?: string; embedded?: boolean; limit?: number }) {
  const s = useObservable(session);
  const store = useObservable(alarmStore);
  const r = useObservable(route);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => {
    void refreshAlarms();
    if (s) void loadPeople(s);
  }, [s]);
  if (!s) return null;
  const items = store.items;
  if (!items && denied(s, store.error)) return embedded ? null : <p class="notice">{t('alarms.inbox.denied')}</p>;
  const history = !embedded && r.name === 'alarms' && r.params.view === 'history';
  const H = embedded ? 'h2' : 'h1';
  const shown = limit && items ? items.slice(0, limit) : items;
  const hid = `inbox-h-${embedded ? 'e' : 's'}`;
  return (
    <section class={embedded ? 'alarm-inbox panel embedded' : 'alarm-inbox'} id={embedded ? undefined : 'alarm-inbox'} data-inbox={embedded ? 'embedded' : 'screen'} aria-labelledby={hid}>
      <H id={hid}>
        {heading ?? t('alarms.inbox.title')}
        {items && !history ? <span class="count"> ({items.length})</span> : null}
      </H>
      {embedded ? null : (
        <nav class="inbox-tabs" aria-label={t('alarms.inbox.tabs')}>
          <a class={`btn ${history ? '' : 'chosen'}`} href={href('alarms')} aria-current={history ? undefined : 'page'} data-tab="now">
            {t('alarms.inbox.now')}
          </a>
          <a class={`btn ${history ? 'chosen' : ''}`} href={href('alarms', undefined, { view: 'history' })} aria-current={history ? 'page' : undefined} data-tab="history">
            {t('alarms.inbox.history')}
          </a>
        </nav>
      )}
      {!store.reachable ? (
        // Unknown is not none: the list below is what this tablet last knew.
        <p class="notice inbox-unknown" role="status" data-field="alarms-unknown">
          {store.unknownSince ? t('alarms.inbox.unknownSince', { at: when(new Date(store.unknownSince).toISOString()) }) : t('alarms.inbox.unknown')}
          {items ? ` ${t('alarms.inbox.lastKnown')}` : ''}
        </p>
      ) : null}
      {history ? (
        <AlarmHistory />
      ) : (
        <>
          {items ? (
            <p class="inbox-summary" role="status">
              {summaryWords(items, store.summary, store.reachable)}
            </p>
          ) : null}
          {listsFarms(s) ? (
            // A master lists the farms' alarms as their boxes synced them, and cannot acknowledge them.
            <p class="muted" id="inbox-scope-note">
              {t('alarms.inbox.farmsNote')}
            </p>
          ) : null}
          {store.error && !items && store.reachable ? (
            <p class="error" role="alert">
              {describeError(store.error)}
            </p>
          ) : null}
          {!items ? (
            store.reachable ? <p class="loading">{t('alarms.loading')}</p> : null
          ) : (
            <ul class="inbox" id="inbox">
              {(shown ?? []).map((a) => (
                <InboxItem key={a.key} a={a} open={open === a.key} onOpen={() => setOpen(open === a.key ? null : a.key)} />
              ))}
            </ul>
          )}
          {embedded && items && shown && shown.length < items.length ? (
            <a class="btn" href={href('alarms')}>
              {t('alarms.inbox.all', { n: items.length })}
            </a>
          ) : null}
        </>
      )}
    </section>
  );
}
