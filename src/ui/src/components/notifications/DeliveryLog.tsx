// What was sent, retried, failed or deliberately not sent, and why: newest first, a page at a
// time. A failed one may be queued again by those who may.
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList, post, query } from '../../lib/api';
import { when } from '../alarm-words';
import { API, errorWords, unitNoun, type Channel, type Delivery } from './model';

const PAGE = 10;
const FILTERS = [['', 'Everything'], ['sent', 'Sent'], ['pending', 'Waiting or retrying'], ['failed', 'Failed'], ['suppressed', 'Not sent on purpose']] as const;
const EVENT_WORDS: Record<string, (l: number) => string> = {
  raised: () => 'New alarm', escalated: (l) => `Escalation ${l}`, acknowledged: () => 'Acknowledged', cleared: () => 'Over',
};

/** The delivery's fate in words. Colour stays the alarm's priority (the card's edge), as on every screen. */
function fate(d: Delivery, industry: string): { words: string; label: string } {
  if (d.status === 'sent') return { label: 'Sent', words: `Sent ${d.sent_at ? when(d.sent_at) : ''}${d.attempts > 1 ? ` at the ${d.attempts}th attempt` : ''}.` };
  if (d.status === 'failed') return { label: 'Failed', words: `Not sent after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}: ${errorWords(d.last_error)}.` };
  if (d.status === 'suppressed') {
    const why = d.suppressed === 'shelved' ? 'the alarm was shelved' : `its ${unitNoun(industry)} was out of service`;
    return { label: 'Not sent', words: `Not sent on purpose: ${why}.` };
  }
  if (d.attempts > 0) return { label: 'Retrying', words: `Attempt ${d.attempts} failed: ${errorWords(d.last_error)}. Next try ${d.next_attempt_at ? when(d.next_attempt_at) : 'soon'}.` };
  return { label: 'Waiting', words: 'Waiting to be sent.' };
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
  const nameOf = (id: string) => channels.find((c) => c.id === id)?.name ?? 'a deleted channel';
  const last = rows ? Math.max(0, Math.ceil(rows.total / PAGE) - 1) : 0;
  return (
    <section class="panel" aria-labelledby="deliveries-h" id="deliveries">
      <h2 id="deliveries-h">Messages sent</h2>
      <div class="toolbar">
        <div class="filter">
          <label for="deliveries-show">Show</label>
          <select id="deliveries-show" value={status} onChange={(e) => { setStatus((e.target as HTMLSelectElement).value); setPage(0); }}>
            {FILTERS.map(([v, w]) => <option key={v} value={v}>{w}</option>)}
          </select>
        </div>
      </div>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {rows && !rows.items.length ? <p class="empty">No messages {status ? 'of this kind ' : ''}yet.</p> : null}
      <ol class="deliveries">
        {(rows?.items ?? []).map((d) => {
          const f = fate(d, industry);
          return (
            <li key={d.id} class={`card delivery ${d.priority === 'P1' ? 'tone-edge-alarm' : d.priority === 'P2' ? 'tone-edge-warn' : ''}`} data-delivery-status={d.status}>
              <div class="delivery-head">
                <span class="badge">{f.label}</span>
                <strong>{EVENT_WORDS[d.event]?.(d.escalation_level) ?? d.event}{d.priority ? `, ${d.priority}` : ''}</strong>
                <time class="muted" dateTime={d.created_at}>{when(d.created_at)}</time>
              </div>
              <p class="delivery-subject">{d.subject}</p>
              <p class="muted">To {d.recipient} by {nameOf(d.channel_id)}.</p>
              <p class={`delivery-fate ${d.status === 'failed' ? 'failed' : ''}`}>{f.words}</p>
              {mayRetry && d.status === 'failed' ? <button type="button" class="btn small" onClick={() => void retry(d.id)}>Try again</button> : null}
            </li>
          );
        })}
      </ol>
      {rows && rows.total > PAGE ? (
        <nav class="pager" aria-label="Pages of messages">
          <button type="button" class="btn" disabled={page === 0} onClick={() => setPage(page - 1)}>Newer</button>
          <span>{page * PAGE + 1}–{Math.min(rows.total, (page + 1) * PAGE)} of {rows.total}</span>
          <button type="button" class="btn" disabled={page >= last} onClick={() => setPage(page + 1)}>Older</button>
        </nav>
      ) : null}
    </section>
  );
}
