// What was sent, retried, failed or deliberately not sent, and why: newest first, a page at a
// time. A failed one may be queued again by those who may.
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList, post, query } from '../../lib/api';
import { t, type MessageKey } from '../../lib/i18n';
import { when } from '../alarm-words';
import { API, errorWords, industryOf, type Channel, type Delivery } from './model';

const PAGE = 10;
const FILTERS = [
  ['', 'notifications.log.filter.all'], ['sent', 'notifications.log.filter.sent'], ['pending', 'notifications.log.filter.pending'],
  ['failed', 'notifications.log.filter.failed'], ['suppressed', 'notifications.log.filter.suppressed'],
] as const satisfies readonly (readonly [string, MessageKey])[];

/** The delivery's fate in words. Colour stays the alarm's priority (the card's edge), as on every screen. */
function fate(d: Delivery, industry: string): { words: string; label: string } {
  if (d.status === 'sent') {
    return { label: t('notifications.log.label.sent'), words: t('notifications.log.sent', { hasAt: d.sent_at ? 'yes' : 'no', at: d.sent_at ? when(d.sent_at) : '', attempts: d.attempts }) };
  }
  if (d.status === 'failed') return { label: t('notifications.log.label.failed'), words: t('notifications.log.failed', { attempts: d.attempts, error: errorWords(d.last_error) }) };
  if (d.status === 'suppressed') {
    return { label: t('notifications.log.label.suppressed'), words: t('notifications.log.suppressed', { why: d.suppressed === 'shelved' ? 'shelved' : 'out_of_service', industry: industryOf(industry) }) };
  }
  if (d.attempts > 0) {
    return {
      label: t('notifications.log.label.retrying'),
      words: t('notifications.log.retrying', { attempts: d.attempts, error: errorWords(d.last_error), hasNext: d.next_attempt_at ? 'yes' : 'no', next: d.next_attempt_at ? when(d.next_attempt_at) : '' }),
    };
  }
  return { label: t('notifications.log.label.waiting'), words: t('notifications.log.waiting') };
}

export function DeliveryLog({ channels, industry, mayRetry, refresh }: { channels: Channel[]; industry: string; mayRetry: boolean; refresh: number }) {
  const [page, setPage] = useState(0);
  const [status, setStatus] = useState('');
  const [rows, setRows] = useState<{ items: Delivery[]; total: number } | null>(null);
  const [error, setError] = useState('');
  const [again, setAgain] = useState(0);
  useEffect(() => {
    let live = true;
    getList<Delivery>(`${API}/notification-deliveries/list${query({ limit: PAGE, offset: page * PAGE, status })}`)
      .then((r) => { if (live) { setRows({ items: r.data.items, total: r.data.total }); setError(''); } })
      .catch((err: unknown) => { if (live) setError(describeError(err)); });
    return () => { live = false; };
  }, [page, status, refresh, again]);
  const retry = async (id: string) => {
    try {
      await post(`${API}/notification-deliveries/commands/retry`, { id });
      setAgain(again + 1);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const nameOf = (id: string) => channels.find((c) => c.id === id)?.name ?? t('notifications.log.deleted_channel');
  const last = rows ? Math.max(0, Math.ceil(rows.total / PAGE) - 1) : 0;
  return (
    <section class="panel" aria-labelledby="deliveries-h" id="deliveries">
      <h2 id="deliveries-h">{t('notifications.log.title')}</h2>
      <div class="toolbar">
        <div class="filter">
          <label for="deliveries-show">{t('notifications.log.show')}</label>
          <select id="deliveries-show" value={status} onChange={(e) => { setStatus((e.target as HTMLSelectElement).value); setPage(0); }}>
            {FILTERS.map(([v, w]) => <option key={v} value={v}>{t(w)}</option>)}
          </select>
        </div>
      </div>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {rows && !rows.items.length ? <p class="empty">{t('notifications.log.empty', { filtered: status ? 'yes' : 'no' })}</p> : null}
      <ol class="deliveries">
        {(rows?.items ?? []).map((d) => {
          const f = fate(d, industry);
          return (
            <li key={d.id} class={`card delivery ${d.priority === 'P1' ? 'tone-edge-alarm' : d.priority === 'P2' ? 'tone-edge-warn' : ''}`} data-delivery-status={d.status}>
              <div class="delivery-head">
                <span class="badge">{f.label}</span>
                <strong>{t('notifications.log.event', { event: d.event, level: d.escalation_level, hasPriority: d.priority ? 'yes' : 'no', priority: d.priority ?? '' })}</strong>
                <time class="muted" dateTime={d.created_at}>{when(d.created_at)}</time>
              </div>
              <p class="delivery-subject">{d.subject}</p>
              <p class="muted">{t('notifications.log.to', { recipient: d.recipient, channel: nameOf(d.channel_id) })}</p>
              <p class={`delivery-fate ${d.status === 'failed' ? 'failed' : ''}`}>{f.words}</p>
              {mayRetry && d.status === 'failed' ? <button type="button" class="btn small" onClick={() => void retry(d.id)}>{t('common.action.retry')}</button> : null}
            </li>
          );
        })}
      </ol>
      {rows && rows.total > PAGE ? (
        <nav class="pager" aria-label={t('notifications.log.pages')}>
          <button type="button" class="btn" disabled={page === 0} onClick={() => setPage(page - 1)}>{t('notifications.log.newer')}</button>
          <span>{t('notifications.log.range', { from: page * PAGE + 1, to: Math.min(rows.total, (page + 1) * PAGE), total: rows.total })}</span>
          <button type="button" class="btn" disabled={page >= last} onClick={() => setPage(page + 1)}>{t('notifications.log.older')}</button>
        </nav>
      ) : null}
    </section>
  );
}
