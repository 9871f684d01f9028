// The form of one output for the box's admin: where it is (a coil on a Modbus I/O module over the
// network or an RS-485 cable, or a BACnet binary output), which priorities sound the siren, its
// period. Each field says what is wrong as it is typed, and the box's own refusal beside it.
// Saving reads the output first (alarm-relay/commands/check): one that does not answer is saved
// only when the installer says so, since a saved output that does not answer is a P1 alarm.
import { useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../../lib/api';
import { bodyOf, draftOf, fieldsOf, PRIORITIES, problems, refusalOf, TRANSPORT_WORDS, type Draft, type Field, type OutputView, type Transport } from './relay-draft';

const API = '/api/v1/alarm-relay/commands';

const LABELS: Record<Field, string> = {
  transport: 'Where is the output?', host: 'I/O module address', port: 'Network port', serial_port: 'Serial port', baud_rate: 'Speed (baud)',
  parity: 'Parity', unit_id: 'Unit (Modbus address of the module)', coil: 'Coil number (the first coil is 0)', device_instance: 'BACnet device number',
  object_instance: 'Binary output number', priorities: 'Sounds for', period_s: 'Every (seconds)',
};
const HINTS: Partial<Record<Field, string>> = {
  host: 'Four numbers with dots, like 192.168.1.20.', serial_port: 'The RS485 adapter, like /dev/ttyUSB0.', baud_rate: 'Empty: the box\'s serial setting.',
};
const PERIOD_LABEL = { siren: 'Re-send the state every (seconds)', watchdog: 'Toggle every (seconds)' };
const PERIOD_HINT = { siren: 'An I/O module that restarted has lost its coil: the box sends it again.', watchdog: 'While the box is healthy. Set the dialler to wait longer than this.' };

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
    const c = await send<Check>('Reading the output…', 'check');
    if (c) setStage({ s: 'checked', c });
    return c;
  };
  const save = async (anyway = false) => {
    if (!ready()) return;
    if (!anyway && d.enabled) {
      const c = await send<Check>('Reading the output before saving…', 'check');
      if (!c) return;
      if (!c.ok) return setStage({ s: 'unanswered', c });
    }
    const saved = await send<OutputView>('Saving…', 'configure');
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
        <label for={id(f)}>{f === 'period_s' ? PERIOD_LABEL[o.output] : LABELS[f]}</label>
        {input}
        {hint && !p ? <small class="muted" id={`${id(f)}-hint`}>{hint}</small> : null}
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
        <legend>{LABELS.transport}</legend>
        {(Object.keys(TRANSPORT_WORDS) as Transport[]).map((t) => (
          <label class={`choice ${d.transport === t ? 'chosen' : ''}`} key={t}>
            <input type="radio" name={`${o.output}-transport`} value={t} checked={d.transport === t} onChange={() => set('transport', t)} />
            {TRANSPORT_WORDS[t]}
          </label>
        ))}
      </fieldset>
      <div class="relay-grid">
        {d.transport === 'modbus-tcp' ? [text('host', false), text('port'), text('unit_id'), text('coil')] : null}
        {d.transport === 'modbus-rtu' ? [text('serial_port', false), text('baud_rate'),
          field('parity', <select id={id('parity')} name="parity" value={d.parity} aria-describedby={`${id('parity')}-err`} onChange={(e) => set('parity', (e.target as HTMLSelectElement).value)}>
            <option value="">The box's serial setting</option><option value="none">None</option><option value="even">Even</option><option value="odd">Odd</option>
          </select>), text('unit_id'), text('coil')] : null}
        {d.transport === 'bacnet' ? [text('device_instance'), text('object_instance')] : null}
        {text('period_s')}
      </div>
      {o.output === 'siren' ? (
        <fieldset class="relay-priorities" aria-describedby={`${id('priorities')}-err`}>
          <legend>{LABELS.priorities}</legend>
          {PRIORITIES.map((p) => (
            <label class="check" key={p}>
              <input type="checkbox" name="priorities" value={p} checked={d.priorities.includes(p)}
                onChange={(e) => set('priorities', (e.target as HTMLInputElement).checked ? [...d.priorities, p] : d.priorities.filter((x) => x !== p))} />
              {p} alarms
            </label>
          ))}
          <span class="field-error" id={`${id('priorities')}-err`} data-error="priorities">{problemOf('priorities') ?? ''}</span>
        </fieldset>
      ) : null}
      <label class="check">
        <input type="checkbox" name="enabled" checked={d.enabled} onChange={(e) => set('enabled', (e.target as HTMLInputElement).checked)} />
        The box drives this output
      </label>
      <div class="actions">
        <button type="button" class="btn" data-action="check" disabled={busy} onClick={() => void check()}>Check the connection</button>
        <button type="submit" class="btn primary" data-action="save" disabled={busy}>Save</button>
      </div>
      <Outcome stage={stage} onAnyway={() => void save(true)} onBack={() => setStage({ s: 'edit' })} />
      {error ? <p class="error" role="alert" data-field="form-error">{error}{refused.rest.length ? ` ${refused.rest.join(' ')}` : ''}</p> : null}
    </form>
  );
}

const holds = (e: boolean | null) => (e ? 'energised' : 'released');

function Outcome({ stage, onAnyway, onBack }: { stage: Stage; onAnyway: () => void; onBack: () => void }) {
  if (stage.s === 'busy') return <p class="muted" role="status">{stage.what}</p>;
  if (stage.s === 'checked') {
    return stage.c.ok
      ? <p class="relay-answer" role="status" data-field="check-result" data-ok="true">The I/O module answered: the output is {holds(stage.c.energised)} now. Nothing was written.</p>
      : <p class="error" role="alert" data-field="check-result" data-ok="false">No answer from {stage.c.target}: {stage.c.message}</p>;
  }
  if (stage.s === 'unanswered') {
    return (
      <div class="confirm" role="alert" data-field="unanswered">
        <p>No answer from {stage.c.target}: {stage.c.message}</p>
        <p>Saved like this, the output is failing at once and raises a P1 alarm. Save anyway (the module is not wired yet)?</p>
        <div class="actions">
          <button type="button" class="btn" data-action="save-anyway" onClick={onAnyway}>Save anyway</button>
          <button type="button" class="btn" onClick={onBack}>Back to the form</button>
        </div>
      </div>
    );
  }
  if (stage.s === 'saved') {
    const o = stage.o;
    return o.failing
      ? <p class="error" role="alert" data-field="saved">Saved. The output does not answer: {o.last_error}</p>
      : <p class="relay-answer" role="status" data-field="saved">Saved. {!o.enabled ? 'The box no longer drives this output.' : o.energised === null ? 'The box starts driving it now: its state above follows.' : `The box wrote the output and read it back: ${holds(o.energised)}.`}</p>;
  }
  return null;
}
