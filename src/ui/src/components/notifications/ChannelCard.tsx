// One channel in words (where its messages go, how, whether its secret is set) with, for those
// who may, "Send a test message" (the server's answer in words), Change and Delete.
import { useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../../lib/api';
import { API, listWords, TLS_WORDS, type Channel } from './model';
import { deleteItem } from './write';

export interface Abilities { test: boolean; change: boolean; remove: boolean }
interface Outcome { ok: boolean; words: string }

/** The test's answer in words: the server's reply, or why it was not sent. Never the box's own status code. */
function outcomeOf(err: unknown): Outcome {
  if (err instanceof ApiError && err.code === 'notification_test_failed') return { ok: false, words: err.message };
  return { ok: false, words: describeError(err) };
}

export function ChannelCard({ c, can, rules, onChange, onDeleted }: { c: Channel; can: Abilities; rules: number; onChange: () => void; onDeleted: () => void }) {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const test = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      const r = await post<{ words: string }>(`${API}/notification-channels/commands/test`, { id: c.id });
      setOutcome({ ok: true, words: r.words });
    } catch (err) {
      setOutcome(outcomeOf(err));
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    try {
      await deleteItem(`${API}/notification-channels/${encodeURIComponent(c.id)}`);
      onDeleted();
    } catch (err) {
      setOutcome({ ok: false, words: describeError(err) });
      setConfirm(false);
    }
  };
  const h = `channel-${c.id}-h`;
  return (
    <li class={`card channel-card ${c.enabled ? '' : 'off'}`} data-channel={c.name} aria-labelledby={h}>
      <h3 id={h} class="card-title">{c.name} <span class="muted">{c.kind === 'email' ? 'e-mail' : 'webhook'}{c.enabled ? '' : ', not in use'}</span></h3>
      {c.kind === 'email' ? (
        <dl class="detail-fields">
          <dt>Mail server</dt><dd>{c.smtp_host} port {c.smtp_port}</dd>
          <dt>Encryption</dt><dd>{c.smtp_tls ? TLS_WORDS[c.smtp_tls] : 'not set'}</dd>
          <dt>Login</dt><dd>{c.smtp_user ? `${c.smtp_user}, password ${c.has_secret ? 'set' : 'not set'}` : 'none'}</dd>
          <dt>Sender</dt><dd>{c.smtp_from}</dd>
          <dt>Recipients</dt><dd>{c.recipients.length ? listWords(c.recipients) : 'none (each rule names its own)'}</dd>
        </dl>
      ) : (
        <dl class="detail-fields">
          <dt>Address</dt><dd>{c.webhook_url}</dd>
          <dt>Signing key</dt><dd>{c.has_secret ? 'set' : 'not set'}</dd>
        </dl>
      )}
      {outcome ? <p class={`test-outcome ${outcome.ok ? 'ok' : 'failed'}`} role="status" data-test-outcome={outcome.ok ? 'sent' : 'failed'}>{outcome.words}</p> : null}
      {can.test || can.change || can.remove ? (
        <div class="actions">
          {can.test ? <button type="button" class="btn primary" disabled={busy} onClick={() => void test()}>{busy ? 'Sending…' : 'Send a test message'}</button> : null}
          {can.change ? <button type="button" class="btn" onClick={onChange}>Change</button> : null}
          {can.remove && !confirm ? <button type="button" class="btn" onClick={() => setConfirm(true)}>Delete</button> : null}
        </div>
      ) : null}
      {confirm ? (
        <div class="confirm" role="alertdialog" aria-label={`Delete ${c.name}?`}>
          <p>Delete {c.name}? {rules ? `${rules} rule${rules === 1 ? '' : 's'} send${rules === 1 ? 's' : ''} by it and will send nothing.` : 'No rule uses it.'}</p>
          <div class="actions">
            <button type="button" class="btn primary" onClick={() => void remove()}>Delete it</button>
            <button type="button" class="btn" onClick={() => setConfirm(false)}>Keep it</button>
          </div>
        </div>
      ) : null}
    </li>
  );
}
