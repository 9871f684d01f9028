// The one alarm inbox (the menu's Alarms entry, the pinned Alarms button, the annunciator): every
// alarm this person may see, of every resource, in one list ordered by state, priority and time;
// acknowledged-but-active alarms listed as such; acknowledging from the list; each alarm's account
// one tap away. On a master, the farms' alarms too, each with its farm as where it is: read-only
// (no Acknowledge button), "Acknowledged at the farm by …" once someone there did.
import { useEffect, useState } from 'preact/hooks';
import { AlarmAccount, since } from '../components/AlarmAccount';
import { useNow } from '../components/hooks';
import { acknowledge, inbox, inboxError, refreshAlarms } from '../lib/alarms';
import { describeError } from '../lib/api';
import { formatTime, humanise } from '../lib/format';
import { alarmResources, alarmTone, farmTotals, stateWords, type InboxAlarm } from '../lib/inbox';
import { loadPeople, nameOf, people } from '../lib/people';
import { href } from '../lib/router';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';

const STATE_BADGE: Record<InboxAlarm['state'], string> = {
  active: 'Active',
  'acked-active': 'Acknowledged, still active',
  'cleared-unacked': 'Cleared, not acknowledged',
  shelved: 'Shelved',
  'out-of-service': 'Out of service',
  normal: 'Normal',
};

function InboxItem({ a, open, onOpen }: { a: InboxAlarm; open: boolean; onOpen: () => void }) {
  const now = useNow(30_000);
  const names = useObservable(people);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const tone = alarmTone(a);
  const ack = async () => {
    setBusy(true);
    setError('');
    try {
      await acknowledge(a);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class={`inbox-item tone-edge-${tone}`} data-alarm={a.key} data-state={a.state} data-resource={a.resource}>
      <div class="inbox-line">
        <span class={`badge tone-${tone}`} data-badge="state">
          {STATE_BADGE[a.state]}
        </span>
        {a.priority ? <span class={`badge tone-${a.priority === 'P1' && !a.acknowledged ? 'alarm' : 'warn'}`}>{a.priority}</span> : null}
        <span class="inbox-title">
          {a.where && !a.title.toLowerCase().includes(a.where.toLowerCase()) ? <span class="inbox-where">{a.where}: </span> : null}
          {a.title}
        </span>
      </div>
      <p class="inbox-meta">
        {a.farm ? 'At the farm' : a.industry ? humanise(a.industry) : 'Site'} · since {formatTime(a.raised_at)} ({since(a.raised_at, now)})
        {a.state === 'shelved' ? ` · ${stateWords(a, formatTime)}` : ''}
      </p>
      {a.farm && a.acknowledged ? (
        <p class="inbox-meta" data-field="acked-at-farm">
          Acknowledged at the farm by {nameOf(a.acked_by, names)}
        </p>
      ) : null}
      <div class="inbox-actions">
        {!a.acknowledged && a.farm === null ? (
          <button type="button" class="btn primary" data-ack={a.key} disabled={busy} onClick={() => void ack()}>
            Acknowledge
          </button>
        ) : null}
        <button type="button" class="btn" aria-expanded={open} onClick={onOpen}>
          {open ? 'Less' : 'More'}
        </button>
      </div>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {open ? <AlarmAccount alarm={a} /> : null}
    </li>
  );
}

/** The inbox screen; embedded (the fleet, a workspace) with its own heading and a shorter list. */
export function AlarmInbox({ heading = 'Alarms', embedded = false, limit }: { heading?: string; embedded?: boolean; limit?: number }) {
  const s = useObservable(session);
  const items = useObservable(inbox);
  const farms = useObservable(farmTotals);
  const failed = useObservable(inboxError);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => {
    void refreshAlarms();
    if (s) void loadPeople(s);
  }, [s]);
  if (!s) return null;
  if (alarmResources(s).length === 0) return embedded ? null : <p class="notice">No alarm list is available to you.</p>;
  const H = embedded ? 'h2' : 'h1';
  const shown = limit && items ? items.slice(0, limit) : items;
  const unacked = (items ?? []).filter((a) => !a.acknowledged).length;
  return (
    <section class={`alarm-inbox ${embedded ? 'panel embedded' : ''}`} id={embedded ? undefined : 'alarm-inbox'} data-inbox={embedded ? 'embedded' : 'screen'} aria-labelledby={`inbox-h-${embedded ? 'e' : 's'}`}>
      <H id={`inbox-h-${embedded ? 'e' : 's'}`}>
        {heading}
        {items ? <span class="count"> ({items.length})</span> : null}
      </H>
      {items ? (
        <p class="inbox-summary" role="status">
          {items.length === 0 ? 'No alarms: everything is normal.' : `${unacked} not acknowledged, ${items.length - unacked} acknowledged and still active.`}
        </p>
      ) : null}
      {farms ? (
        // A master lists the farms' alarms as their boxes synced them, and cannot acknowledge them.
        <p class="muted" id="inbox-scope-note">
          The farms' alarms are listed as each farm's box reports them, and are acknowledged at the farm.
          {farms.open > (items ?? []).filter((a) => a.farm !== null && !a.acknowledged).length ? ` Showing the most urgent of ${farms.open} open at the farms.` : ''}
        </p>
      ) : null}
      {failed && !items ? (
        <p class="error" role="alert">
          {describeError(failed)}
        </p>
      ) : null}
      {!items ? (
        <p class="loading">Loading...</p>
      ) : (
        <ul class="inbox" id="inbox">
          {(shown ?? []).map((a) => (
            <InboxItem key={a.key} a={a} open={open === a.key} onOpen={() => setOpen(open === a.key ? null : a.key)} />
          ))}
        </ul>
      )}
      {embedded && items && shown && shown.length < items.length ? (
        <a class="btn" href={href('alarms')}>
          All {items.length} alarms
        </a>
      ) : null}
    </section>
  );
}
