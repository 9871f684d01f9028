// A rule as a form: which channel, which priorities, which houses (rooms, fields), on which events
// and how far up the escalation, and for e-mail who (else the channel's recipients). Checkboxes
// and choices; the houses the box knows are ticked, others typed by number.
import { useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../../lib/api';
import { t } from '../../lib/i18n';
import { API, addresses, EVENTS, industryOf, listWords, place, PRIORITIES, priorityWords, REACH, reachOf, unitIds, type Channel, type EventFlag, type Rule } from './model';
import { checkedOf, described, refusedFields, Row, valueOf } from './fields';
import { patchItem } from './write';

interface Draft { name: string; channel_id: string; priorities: string[]; every: boolean; units: string[]; more: string; reach: string; recipients: string; enabled: boolean; flags: Record<EventFlag, boolean> }

const draftOf = (r: Rule | undefined, channels: Channel[], known: string[]): Draft => ({
  name: r?.name ?? '', channel_id: r?.channel_id ?? channels[0]?.id ?? '', priorities: r?.priorities ?? ['P1'], every: !r?.unit_ids.length,
  units: (r?.unit_ids ?? []).filter((u) => known.includes(u)), more: (r?.unit_ids ?? []).filter((u) => !known.includes(u)).join(', '),
  reach: r ? (reachOf(r)?.id ?? 'custom') : 'all', recipients: (r?.recipients ?? []).join('\n'), enabled: r?.enabled ?? true,
  flags: { on_raise: r?.on_raise ?? true, on_escalation: r?.on_escalation ?? true, on_ack: r?.on_ack ?? false, on_clear: r?.on_clear ?? false },
});

export function RuleForm({ rule, channels, known, industry, onSaved, onCancel }: { rule?: Rule; channels: Channel[]; known: string[]; industry: string; onSaved: (r: Rule) => void; onCancel: () => void }) {
  const [d, setD] = useState<Draft>(() => draftOf(rule, channels, known));
  const [touched, setTouched] = useState(false);
  const [refused, setRefused] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (p: Partial<Draft>) => { setD({ ...d, ...p }); setRefused({}); setError(''); };
  const channel = channels.find((c) => c.id === d.channel_id);
  const typed = unitIds(d.more);
  const units = d.every ? [] : [...new Set([...d.units, ...typed.ok])];
  const people = addresses(d.recipients);
  const wrong: Record<string, string> = {};
  const ind = industryOf(industry);
  if (!d.name.trim()) wrong.name = t('notifications.ruleform.name_missing');
  if (!channel) wrong.channel_id = t('notifications.ruleform.channel_missing');
  if (!d.every && typed.bad.length) wrong.unit_ids = t('notifications.ruleform.units_bad', { industry: ind, list: typed.bad.join(', ') });
  else if (!d.every && !units.length) wrong.unit_ids = t('notifications.ruleform.units_none', { industry: ind });
  if (channel?.kind === 'email' && people.bad.length) wrong.recipients = t('notifications.form.not_addresses', { list: people.bad.join(', ') });
  if (channel?.kind === 'email' && !people.ok.length && !channel.recipients.length) wrong.recipients = t('notifications.ruleform.to_missing');
  if (!Object.values(d.flags).some(Boolean)) wrong.flags = t('notifications.ruleform.tick_one');
  const show = (k: string) => refused[k] ?? (touched ? wrong[k] : undefined);
  const pre = `rule-${rule?.id ?? 'new'}`;

  const save = async (e: Event) => {
    e.preventDefault();
    setTouched(true);
    if (Object.keys(wrong).length) return;
    const reach = REACH.find((x) => x.id === d.reach);
    const item: Record<string, unknown> = {
      name: d.name.trim(), channel_id: d.channel_id, priorities: d.priorities, unit_ids: units, enabled: d.enabled, ...d.flags,
      recipients: channel?.kind === 'email' ? people.ok : [],
      ...(reach ? { min_escalation_level: reach.min, max_escalation_level: reach.max } : {}),
    };
    setBusy(true);
    try {
      onSaved(rule ? await patchItem<Rule>(`${API}/notification-rules/${encodeURIComponent(rule.id)}`, item) : await post<Rule>(`${API}/notification-rules`, { item }));
    } catch (err) {
      if (err instanceof ApiError) setRefused(refusedFields(err.details));
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  const tick = (list: string[], v: string, on: boolean) => (on ? [...list.filter((x) => x !== v), v] : list.filter((x) => x !== v));
  return (
    <form class="command-form rule-form" data-rule-form={rule?.id ?? 'new'} onSubmit={(e) => void save(e)} noValidate>
      <h3>{rule ? t('notifications.form.change_title', { name: rule.name }) : t('notifications.ruleform.new_title')}</h3>
      <Row id={`${pre}-name`} label={t('notifications.form.name')} problem={show('name')}>
        <input id={`${pre}-name`} name="name" value={d.name} autoComplete="off" {...described(`${pre}-name`, false, show('name'))} onInput={(e) => set({ name: valueOf(e) })} />
      </Row>
      <Row id={`${pre}-channel`} label={t('notifications.ruleform.send_by')} problem={show('channel_id')}>
        <select id={`${pre}-channel`} name="channel_id" value={d.channel_id} {...described(`${pre}-channel`, false, show('channel_id'))} onChange={(e) => set({ channel_id: valueOf(e) })}>
          {channels.map((c) => <option key={c.id} value={c.id}>{t('notifications.ruleform.channel_option', { name: c.name, kind: c.kind })}</option>)}
        </select>
      </Row>
      <fieldset class="choices">
        <legend>{t('notifications.ruleform.which')}</legend>
        {PRIORITIES.map((p) => (
          <label class="check" key={p}><input type="checkbox" name="priority" value={p} checked={d.priorities.includes(p)} onChange={(e) => set({ priorities: tick(d.priorities, p, checkedOf(e)) })} /> {priorityWords(p)}</label>
        ))}
        <small class="muted">{d.priorities.length ? '' : t('notifications.ruleform.any_priority')}</small>
      </fieldset>
      <fieldset class="choices" aria-describedby={`${pre}-units-err`}>
        <legend>{t('notifications.ruleform.of_which', { industry: ind })}</legend>
        <label class="check"><input type="radio" name={`${pre}-every`} checked={d.every} onChange={() => set({ every: true })} /> {t('notifications.ruleform.every', { industry: ind })}</label>
        <label class="check"><input type="radio" name={`${pre}-every`} checked={!d.every} onChange={() => set({ every: false })} /> {t('notifications.ruleform.only_these', { industry: ind })}</label>
        {!d.every ? (
          <div class="unit-picks">
            {known.map((u) => <label class="check" key={u}><input type="checkbox" name="unit" value={u} checked={d.units.includes(u)} onChange={(e) => set({ units: tick(d.units, u, checkedOf(e)) })} /> {place(industry, u)}</label>)}
            <Row id={`${pre}-more`} label={t('notifications.ruleform.numbers', { industry: ind, others: known.length ? 'yes' : 'no' })} hint={t('notifications.ruleform.numbers_hint')}>
              <input id={`${pre}-more`} name="units" value={d.more} autoComplete="off" {...described(`${pre}-more`, true, undefined)} onInput={(e) => set({ more: valueOf(e) })} />
            </Row>
            {units.length ? <small>{t('notifications.ruleform.chosen', { list: listWords(units.map((u) => place(industry, u))) })}</small> : null}
          </div>
        ) : null}
        <span class="field-error" id={`${pre}-units-err`}>{show('unit_ids') ?? ''}</span>
      </fieldset>
      <fieldset class="choices" aria-describedby={`${pre}-flags-err`}>
        <legend>{t('notifications.ruleform.when')}</legend>
        {EVENTS.map(([k, w]) => <label class="check" key={k}><input type="checkbox" name={k} checked={d.flags[k]} onChange={(e) => set({ flags: { ...d.flags, [k]: checkedOf(e) } })} /> {t(w)}</label>)}
        <span class="field-error" id={`${pre}-flags-err`}>{show('flags') ?? ''}</span>
      </fieldset>
      <Row id={`${pre}-reach`} label={t('notifications.ruleform.how_soon')}>
        <select id={`${pre}-reach`} name="reach" value={d.reach} onChange={(e) => set({ reach: valueOf(e) })}>
          {REACH.map((x) => <option key={x.id} value={x.id}>{t(x.words)}</option>)}
          {d.reach === 'custom' && rule ? <option value="custom">{t('notifications.ruleform.as_before', { min: rule.min_escalation_level, hasMax: rule.max_escalation_level === null ? 'no' : 'yes', max: rule.max_escalation_level ?? 0 })}</option> : null}
        </select>
      </Row>
      {channel?.kind === 'email' ? (
        <Row id={`${pre}-to`} label={t('notifications.ruleform.to')} hint={channel.recipients.length ? t('notifications.ruleform.to_hint_channel', { list: listWords(channel.recipients) }) : t('notifications.ruleform.to_hint')} problem={show('recipients')}>
          <textarea id={`${pre}-to`} name="recipients" rows={2} value={d.recipients} {...described(`${pre}-to`, true, show('recipients'))} onInput={(e) => set({ recipients: valueOf(e) })} />
        </Row>
      ) : null}
      <label class="check"><input type="checkbox" name="enabled" checked={d.enabled} onChange={(e) => set({ enabled: checkedOf(e) })} /> {t('notifications.in_use')}</label>
      {error ? <p class="error" role="alert">{error}</p> : null}
      <div class="actions">
        <button type="submit" class="btn primary" disabled={busy}>{busy ? t('notifications.saving') : t('common.action.save')}</button>
        <button type="button" class="btn" onClick={onCancel} disabled={busy}>{t('common.action.cancel')}</button>
      </div>
    </form>
  );
}
