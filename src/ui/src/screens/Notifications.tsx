// Notifications: how alarm messages leave the box (e-mail and webhook channels, as forms, each in
// its own language), who is told of what (rules by priority and house, room or field), and what
// was sent. Forms and buttons only for a role the permission matrix lets run them; everyone else
// reads. Every word from the notifications area of the catalogue, in the reader's language.
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList } from '../lib/api';
import { loadOffered, offered, siteDefault, t } from '../lib/i18n';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import { API, may, type Channel, type Rule } from '../components/notifications/model';
import { ChannelCard } from '../components/notifications/ChannelCard';
import { ChannelForm } from '../components/notifications/ChannelForm';
import { RuleCard } from '../components/notifications/RuleCard';
import { RuleForm } from '../components/notifications/RuleForm';
import { DeliveryLog } from '../components/notifications/DeliveryLog';
import { OneTimeKey } from '../components/notifications/OneTimeKey';

type Editing = { what: 'channel'; kind: Channel['kind']; c?: Channel } | { what: 'rule'; r?: Rule } | null;

export function Notifications() {
  const s = useObservable(session);
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const [rules, setRules] = useState<Rule[]>([]);
  const [known, setKnown] = useState<string[]>([]);
  const [editing, setEditing] = useState<Editing>(null);
  const [shown, setShown] = useState<{ channel: string; secret: string } | null>(null);
  const [said, setSaid] = useState('');
  const [error, setError] = useState('');
  const [tick, setTick] = useState(0);
  const industry = s?.industry ?? '';
  // The languages a channel may be written in (GET /app/i18n/languages.json), each by its own name.
  const langs = useObservable(offered);
  useEffect(() => { void loadOffered(); }, []);
  useEffect(() => {
    if (!s) return;
    Promise.all([getList<Channel>(`${API}/notification-channels/list?limit=500`), getList<Rule>(`${API}/notification-rules/list?limit=500`)])
      .then(([c, r]) => { setChannels(c.data.items); setRules(r.data.items); })
      .catch((err: unknown) => setError(describeError(err)));
    // The houses (rooms, fields) the box reads controllers in: offered as ticks in a rule.
    if (may(s, 'GET', `/${industry}-adapters/list`)) {
      getList<{ unit_id: string }>(`${API}/${industry}-adapters/list?limit=500`)
        .then((a) => setKnown([...new Set(a.data.items.map((x) => String(x.unit_id)))].sort((x, y) => x.localeCompare(y, undefined, { numeric: true }))))
        .catch(() => setKnown([]));
    }
  }, [tick, s, industry]);
  if (!s) return null;
  const can = {
    addChannel: may(s, 'POST', '/notification-channels'), changeChannel: may(s, 'PATCH', '/notification-channels/{id}'), removeChannel: may(s, 'DELETE', '/notification-channels/{id}'),
    test: may(s, 'POST', '/notification-channels/commands/test'), addRule: may(s, 'POST', '/notification-rules'), changeRule: may(s, 'PATCH', '/notification-rules/{id}'),
    removeRule: may(s, 'DELETE', '/notification-rules/{id}'), retry: may(s, 'POST', '/notification-deliveries/commands/retry'),
  };
  const readOnly = !Object.values(can).some(Boolean);
  const done = (words: string) => { setEditing(null); setSaid(words); setTick(tick + 1); };
  const list = channels ?? [];
  const languages = langs?.languages ?? [];
  const site = langs?.default ?? siteDefault();
  const nameOf = (code: string) => languages.find((l) => l.code === code)?.name ?? code;
  /** A channel's language by its own name; none: the site's default, named. */
  const languageName = (code: string | null) => (code ? nameOf(code) : t('notifications.form.language_default', { name: nameOf(site) }));

  return (
    <div class="notifications" data-screen="Notifications">
      <h1>{t('notifications.title')}</h1>
      <p>{t('notifications.intro')}</p>
      {readOnly ? <p class="notice" id="notifications-read-only">{t('notifications.read_only')}</p> : null}
      <p class="status-line" role="status">{said}</p>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {shown ? <OneTimeKey channel={shown.channel} secret={shown.secret} onDismiss={() => setShown(null)} /> : null}

      <section class="panel" aria-labelledby="channels-h" id="channels">
        <h2 id="channels-h">{t('notifications.channels')}</h2>
        {channels && !list.length ? <p class="empty">{t('notifications.channels_none')}</p> : null}
        <ul class="cards channel-cards">
          {list.map((c) => (
            editing?.what === 'channel' && editing.c?.id === c.id ? (
              <li class="card editing" key={c.id}>
                <ChannelForm kind={c.kind} channel={c} languages={languages} siteDefault={site} onCancel={() => setEditing(null)}
                  onSaved={(saved, key) => { if (key) setShown({ channel: saved.name, secret: key }); done(t('notifications.saved', { name: saved.name })); }} />
              </li>
            ) : (
              <ChannelCard key={c.id} c={c} rules={rules.filter((r) => r.channel_id === c.id).length} can={{ test: can.test, change: can.changeChannel, remove: can.removeChannel }} languageName={languageName}
                onChange={() => { setSaid(''); setEditing({ what: 'channel', kind: c.kind, c }); }} onDeleted={() => done(t('notifications.deleted', { name: c.name }))} />
            )
          ))}
        </ul>
        {editing?.what === 'channel' && !editing.c ? (
          <ChannelForm kind={editing.kind} languages={languages} siteDefault={site} onCancel={() => setEditing(null)}
            onSaved={(saved, key) => { if (key) setShown({ channel: saved.name, secret: key }); done(t('notifications.saved_test', { name: saved.name })); }} />
        ) : can.addChannel ? (
          <div class="actions">
            <button type="button" class="btn" id="add-email" onClick={() => { setSaid(''); setEditing({ what: 'channel', kind: 'email' }); }}>{t('notifications.add_email')}</button>
            <button type="button" class="btn" id="add-webhook" onClick={() => { setSaid(''); setEditing({ what: 'channel', kind: 'webhook' }); }}>{t('notifications.add_webhook')}</button>
          </div>
        ) : null}
      </section>

      <section class="panel" aria-labelledby="rules-h" id="rules">
        <h2 id="rules-h">{t('notifications.rules')}</h2>
        {channels && !rules.length ? <p class="empty">{t('notifications.rules_none')}</p> : null}
        <ul class="cards rule-cards">
          {rules.map((r) => (
            editing?.what === 'rule' && editing.r?.id === r.id ? (
              <li class="card editing" key={r.id}>
                <RuleForm rule={r} channels={list} known={known} industry={industry} onCancel={() => setEditing(null)} onSaved={(saved) => done(t('notifications.saved', { name: saved.name }))} />
              </li>
            ) : (
              <RuleCard key={r.id} r={r} channel={list.find((c) => c.id === r.channel_id)} industry={industry} mayChange={can.changeRule} mayRemove={can.removeRule}
                onChange={() => { setSaid(''); setEditing({ what: 'rule', r }); }} onDeleted={() => done(t('notifications.deleted', { name: r.name }))} />
            )
          ))}
        </ul>
        {editing?.what === 'rule' && !editing.r ? (
          <RuleForm channels={list} known={known} industry={industry} onCancel={() => setEditing(null)} onSaved={(saved) => done(t('notifications.saved', { name: saved.name }))} />
        ) : can.addRule && list.length ? (
          <div class="actions"><button type="button" class="btn" id="add-rule" onClick={() => { setSaid(''); setEditing({ what: 'rule' }); }}>{t('notifications.add_rule')}</button></div>
        ) : null}
      </section>

      <DeliveryLog channels={list} industry={industry} mayRetry={can.retry} refresh={tick} />
    </div>
  );
}
