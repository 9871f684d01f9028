// One rule in a sentence ("P1 alarms of House 3 go by e-mail to ...: a new alarm; at once only"),
// with Change and Delete for those who may.
import { useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { API, ruleWords, type Channel, type Rule } from './model';
import { deleteItem } from './write';

export function RuleCard({ r, channel, industry, mayChange, mayRemove, onChange, onDeleted }: {
  r: Rule; channel: Channel | undefined; industry: string; mayChange: boolean; mayRemove: boolean; onChange: () => void; onDeleted: () => void;
}) {
  const [confirm, setConfirm] = useState(false);
  const [error, setError] = useState('');
  const remove = async () => {
    try {
      await deleteItem(`${API}/notification-rules/${encodeURIComponent(r.id)}`);
      onDeleted();
    } catch (err) {
      setError(describeError(err));
      setConfirm(false);
    }
  };
  return (
    <li class={`card rule-card ${r.enabled ? '' : 'off'}`} data-rule={r.name}>
      <h3 class="card-title">{r.name}{r.enabled ? '' : <span class="muted"> (not in use)</span>}</h3>
      <p class="rule-words">{ruleWords(r, channel, industry)}</p>
      {r.severities.length ? <p class="muted">Only of severity {r.severities.join(', ')}.</p> : null}
      {error ? <p class="error" role="alert">{error}</p> : null}
      {mayChange || mayRemove ? (
        <div class="actions">
          {mayChange ? <button type="button" class="btn" onClick={onChange}>Change</button> : null}
          {mayRemove && !confirm ? <button type="button" class="btn" onClick={() => setConfirm(true)}>Delete</button> : null}
        </div>
      ) : null}
      {confirm ? (
        <div class="confirm" role="alertdialog" aria-label={`Delete ${r.name}?`}>
          <p>Delete {r.name}? Nobody is told by it any more.</p>
          <div class="actions">
            <button type="button" class="btn primary" onClick={() => void remove()}>Delete it</button>
            <button type="button" class="btn" onClick={() => setConfirm(false)}>Keep it</button>
          </div>
        </div>
      ) : null}
    </li>
  );
}
