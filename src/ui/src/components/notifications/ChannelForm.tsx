// A channel as a form, for those who may change channels. E-mail: the mail server, its port and
// encryption in words, the login, the sender and the recipients (one per line or with commas).
// Webhook: its address and signing key. Secrets are never shown: a saved one reads "set" with
// Replace; a key made here is handed to the screen to show once.
import { useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../../lib/api';
import { API, addresses, isAddress, TLS_PORT, TLS_WORDS, type Channel, type Tls } from './model';
import { described, refusedFields, Row, valueOf, checkedOf } from './fields';
import { newSigningKey } from './OneTimeKey';
import { patchItem } from './write';

type Key = 'name' | 'smtp_host' | 'smtp_port' | 'smtp_tls' | 'smtp_user' | 'smtp_from' | 'recipients' | 'webhook_url' | 'site_name' | 'link_url';
type Draft = Record<Key, string> & { enabled: boolean; secret: string; secretMode: 'keep' | 'replace' | 'generate' };

const draftOf = (kind: Channel['kind'], c?: Channel): Draft => ({
  name: c?.name ?? '', smtp_host: c?.smtp_host ?? '', smtp_port: String(c?.smtp_port ?? 587), smtp_tls: c?.smtp_tls ?? 'starttls', smtp_user: c?.smtp_user ?? '',
  smtp_from: c?.smtp_from ?? '', recipients: (c?.recipients ?? []).join('\n'), webhook_url: c?.webhook_url ?? '', site_name: c?.site_name ?? '', link_url: c?.link_url ?? '',
  enabled: c?.enabled ?? true, secret: '', secretMode: c?.has_secret ? 'keep' : kind === 'webhook' ? 'generate' : 'replace',
});

function problems(kind: Channel['kind'], d: Draft): Partial<Record<Key | 'secret', string>> {
  const p: Partial<Record<Key | 'secret', string>> = {};
  if (!d.name.trim()) p.name = 'Give it a name people will recognise.';
  const url = (s: string) => /^https?:\/\/[^\s/]+/i.test(s.trim());
  if (d.link_url.trim() && !url(d.link_url)) p.link_url = 'An address starting with http:// or https://.';
  if (kind === 'email') {
    if (!d.smtp_host.trim()) p.smtp_host = 'The mail server\'s name or address.';
    const port = Number(d.smtp_port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) p.smtp_port = 'A whole number from 1 to 65535.';
    if (!isAddress(d.smtp_from)) p.smtp_from = 'An e-mail address, like box@farm.example.';
    const r = addresses(d.recipients);
    if (r.bad.length) p.recipients = `Not an e-mail address: ${r.bad.join(', ')}.`;
  } else {
    if (!url(d.webhook_url)) p.webhook_url = 'An address starting with http:// or https://.';
    if (d.secretMode === 'replace' && d.secret.length < 16) p.secret = 'At least 16 characters.';
  }
  return p;
}

/** What to send: a create's whole item, or a change's changed fields only (an unchanged webhook address keeps its hidden token). */
function bodyOf(kind: Channel['kind'], d: Draft, c: Channel | undefined, key: string | null): Record<string, unknown> {
  const opt = (s: string) => (s.trim() ? s.trim() : null);
  const all: Record<string, unknown> = { name: d.name.trim(), enabled: d.enabled, site_name: opt(d.site_name), link_url: opt(d.link_url) };
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

export function ChannelForm({ kind, channel, onSaved, onCancel }: { kind: Channel['kind']; channel?: Channel; onSaved: (c: Channel, key: string | null) => void; onCancel: () => void }) {
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
  const secretLabel = kind === 'email' ? 'Password' : 'Signing key';
  return (
    <form class="command-form channel-form" data-channel-form={kind} onSubmit={(e) => void save(e)} noValidate>
      <h3>{channel ? `Change ${channel.name}` : kind === 'email' ? 'New e-mail channel' : 'New webhook'}</h3>
      {text('name', 'Name', kind === 'email' ? 'Like "Farm mail".' : 'Like "Dialler".')}
      {kind === 'email' ? (
        <>
          <div class="form-grid">
            {text('smtp_host', 'Mail server', 'Like smtp.provider.example.')}
            {text('smtp_port', 'Port', undefined, 'text', { inputMode: 'numeric' })}
          </div>
          <fieldset class="choices">
            <legend>Encryption</legend>
            {(Object.keys(TLS_WORDS) as Tls[]).map((t) => (
              <label class={`choice ${d.smtp_tls === t ? 'chosen' : ''}`} key={t}>
                <input type="radio" name={`${pre}-tls`} value={t} checked={d.smtp_tls === t}
                  onChange={() => set({ smtp_tls: t, smtp_port: Object.values(TLS_PORT).map(String).includes(d.smtp_port) ? String(TLS_PORT[t]) : d.smtp_port })} />
                {TLS_WORDS[t]}
              </label>
            ))}
          </fieldset>
          {text('smtp_user', 'Login', 'Empty when the server takes mail without a login.')}
        </>
      ) : (
        text('webhook_url', 'Address (URL)', 'Where the messages are sent. A token after ? is kept but never shown again.', 'url')
      )}
      <Secret label={secretLabel} kind={kind} pre={pre} d={d} set={set} problem={show('secret')} saved={!!channel?.has_secret} />
      {kind === 'email' ? (
        <>
          {text('smtp_from', 'Sender address', 'The address the messages come from.', 'email')}
          <Row id={`${pre}-recipients`} label="Recipients" hint="One address per line, or separated by commas. Rules may name others." problem={show('recipients')}>
            <textarea id={`${pre}-recipients`} name="recipients" rows={3} value={d.recipients} {...described(`${pre}-recipients`, true, show('recipients'))} onInput={(e) => set({ recipients: valueOf(e) })} />
          </Row>
        </>
      ) : null}
      {text('site_name', 'Site name in messages', 'Empty: the site\'s id.')}
      {text('link_url', 'Link to this box in messages', 'Like http://farm-box.local:8080/ (optional).', 'url')}
      <label class="check"><input type="checkbox" name="enabled" checked={d.enabled} onChange={(e) => set({ enabled: checkedOf(e) })} /> In use</label>
      {error ? <p class="error" role="alert">{error}</p> : null}
      <div class="actions">
        <button type="submit" class="btn primary" disabled={busy}>{busy ? 'Saving…' : 'Save'}</button>
        <button type="button" class="btn" onClick={onCancel} disabled={busy}>Cancel</button>
      </div>
    </form>
  );
}

function Secret({ label, kind, pre, d, set, problem, saved }: { label: string; kind: Channel['kind']; pre: string; d: Draft; set: (p: Partial<Draft>) => void; problem?: string; saved: boolean }) {
  if (d.secretMode === 'keep') {
    return (
      <div class="form-row secret-set" data-secret="set">
        <span class="label">{label}</span>
        <span><strong>set</strong> <span class="muted">(never shown again)</span></span>
        <button type="button" class="btn small" onClick={() => set({ secretMode: kind === 'webhook' ? 'generate' : 'replace', secret: '' })}>Replace {label.toLowerCase()}</button>
      </div>
    );
  }
  const id = `${pre}-secret`;
  if (kind === 'email' && !saved) {
    return (
      <Row id={id} label="Password" hint="Empty: no password." problem={problem}>
        <input id={id} name="secret" type="password" autoComplete="new-password" value={d.secret} {...described(id, true, problem)} onInput={(e) => set({ secret: valueOf(e) })} />
      </Row>
    );
  }
  return (
    <fieldset class="choices" data-secret="new">
      <legend>{label}{saved ? ' (replacing the one set)' : ''}</legend>
      {kind === 'webhook' ? (
        <>
          <label class={`choice ${d.secretMode === 'generate' ? 'chosen' : ''}`}><input type="radio" name={`${pre}-keymode`} checked={d.secretMode === 'generate'} onChange={() => set({ secretMode: 'generate' })} /> Make a new key here (shown once after saving)</label>
          <label class={`choice ${d.secretMode === 'replace' ? 'chosen' : ''}`}><input type="radio" name={`${pre}-keymode`} checked={d.secretMode === 'replace'} onChange={() => set({ secretMode: 'replace' })} /> Type the key the receiver gave you</label>
        </>
      ) : null}
      {d.secretMode === 'replace' ? (
        <Row id={id} label={kind === 'email' ? 'Password' : 'Key'} hint={kind === 'email' ? 'Empty: no password.' : 'At least 16 characters.'} problem={problem}>
          <input id={id} name="secret" type="password" autoComplete="new-password" value={d.secret} {...described(id, true, problem)} onInput={(e) => set({ secret: valueOf(e) })} />
        </Row>
      ) : null}
      {saved ? <button type="button" class="btn small" onClick={() => set({ secretMode: 'keep', secret: '' })}>Keep the one set</button> : null}
    </fieldset>
  );
}
