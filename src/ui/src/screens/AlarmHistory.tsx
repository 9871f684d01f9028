// The past alarms (the box's alarm view with history=true: alarms back in the normal state, newest
// first, a page at a time): each with the times its record keeps, raised, back to normal (a latched
// one's return too), acknowledged by whom by name, shelved, reset by whom, and its comments. Muted:
// nothing here needs anyone now. Read again when the store's summary changes (an alarm just ended).
import { useEffect, useState } from 'preact/hooks';
import { AlarmComments, AlarmStory } from '../components/AlarmAccount';
import { alarmCause, hasOwnCause, headline, placeWords, since, story } from '../components/alarm-words';
import { alarmStore } from '../lib/alarms';
import { describeError, getList, query } from '../lib/api';
import { t } from '../lib/i18n';
import { people } from '../lib/people';
import { useObservable } from '../lib/store';
import type { AlarmViewItem } from '../lib/types';

const PAGE = 25;

interface Page { items: AlarmViewItem[]; total: number; has_more: boolean; next_cursor?: string | null }

function HistoryItem({ a }: { a: AlarmViewItem }) {
  const names = useObservable(people);
  const steps = story(a, names).filter((x) => !x.key.startsWith('comment-'));
  const over = a.cleared_at ?? a.reset_at;
  const head = headline(a);
  return (
    <li class="inbox-item history-item tone-edge-muted" data-alarm={a.key} data-state={a.state} data-tone={a.tone} data-resource={a.resource}>
      <div class="inbox-line">
        {a.priority ? (
          <span class="badge tone-muted" data-badge="priority">
            {a.priority}
          </span>
        ) : null}
        <span class="inbox-title">
          {head.where ? <span class="inbox-where">{head.where}: </span> : null}
          {head.title}
        </span>
      </div>
      {hasOwnCause(a) ? <p class="inbox-cause">{alarmCause(a)}</p> : null}
      <p class="inbox-meta">
        {over ? t('alarms.history.metaLasted', { place: placeWords(a), for: since(a.raised_at, Date.parse(over)) }) : placeWords(a)}
      </p>
      <AlarmStory steps={steps} />
      <AlarmComments a={a} />
    </li>
  );
}

export function AlarmHistory() {
  const store = useObservable(alarmStore);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState('');
  const [more, setMore] = useState(false);
  const revision = store.summary?.revision;

  const read = async (after?: Page): Promise<void> => {
    const params: Record<string, string | number> = { history: 'true', limit: PAGE };
    // The kernel's lists page by cursor where they give one, else by offset.
    if (after?.next_cursor) params.cursor = after.next_cursor;
    else if (after) params.offset = after.items.length;
    const r = await getList<AlarmViewItem>(`/api/v1/alarm-view/list${query(params)}`);
    const d = r.data as typeof r.data & { next_cursor?: string | null };
    const items = after ? [...after.items, ...d.items.filter((x) => !after.items.some((y) => y.key === x.key))] : d.items;
    setPage({ items, total: d.total, has_more: d.has_more, next_cursor: d.next_cursor ?? null });
    setError('');
  };

  // An alarm that just ended (the summary's revision moved) belongs at the top: the first page again.
  useEffect(() => {
    read().catch((err: unknown) => setError(describeError(err)));
  }, [revision]);

  const older = async () => {
    if (!page) return;
    setMore(true);
    try {
      await read(page);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setMore(false);
    }
  };

  return (
    <div class="alarm-history" id="alarm-history">
      <p class="muted">{t('alarms.history.lead')}</p>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {!page ? (
        error ? null : <p class="loading">{t('alarms.loading')}</p>
      ) : page.items.length === 0 ? (
        <p class="empty">{t('alarms.history.empty')}</p>
      ) : (
        <ul class="inbox history" id="history">
          {page.items.map((a) => (
            <HistoryItem key={a.key} a={a} />
          ))}
        </ul>
      )}
      {page?.has_more ? (
        <button type="button" class="btn" data-action="older" disabled={more} onClick={() => void older()}>
          {more ? t('alarms.loading') : t('alarms.history.older', { shown: page.items.length, total: page.total })}
        </button>
      ) : null}
    </div>
  );
}
