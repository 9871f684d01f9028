// One channel in words (where its messages go, how, in which language, whether its secret is set)
// with, for those who may, "Send a test message" (the server's answer in the reader's words),
// Change and Delete.
import { useState } from 'preact/hooks';
import { ApiError, describeError } from '../../lib/api';
import { boxText, t, type MessageParams } from '../../lib/i18n';
import { API, listWords, tlsWords, type Channel } from './model';
import { deleteItem, runCommand } from './write';

export interface Abilities { test: boolean; change: boolean; remove: boolean }
interface Outcome { ok: boolean; words: string }

/** The primitive values of a detail, as message parameters. */
const paramsOf = (detail: Record<string, unknown>): MessageParams =>
  Object.fromEntries(Object.entries(detail).filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) as MessageParams;

/**
 * Why the test was not sent, in the reader's language: the refusal's detail names its words' key
 * and parameters (the server's English message is the same words); a detail without them, the
 * server's message. Never the box's own status code.
 */
function outcomeOf(err: unknown): Outcome {
  if (err instanceof ApiError && err.code === 'notification_test_failed') {
    const detail = err.details[0] ?? { field: '', reason: '' };
    const key = typeof detail.words_key === 'string' ? detail.words_key : '';
    const why = key ? boxText(key, paramsOf(detail), '') : '';
    return { ok: false, words: why ? t('notifications.test_result.failed', { why }) : err.message };
  }
  return { ok: false, words: describeError(err) };
}

/** The answer of a test that went out, in the reader's language. */
const sentWords = (c: Channel, reply: string): string => (c.kind === 'email'
  ? t('notifications.test_result.sent_email', { hasReply: reply ? 'yes' : 'no', reply })
  : t('notifications.test_result.sent_webhook', { status: reply }));

export function ChannelCard({ c, can, rules, languageName, onChange, onDeleted }: {
  c: Channel; can: Abilities; rules: number; languageName: (code: string | null) => string; onChange: () => void; onDeleted: () => void;
}) {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const test = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      const r = await runCommand<{ reply: string }>(`${API}/notification-channels/commands/test`, { id: c.id });
      setOutcome({ ok: true, words: sentWords(c, r.reply) });
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
      <h3 id={h} class="card-title">{c.name} <span class="muted">{t('notifications.channel.kind', { kind: c.kind, enabled: c.enabled ? 'yes' : 'no' })}</span></h3>
      {c.kind === 'email' ? (
        <dl class="detail-fields">
          <dt>{t('notifications.channel.mail_server')}</dt><dd>{t('notifications.channel.host_port', { host: c.smtp_host ?? '', port: c.smtp_port ?? '' })}</dd>
          <dt>{t('notifications.channel.encryption')}</dt><dd>{c.smtp_tls ? tlsWords(c.smtp_tls) : t('notifications.channel.not_set')}</dd>
          <dt>{t('notifications.channel.login')}</dt><dd>{c.smtp_user ? t('notifications.channel.login_value', { user: c.smtp_user, password: c.has_secret ? 'set' : 'unset' }) : t('notifications.channel.login_none')}</dd>
          <dt>{t('notifications.channel.sender')}</dt><dd>{c.smtp_from}</dd>
          <dt>{t('notifications.channel.recipients')}</dt><dd>{c.recipients.length ? listWords(c.recipients) : t('notifications.channel.recipients_none')}</dd>
          <dt>{t('notifications.channel.language')}</dt><dd>{languageName(c.language)}</dd>
        </dl>
      ) : (
        <dl class="detail-fields">
          <dt>{t('notifications.channel.address')}</dt><dd>{c.webhook_url}</dd>
          <dt>{t('notifications.channel.signing_key')}</dt><dd>{c.has_secret ? t('notifications.channel.set') : t('notifications.channel.not_set')}</dd>
          <dt>{t('notifications.channel.language')}</dt><dd>{languageName(c.language)}</dd>
        </dl>
      )}
      {outcome ? <p class={`test-outcome ${outcome.ok ? 'ok' : 'failed'}`} role="status" data-test-outcome={outcome.ok ? 'sent' : 'failed'}>{outcome.words}</p> : null}
      {can.test || can.change || can.remove ? (
        <div class="actions">
          {can.test ? <button type="button" class="btn primary" disabled={busy} onClick={() => void test()}>{busy ? t('notifications.channel.sending') : t('notifications.channel.test')}</button> : null}
          {can.change ? <button type="button" class="btn" onClick={onChange}>{t('notifications.change')}</button> : null}
          {can.remove && !confirm ? <button type="button" class="btn" onClick={() => setConfirm(true)}>{t('notifications.delete')}</button> : null}
        </div>
      ) : null}
      {confirm ? (
        <div class="confirm" role="alertdialog" aria-label={t('notifications.delete_ask', { name: c.name })}>
          <p>{t('notifications.channel.delete_confirm', { name: c.name, rules })}</p>
          <div class="actions">
            <button type="button" class="btn primary" onClick={() => void remove()}>{t('notifications.delete_it')}</button>
            <button type="button" class="btn" onClick={() => setConfirm(false)}>{t('notifications.keep_it')}</button>
          </div>
        </div>
      ) : null}
    </li>
  );
}
