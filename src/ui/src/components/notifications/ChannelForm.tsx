// A channel as a form, for those who may change channels. E-mail: the mail server, its port and
// encryption in words, the login, the sender and the recipients (one per line or with commas).
// Webhook: its address and signing key. Both: the language its messages are written in (each
// language by its own name; first the site's default, which a channel without one follows).
// Secrets are never shown: a saved one reads "set" with Replace; a key made here is handed to the
// screen to show once.
import { useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../../lib/api';
import { t, type OfferedLanguage } from '../../lib/i18n';
import { API, addresses, isAddress, TLS_MODES, TLS_PORT, tlsWords, type Channel, type Tls } from './model';
import { described, refusedFields, Row, valueOf, checkedOf } from './fields';
import { newSigningKey } from './OneTimeKey';
import { patchItem } from './write';

type Key = 'name' | 'smtp_host' | 'smtp_port' | 'smtp_tls' | 'smtp_user' | 'smtp_from' | 'recipients' | 'webhook_url' | 'site_name' | 'link_url' | 'language';
type Draft = Record<Key, string> & { enabled: boolean; secret: string; secretMode: 'keep' | 'replace' | 'generate' };

const draftOf = (kind: Channel['kind'], c?: Channel): Draft => ({
  name: c?.name ?? '', smtp_host: c?.smtp_host ?? '', smtp_port: String(c?.smtp_port ?? 587), smtp_tls: c?.smtp_tls ?? 'starttls', smtp_user: c?.smtp_user ?? '',
  smtp_from: c?.smtp_from ?? '', recipients: (c?.recipients ?? []).join('\n'), webhook_url: c?.webhook_url ?? '', site_name: c?.site_name ?? '', link_url: c?.link_url ?? '', language: c?.language ?? '',
  enabled: c?.enabled ?? true, secret: '', secretMode: c?.has_secret ? 'keep' : kind === 'webhook' ? 'generate' : 'replace',
});

function problems(kind: Channel['kind'], d: Draft): Partial<Record<Key | 'secret', string>> {
  const p: Partial<Record<Key | 'secret', string>> = {};
  if (!d.name.trim()) p.name = t('notifications.form.name_missing');
  const url = (s: string) => /^https?:\/\/[^\s/]+/i.test(s.trim());
  if (d.link_url.trim() && !url(d.link_url)) p.link_url = t('notifications.form.url_wrong');
  if (kind === 'email') {
    if (!d.smtp_host.trim()) p.smtp_host = t('notifications.form.host_missing');
    const port = Number(d.smtp_port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) p.smtp_port = t('notifications.form.port_wrong');
    if (!isAddress(d.smtp_from)) p.smtp_from = t('notifications.form.from_wrong');
    const r = addresses(d.recipients);
    if (r.bad.length) p.recipients = t('notifications.form.not_addresses', { list: r.bad.join(', ') });
  } else {
    if (!url(d.webhook_url)) p.webhook_url = t('notifications.form.url_wrong');
    if (d.secretMode === 'replace' && d.secret.length < 16) p.secret = t('notifications.form.key_short');
  }
  return p;
}

/** What to send: a create's whole item, or a change's changed fields only (an unchanged webhook address keeps its hidden token). */
function bodyOf(kind: Channel['kind'], d: Draft, c: Channel | undefined, key: string | null): Record<string, unknown> {
  const opt = (s: string) => (s.trim() ? s.trim() : null);
  const all: Record<string, unknown> = { name: d.name.trim(), enabled: d.enabled, site_name: opt(d.site_name), link_url: opt(d.link_url), language: opt(d.language) };
  if (kind === 'email') {
    Object.assign(all, { smtp_host: d.smtp_host.trim(), smtp_port: Number(d.smtp_port), smtp_tls: d.smtp_tls, smtp_user: opt(d.smtp_user), smtp_from: d.smtp_from.trim(), recipients: addresses(d.recipients).ok });
    if (d.secretMode === 'replace' && d.secret) all.smtp_password = d.secret;
  } else {
    all.webhook_url = d.webhook_url.trim();
    if (key) all.webhook_key = key;
  }
  if (!c) return { kind, ...all };
  const before = bodyOf(kind, draftOf(kind, c), undefined, null) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(all).filter(([k, v]) => k === 'smtp_password' || k === 'webhook_key' || JSON.stringify(v) !== JSON.stringify(before[k])));
}

/** The language choice: the site's default first ("Site default (English)"), then each language the box offers by its own name. */
function LanguageRow({ pre, value, languages, siteDefault, problem, onPick }: {
  pre: string; value: string; languages: OfferedLanguage[]; siteDefault: string; problem?: string; onPick: (code: string) => void;
}) {
  const id = `${pre}-language`;
  const nameOf = (code: string) => languages.find((l) => l.code === code)?.name ?? code;
  // A language the channel has that the box no longer offers (a site's file removed) stays listed, so the form does not change it unasked.
  const listed = value && !languages.some((l) => l.code === value) ? [...languages, { code: value, name: value, shipped: false, coverage: 0 }] : languages;
  return (
    <Row id={id} label={t('notifications.form.language')} hint={t('notifications.form.language_hint')} problem={problem}>
      <select id={id} name="language" value={value} {...described(id, true, problem)} onChange={(e) => onPick(valueOf(e))}>
        <option value="">{t('notifications.form.language_default', { name: nameOf(siteDefault) })}</option>
        {listed.map((l) => <option key={l.code} value={l.code} lang={l.code}>{l.name}</option>)}
      </select>
    </Row>
  );
}

export function ChannelForm({ kind, channel, languages, siteDefault, onSaved, onCancel }: {
  kind: Channel['kind']; channel?: Channel; languages: OfferedLanguage[]; siteDefault: string; onSaved: (c: Channel, key: string | null) => void; onCancel: () => void;
}) {
  const [d, setD] = useState<Draft>(() => draftOf(kind, channel));
  const [touched, setTouched] = useState(false);
  const [refused, setRefused] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const wrong = problems(kind, d);
  const show = (k: Key | 'secret') => refused[k === 'secret' ? (kind === 'email' ? 'smtp_password' : 'webhook_key') : k] ?? (touched ? wrong[k] : undefined);
  const set = (patch: Partial<Draft>) => { setD({ ...d, ...patch }); setRefused({}); setError(''); };
  const pre = `ch-${channel?.id ?? `new-${kind}`}`;
  const text = (k: Key, label: string, hint?: string, type = 'text', extra: Record<string, string> = {}) => (
    <Row id={`${pre}-${k}`} label={label} hint={hint} problem={show(k)}>
      <input id={`${pre}-${k}`} name={k} type={type} value={d[k]} autoComplete="off" {...extra} {...described(`${pre}-${k}`, !!hint, show(k))} onInput={(e) => set({ [k]: valueOf(e) })} />
    </Row>
  );
  const save = async (e: Event) => {
    e.preventDefault();
    setTouched(true);
    if (Object.keys(wrong).length) return;
    const key = kind === 'webhook' && d.secretMode === 'generate' ? newSigningKey() : kind === 'webhook' && d.secretMode === 'replace' ? d.secret : null;
    setBusy(true);
    try {
      const item = bodyOf(kind, d, channel, key);
      const saved = channel ? await patchItem<Channel>(`${API}/notification-channels/${encodeURIComponent(channel.id)}`, item) : await post<Channel>(`${API}/notification-channels`, { item });
      onSaved(saved, kind === 'webhook' && d.secretMode === 'generate' ? key : null);
    } catch (err) {
      if (err instanceof ApiError) setRefused(refusedFields(err.details));
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const secretLabel = kind === 'email' ? t('notifications.form.password') : t('notifications.form.signing_key');
  return (
    <form class="command-form channel-form" data-channel-form={kind} onSubmit={(e) => void save(e)} noValidate>
      <h3>{channel ? t('notifications.form.change_title', { name: channel.name }) : t('notifications.form.new_title', { kind })}</h3>
      {text('name', t('notifications.form.name'), t('notifications.form.name_hint', { kind }))}
      {kind === 'email' ? (
        <>
          <div class="form-grid">
            {text('smtp_host', t('notifications.channel.mail_server'), t('notifications.form.host_hint'))}
            {text('smtp_port', t('notifications.form.port'), undefined, 'text', { inputMode: 'numeric' })}
          </div>
          <fieldset class="choices">
            <legend>{t('notifications.channel.encryption')}</legend>
            {TLS_MODES.map((m: Tls) => (
              <label class={`choice ${d.smtp_tls === m ? 'chosen' : ''}`} key={m}>
                <input type="radio" name={`${pre}-tls`} value={m} checked={d.smtp_tls === m}
                  onChange={() => set({ smtp_tls: m, smtp_port: Object.values(TLS_PORT).map(String).includes(d.smtp_port) ? String(TLS_PORT[m]) : d.smtp_port })} />
                {tlsWords(m)}
              </label>
            ))}
          </fieldset>
          {text('smtp_user', t('notifications.channel.login'), t('notifications.form.login_hint'))}
        </>
      ) : (
        text('webhook_url', t('notifications.form.url'), t('notifications.form.url_hint'), 'url')
      )}
      <Secret label={secretLabel} kind={kind} pre={pre} d={d} set={set} problem={show('secret')} saved={!!channel?.has_secret} />
      {kind === 'email' ? (
        <>
          {text('smtp_from', t('notifications.form.from'), t('notifications.form.from_hint'), 'email')}
          <Row id={`${pre}-recipients`} label={t('notifications.channel.recipients')} hint={t('notifications.form.recipients_hint')} problem={show('recipients')}>
            <textarea id={`${pre}-recipients`} name="recipients" rows={3} value={d.recipients} {...described(`${pre}-recipients`, true, show('recipients'))} onInput={(e) => set({ recipients: valueOf(e) })} />
          </Row>
        </>
      ) : null}
      <LanguageRow pre={pre} value={d.language} languages={languages} siteDefault={siteDefault} problem={show('language')} onPick={(code) => set({ language: code })} />
      {text('site_name', t('notifications.form.site_name'), t('notifications.form.site_name_hint'))}
      {text('link_url', t('notifications.form.link'), t('notifications.form.link_hint'), 'url')}
      <label class="check"><input type="checkbox" name="enabled" checked={d.enabled} onChange={(e) => set({ enabled: checkedOf(e) })} /> {t('notifications.in_use')}</label>
      {error ? <p class="error" role="alert">{error}</p> : null}
      <div class="actions">
        <button type="submit" class="btn primary" disabled={busy}>{busy ? t('notifications.saving') : t('common.action.save')}</button>
        <button type="button" class="btn" onClick={onCancel} disabled={busy}>{t('common.action.cancel')}</button>
      </div>
    </form>
  );
}

function Secret({ label, kind, pre, d, set, problem, saved }: { label: string; kind: Channel['kind']; pre: string; d: Draft; set: (p: Partial<Draft>) => void; problem?: string; saved: boolean }) {
  if (d.secretMode === 'keep') {
    return (
      <div class="form-row secret-set" data-secret="set">
        <span class="label">{label}</span>
        <span><strong>{t('notifications.channel.set')}</strong> <span class="muted">{t('notifications.form.never_shown')}</span></span>
        <button type="button" class="btn small" onClick={() => set({ secretMode: kind === 'webhook' ? 'generate' : 'replace', secret: '' })}>{t('notifications.form.replace', { kind })}</button>
      </div>
    );
  }
  const id = `${pre}-secret`;
  if (kind === 'email' && !saved) {
    return (
      <Row id={id} label={t('notifications.form.password')} hint={t('notifications.form.password_hint')} problem={problem}>
        <input id={id} name="secret" type="password" autoComplete="new-password" value={d.secret} {...described(id, true, problem)} onInput={(e) => set({ secret: valueOf(e) })} />
      </Row>
    );
  }
  return (
    <fieldset class="choices" data-secret="new">
      <legend>{saved ? t('notifications.form.replacing', { label }) : label}</legend>
      {kind === 'webhook' ? (
        <>
          <label class={`choice ${d.secretMode === 'generate' ? 'chosen' : ''}`}><input type="radio" name={`${pre}-keymode`} checked={d.secretMode === 'generate'} onChange={() => set({ secretMode: 'generate' })} /> {t('notifications.form.key_generate')}</label>
          <label class={`choice ${d.secretMode === 'replace' ? 'chosen' : ''}`}><input type="radio" name={`${pre}-keymode`} checked={d.secretMode === 'replace'} onChange={() => set({ secretMode: 'replace' })} /> {t('notifications.form.key_type')}</label>
        </>
      ) : null}
      {d.secretMode === 'replace' ? (
        <Row id={id} label={kind === 'email' ? t('notifications.form.password') : t('notifications.form.key')} hint={kind === 'email' ? t('notifications.form.password_hint') : t('notifications.form.key_short')} problem={problem}>
          <input id={id} name="secret" type="password" autoComplete="new-password" value={d.secret} {...described(id, true, problem)} onInput={(e) => set({ secret: valueOf(e) })} />
        </Row>
      ) : null}
      {saved ? <button type="button" class="btn small" onClick={() => set({ secretMode: 'keep', secret: '' })}>{t('notifications.form.keep_set')}</button> : null}
    </fieldset>
  );
}
