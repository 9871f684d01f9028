// A rule as a form: which channel, which priorities, which houses (rooms, fields), on which events
// and how far up the escalation, and for e-mail who (else the channel's recipients). Checkboxes
// and choices; the houses the box knows are ticked, others typed by number.
import { useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../../lib/api';
import { API, addresses, EVENTS, PRIORITY_WORDS, REACH, reachOf, listWords, place, unitIds, unitNoun, type Channel, type EventFlag, type Rule } from './model';
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
  if (!d.name.trim()) wrong.name = 'Give it a name, like "Crew at once".';
  if (!channel) wrong.channel_id = 'Make a channel first.';
  if (!d.every && typed.bad.length) wrong.unit_ids = `Not a ${unitNoun(industry)} number: ${typed.bad.join(', ')}.`;
  else if (!d.every && !units.length) wrong.unit_ids = `Tick or type at least one ${unitNoun(industry)}.`;
  if (channel?.kind === 'email' && people.bad.length) wrong.recipients = `Not an e-mail address: ${people.bad.join(', ')}.`;
  if (channel?.kind === 'email' && !people.ok.length && !channel.recipients.length) wrong.recipients = 'The channel has no recipients: name at least one here.';
  if (!Object.values(d.flags).some(Boolean)) wrong.flags = 'Tick at least one.';
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
      <h3>{rule ? `Change ${rule.name}` : 'New rule'}</h3>
      <Row id={`${pre}-name`} label="Name" problem={show('name')}>
        <input id={`${pre}-name`} name="name" value={d.name} autoComplete="off" {...described(`${pre}-name`, false, show('name'))} onInput={(e) => set({ name: valueOf(e) })} />
      </Row>
      <Row id={`${pre}-channel`} label="Send by" problem={show('channel_id')}>
        <select id={`${pre}-channel`} name="channel_id" value={d.channel_id} {...described(`${pre}-channel`, false, show('channel_id'))} onChange={(e) => set({ channel_id: valueOf(e) })}>
          {channels.map((c) => <option key={c.id} value={c.id}>{c.name} ({c.kind === 'email' ? 'e-mail' : 'webhook'})</option>)}
        </select>
      </Row>
      <fieldset class="choices">
        <legend>Which alarms</legend>
        {Object.entries(PRIORITY_WORDS).map(([p, w]) => (
          <label class="check" key={p}><input type="checkbox" name="priority" value={p} checked={d.priorities.includes(p)} onChange={(e) => set({ priorities: tick(d.priorities, p, checkedOf(e)) })} /> {w}</label>
        ))}
        <small class="muted">{d.priorities.length ? '' : 'None ticked: alarms of any priority.'}</small>
      </fieldset>
      <fieldset class="choices" aria-describedby={`${pre}-units-err`}>
        <legend>Of which {unitNoun(industry, true)}</legend>
        <label class="check"><input type="radio" name={`${pre}-every`} checked={d.every} onChange={() => set({ every: true })} /> Every {unitNoun(industry)}</label>
        <label class="check"><input type="radio" name={`${pre}-every`} checked={!d.every} onChange={() => set({ every: false })} /> Only these {unitNoun(industry, true)}</label>
        {!d.every ? (
          <div class="unit-picks">
            {known.map((u) => <label class="check" key={u}><input type="checkbox" name="unit" value={u} checked={d.units.includes(u)} onChange={(e) => set({ units: tick(d.units, u, checkedOf(e)) })} /> {place(industry, u)}</label>)}
            <Row id={`${pre}-more`} label={known.length ? `Other ${unitNoun(industry, true)} (numbers)` : `${unitNoun(industry, true).replace(/^./, (c) => c.toUpperCase())} (numbers)`} hint="Separated by commas, like 3, 4.">
              <input id={`${pre}-more`} name="units" value={d.more} autoComplete="off" {...described(`${pre}-more`, true, undefined)} onInput={(e) => set({ more: valueOf(e) })} />
            </Row>
            {units.length ? <small>Chosen: {listWords(units.map((u) => place(industry, u)))}.</small> : null}
          </div>
        ) : null}
        <span class="field-error" id={`${pre}-units-err`}>{show('unit_ids') ?? ''}</span>
      </fieldset>
      <fieldset class="choices" aria-describedby={`${pre}-flags-err`}>
        <legend>Tell them when</legend>
        {EVENTS.map(([k, w]) => <label class="check" key={k}><input type="checkbox" name={k} checked={d.flags[k]} onChange={(e) => set({ flags: { ...d.flags, [k]: checkedOf(e) } })} /> {w}</label>)}
        <span class="field-error" id={`${pre}-flags-err`}>{show('flags') ?? ''}</span>
      </fieldset>
      <Row id={`${pre}-reach`} label="How soon">
        <select id={`${pre}-reach`} name="reach" value={d.reach} onChange={(e) => set({ reach: valueOf(e) })}>
          {REACH.map((x) => <option key={x.id} value={x.id}>{x.words}</option>)}
          {d.reach === 'custom' && rule ? <option value="custom">As set before (escalation levels {rule.min_escalation_level} to {rule.max_escalation_level ?? 'any'})</option> : null}
        </select>
      </Row>
      {channel?.kind === 'email' ? (
        <Row id={`${pre}-to`} label="To" hint={channel.recipients.length ? `Empty: the channel's recipients (${listWords(channel.recipients)}).` : 'One address per line, or separated by commas.'} problem={show('recipients')}>
          <textarea id={`${pre}-to`} name="recipients" rows={2} value={d.recipients} {...described(`${pre}-to`, true, show('recipients'))} onInput={(e) => set({ recipients: valueOf(e) })} />
        </Row>
      ) : null}
      <label class="check"><input type="checkbox" name="enabled" checked={d.enabled} onChange={(e) => set({ enabled: checkedOf(e) })} /> In use</label>
      {error ? <p class="error" role="alert">{error}</p> : null}
      <div class="actions">
        <button type="submit" class="btn primary" disabled={busy}>{busy ? 'Saving…' : 'Save'}</button>
        <button type="button" class="btn" onClick={onCancel} disabled={busy}>Cancel</button>
      </div>
    </form>
  );
}
