// Notifications: how alarm messages leave the box (e-mail and webhook channels, as forms), who is
// told of what (rules by priority and house, room or field), and what was sent. Forms and buttons
// only for a role the permission matrix lets run them; everyone else reads.
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList } from '../lib/api';
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

  return (
    <div class="notifications" data-screen="Notifications">
      <h1>Notifications</h1>
      <p>Alarm messages leave the box by e-mail or to a webhook (a dialler, a chat bridge). Rules say who hears of which alarms.</p>
      {readOnly ? <p class="notice" id="notifications-read-only">Your role reads these settings; an administrator changes them.</p> : null}
      <p class="status-line" role="status">{said}</p>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {shown ? <OneTimeKey channel={shown.channel} secret={shown.secret} onDismiss={() => setShown(null)} /> : null}

      <section class="panel" aria-labelledby="channels-h" id="channels">
        <h2 id="channels-h">Channels</h2>
        {channels && !list.length ? <p class="empty">No channel yet: alarm messages do not leave the box.</p> : null}
        <ul class="cards channel-cards">
          {list.map((c) => (
            editing?.what === 'channel' && editing.c?.id === c.id ? (
              <li class="card editing" key={c.id}>
                <ChannelForm kind={c.kind} channel={c} onCancel={() => setEditing(null)} onSaved={(saved, key) => { if (key) setShown({ channel: saved.name, secret: key }); done(`${saved.name} saved.`); }} />
              </li>
            ) : (
              <ChannelCard key={c.id} c={c} rules={rules.filter((r) => r.channel_id === c.id).length} can={{ test: can.test, change: can.changeChannel, remove: can.removeChannel }}
                onChange={() => { setSaid(''); setEditing({ what: 'channel', kind: c.kind, c }); }} onDeleted={() => done(`${c.name} deleted.`)} />
            )
          ))}
        </ul>
        {editing?.what === 'channel' && !editing.c ? (
          <ChannelForm kind={editing.kind} onCancel={() => setEditing(null)}
            onSaved={(saved, key) => { if (key) setShown({ channel: saved.name, secret: key }); done(`${saved.name} saved. Send a test message to check it.`); }} />
        ) : can.addChannel ? (
          <div class="actions">
            <button type="button" class="btn" id="add-email" onClick={() => { setSaid(''); setEditing({ what: 'channel', kind: 'email' }); }}>Add an e-mail channel</button>
            <button type="button" class="btn" id="add-webhook" onClick={() => { setSaid(''); setEditing({ what: 'channel', kind: 'webhook' }); }}>Add a webhook</button>
          </div>
        ) : null}
      </section>

      <section class="panel" aria-labelledby="rules-h" id="rules">
        <h2 id="rules-h">Who is told of what</h2>
        {channels && !rules.length ? <p class="empty">No rule yet: nobody is told of alarms.</p> : null}
        <ul class="cards rule-cards">
          {rules.map((r) => (
            editing?.what === 'rule' && editing.r?.id === r.id ? (
              <li class="card editing" key={r.id}>
                <RuleForm rule={r} channels={list} known={known} industry={industry} onCancel={() => setEditing(null)} onSaved={(saved) => done(`${saved.name} saved.`)} />
              </li>
            ) : (
              <RuleCard key={r.id} r={r} channel={list.find((c) => c.id === r.channel_id)} industry={industry} mayChange={can.changeRule} mayRemove={can.removeRule}
                onChange={() => { setSaid(''); setEditing({ what: 'rule', r }); }} onDeleted={() => done(`${r.name} deleted.`)} />
            )
          ))}
        </ul>
        {editing?.what === 'rule' && !editing.r ? (
          <RuleForm channels={list} known={known} industry={industry} onCancel={() => setEditing(null)} onSaved={(saved) => done(`${saved.name} saved.`)} />
        ) : can.addRule && list.length ? (
          <div class="actions"><button type="button" class="btn" id="add-rule" onClick={() => { setSaid(''); setEditing({ what: 'rule' }); }}>Add a rule</button></div>
        ) : null}
      </section>

      <DeliveryLog channels={list} industry={industry} mayRetry={can.retry} refresh={tick} />
    </div>
  );
}
