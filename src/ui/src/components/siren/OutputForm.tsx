// The form of one output for the box's admin: where it is (a coil on a Modbus I/O module over the
// network or an RS-485 cable, or a BACnet binary output), which priorities sound the siren, its
// period. Each field says what is wrong as it is typed, and the box's own refusal beside it.
// Saving reads the output first (alarm-relay/commands/check): one that does not answer is saved
// only when the installer says so, since a saved output that does not answer is a P1 alarm.
import { useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../../lib/api';
import { t, type MessageKey } from '../../lib/i18n';
import { bodyOf, draftOf, fieldsOf, PRIORITIES, problems, refusalOf, TRANSPORT_WORDS, type Draft, type Field, type OutputView, type Transport } from './relay-draft';

const API = '/api/v1/alarm-relay/commands';

// Keys, not words: read at render time in the reader's language.
const LABELS: Record<Field, MessageKey> = {
  transport: 'siren.field.transport', host: 'siren.field.host', port: 'siren.field.port', serial_port: 'siren.field.serial_port', baud_rate: 'siren.field.baud_rate',
  parity: 'siren.field.parity', unit_id: 'siren.field.unit_id', coil: 'siren.field.coil', device_instance: 'siren.field.device_instance',
  object_instance: 'siren.field.object_instance', priorities: 'siren.field.priorities', period_s: 'siren.field.period_s',
};
const HINTS: Partial<Record<Field, MessageKey>> = {
  host: 'siren.hint.host', serial_port: 'siren.hint.serial_port', baud_rate: 'siren.hint.baud_rate',
};
const PERIOD_LABEL: Record<OutputView['output'], MessageKey> = { siren: 'siren.field.period.siren', watchdog: 'siren.field.period.watchdog' };
const PERIOD_HINT: Record<OutputView['output'], MessageKey> = { siren: 'siren.hint.period.siren', watchdog: 'siren.hint.period.watchdog' };

interface Check { ok: boolean; energised: boolean | null; message: string | null; target: string }
type Stage = { s: 'edit' } | { s: 'busy'; what: string } | { s: 'checked'; c: Check } | { s: 'unanswered'; c: Check } | { s: 'saved'; o: OutputView };

export function OutputForm({ o, onSaved }: { o: OutputView; onSaved: (o: OutputView) => void }) {
  const [d, setD] = useState<Draft>(() => draftOf(o));
  const [touched, setTouched] = useState<Set<Field>>(new Set());
  const [refused, setRefused] = useState<{ fields: Partial<Record<Field, string>>; rest: string[] }>({ fields: {}, rest: [] });
  const [stage, setStage] = useState<Stage>({ s: 'edit' });
  const [error, setError] = useState<string | null>(null);
  const wrong = problems(o.output, d);
  const shown = fieldsOf(o.output, d.transport);
  const id = (f: Field) => `${o.output}-${f}`;
  const set = (f: Field | 'enabled', value: Draft[keyof Draft]) => {
    setD({ ...d, [f]: value });
    if (f !== 'enabled') setTouched(new Set(touched).add(f));
    setRefused({ fields: { ...refused.fields, [f]: undefined }, rest: [] });
    setStage({ s: 'edit' });
    setError(null);
  };
  const problemOf = (f: Field) => refused.fields[f] ?? (touched.has(f) ? wrong[f] : undefined);

  /** All fields checked now; false (with every problem shown) when one is wrong. */
  const ready = () => {
    const bad = shown.filter((f) => wrong[f]);
    if (bad.length) {
      setTouched(new Set([...touched, ...shown]));
      document.getElementById(id(bad[0]!))?.focus();
      return false;
    }
    return true;
  };
  const send = async <T,>(what: string, cmd: string): Promise<T | undefined> => {
    setStage({ s: 'busy', what });
    setError(null);
    try {
      return await post<T>(`${API}/${cmd}`, bodyOf(o.output, d));
    } catch (err) {
      if (err instanceof ApiError && err.details.length) setRefused(refusalOf(err.details));
      setError(describeError(err));
      setStage({ s: 'edit' });
      return undefined;
    }
  };
  const check = async (): Promise<Check | undefined> => {
    if (!ready()) return undefined;
    const c = await send<Check>(t('siren.busy.check'), 'check');
    if (c) setStage({ s: 'checked', c });
    return c;
  };
  const save = async (anyway = false) => {
    if (!ready()) return;
    if (!anyway && d.enabled) {
      const c = await send<Check>(t('siren.busy.check_save'), 'check');
      if (!c) return;
      if (!c.ok) return setStage({ s: 'unanswered', c });
    }
    const saved = await send<OutputView>(t('siren.busy.save'), 'configure');
    if (saved) {
      setStage({ s: 'saved', o: saved });
      onSaved(saved);
    }
  };
  const busy = stage.s === 'busy';
  const field = (f: Field, input: preact.JSX.Element) => {
    const p = problemOf(f);
    const hint = f === 'period_s' ? PERIOD_HINT[o.output] : HINTS[f];
    return (
      <div class="form-row" key={f} data-row={f}>
        <label for={id(f)}>{t(f === 'period_s' ? PERIOD_LABEL[o.output] : LABELS[f])}</label>
        {input}
        {hint && !p ? <small class="muted" id={`${id(f)}-hint`}>{t(hint)}</small> : null}
        <span class="field-error" id={`${id(f)}-err`} data-error={f}>{p ?? ''}</span>
      </div>
    );
  };
  const describedBy = (f: Field) => [(HINTS[f] || f === 'period_s') && !problemOf(f) ? `${id(f)}-hint` : '', `${id(f)}-err`].filter(Boolean).join(' ');
  const text = (f: Exclude<Field, 'priorities' | 'transport' | 'parity'>, numeric = true) =>
    field(f, <input id={id(f)} name={f} value={d[f]} inputMode={numeric ? 'numeric' : f === 'host' ? 'decimal' : 'text'} autoComplete="off" aria-invalid={problemOf(f) ? 'true' : undefined}
      aria-describedby={describedBy(f)} onInput={(e) => set(f, (e.target as HTMLInputElement).value)} />);

  return (
    <form class="relay-form" data-output={o.output} onSubmit={(e) => { e.preventDefault(); void save(); }} noValidate>
      <fieldset class="relay-where">
        <legend>{t(LABELS.transport)}</legend>
        {(Object.keys(TRANSPORT_WORDS) as Transport[]).map((tr) => (
          <label class={`choice ${d.transport === tr ? 'chosen' : ''}`} key={tr}>
            <input type="radio" name={`${o.output}-transport`} value={tr} checked={d.transport === tr} onChange={() => set('transport', tr)} />
            {t(TRANSPORT_WORDS[tr])}
          </label>
        ))}
      </fieldset>
      <div class="relay-grid">
        {d.transport === 'modbus-tcp' ? [text('host', false), text('port'), text('unit_id'), text('coil')] : null}
        {d.transport === 'modbus-rtu' ? [text('serial_port', false), text('baud_rate'),
          field('parity', <select id={id('parity')} name="parity" value={d.parity} aria-describedby={`${id('parity')}-err`} onChange={(e) => set('parity', (e.target as HTMLSelectElement).value)}>
            <option value="">{t('siren.parity.box')}</option><option value="none">{t('siren.parity.none')}</option><option value="even">{t('siren.parity.even')}</option><option value="odd">{t('siren.parity.odd')}</option>
          </select>), text('unit_id'), text('coil')] : null}
        {d.transport === 'bacnet' ? [text('device_instance'), text('object_instance')] : null}
        {text('period_s')}
      </div>
      {o.output === 'siren' ? (
        <fieldset class="relay-priorities" aria-describedby={`${id('priorities')}-err`}>
          <legend>{t(LABELS.priorities)}</legend>
          {PRIORITIES.map((p) => (
            <label class="check" key={p}>
              <input type="checkbox" name="priorities" value={p} checked={d.priorities.includes(p)}
                onChange={(e) => set('priorities', (e.target as HTMLInputElement).checked ? [...d.priorities, p] : d.priorities.filter((x) => x !== p))} />
              {t('siren.priority', { priority: p })}
            </label>
          ))}
          <span class="field-error" id={`${id('priorities')}-err`} data-error="priorities">{problemOf('priorities') ?? ''}</span>
        </fieldset>
      ) : null}
      <label class="check">
        <input type="checkbox" name="enabled" checked={d.enabled} onChange={(e) => set('enabled', (e.target as HTMLInputElement).checked)} />
        {t('siren.enabled')}
      </label>
      <div class="actions">
        <button type="button" class="btn" data-action="check" disabled={busy} onClick={() => void check()}>{t('siren.action.check')}</button>
        <button type="submit" class="btn primary" data-action="save" disabled={busy}>{t('siren.action.save')}</button>
      </div>
      <Outcome stage={stage} onAnyway={() => void save(true)} onBack={() => setStage({ s: 'edit' })} />
      {error ? <p class="error" role="alert" data-field="form-error">{error}{refused.rest.length ? ` ${refused.rest.join(' ')}` : ''}</p> : null}
    </form>
  );
}

const holds = (e: boolean | null) => (e ? 'on' : 'off');

function Outcome({ stage, onAnyway, onBack }: { stage: Stage; onAnyway: () => void; onBack: () => void }) {
  if (stage.s === 'busy') return <p class="muted" role="status">{stage.what}</p>;
  if (stage.s === 'checked') {
    return stage.c.ok
      ? <p class="relay-answer" role="status" data-field="check-result" data-ok="true">{t('siren.check.ok', { state: holds(stage.c.energised) })}</p>
      : <p class="error" role="alert" data-field="check-result" data-ok="false">{t('siren.check.no_answer', { target: stage.c.target, message: stage.c.message ?? '' })}</p>;
  }
  if (stage.s === 'unanswered') {
    return (
      <div class="confirm" role="alert" data-field="unanswered">
        <p>{t('siren.check.no_answer', { target: stage.c.target, message: stage.c.message ?? '' })}</p>
        <p>{t('siren.unanswered')}</p>
        <div class="actions">
          <button type="button" class="btn" data-action="save-anyway" onClick={onAnyway}>{t('siren.action.save_anyway')}</button>
          <button type="button" class="btn" onClick={onBack}>{t('siren.action.back')}</button>
        </div>
      </div>
    );
  }
  if (stage.s === 'saved') {
    const o = stage.o;
    return o.failing
      ? <p class="error" role="alert" data-field="saved">{t('siren.saved.failing', { error: o.last_error ?? '' })}</p>
      : <p class="relay-answer" role="status" data-field="saved">{!o.enabled ? t('siren.saved.off') : o.energised === null ? t('siren.saved.starting') : t('siren.saved.written', { state: holds(o.energised) })}</p>;
  }
  return null;
}
