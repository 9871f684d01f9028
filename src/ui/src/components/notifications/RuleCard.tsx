// One rule in a sentence ("P1 alarms of House 3 go by e-mail to ...: a new alarm; at once only"),
// with Change and Delete for those who may.
import { useState } from 'preact/hooks';
import { describeError } from '../../lib/api';
import { t } from '../../lib/i18n';
import { API, listWords, ruleWords, severityWord, type Channel, type Rule } from './model';
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
      <h3 class="card-title">{r.name}{r.enabled ? '' : <span class="muted"> {t('notifications.rule.not_in_use')}</span>}</h3>
      <p class="rule-words">{ruleWords(r, channel, industry)}</p>
      {r.severities.length ? <p class="muted">{t('notifications.rule.severities', { list: listWords(r.severities.map((x) => severityWord(x))) })}</p> : null}
      {error ? <p class="error" role="alert">{error}</p> : null}
      {mayChange || mayRemove ? (
        <div class="actions">
          {mayChange ? <button type="button" class="btn" onClick={onChange}>{t('notifications.change')}</button> : null}
          {mayRemove && !confirm ? <button type="button" class="btn" onClick={() => setConfirm(true)}>{t('notifications.delete')}</button> : null}
        </div>
      ) : null}
      {confirm ? (
        <div class="confirm" role="alertdialog" aria-label={t('notifications.delete_ask', { name: r.name })}>
          <p>{t('notifications.rule.delete_confirm', { name: r.name })}</p>
          <div class="actions">
            <button type="button" class="btn primary" onClick={() => void remove()}>{t('notifications.delete_it')}</button>
            <button type="button" class="btn" onClick={() => setConfirm(false)}>{t('notifications.keep_it')}</button>
          </div>
        </div>
      ) : null}
    </li>
  );
}
