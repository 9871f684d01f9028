// The setpoint flow of a poultry house, on one panel: every value an operator may set, current ->
// new with its unit; one confirmation that repeats old -> new; then the outcome of each value as the
// controller confirmed it (written and read back, or why not, in farm words) and Retry on failure.
// The API's draft (commands/setpoint) and confirmation (commands/ack) are both sent at the one
// confirmation: nothing reaches the controller before it, and the operator never sees the
// profile id, house, batch, age phase or days the draft is addressed by (filled in from the phase
// in force). A failed write leaves the draft a draft (the previous values stay in force), so Retry
// confirms the same draft again.
import { useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../lib/api';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import type { House } from './Poultry';

type Row = Record<string, unknown>;

/** The poultry setpoints (poultry-climate SETPOINT_KEYS), in farm words, with the API's limits. */
export const SETPOINTS = [
  { key: 'target_temp_c', label: 'Target temperature', unit: '°C', min: -10, max: 45, step: 0.5 },
  { key: 'temp_tolerance_c', label: 'Temperature band (±)', unit: '°C', min: 0, max: 10, step: 0.5 },
  { key: 'humidity_min_pct', label: 'Lowest humidity', unit: '%', min: 0, max: 100, step: 1 },
  { key: 'humidity_max_pct', label: 'Highest humidity', unit: '%', min: 0, max: 100, step: 1 },
  { key: 'co2_max_ppm', label: 'Highest CO₂', unit: 'ppm', min: 0, max: 20_000, step: 100 },
  { key: 'nh3_max_ppm', label: 'Highest NH₃', unit: 'ppm', min: 0, max: 500, step: 1 },
  { key: 'min_ventilation_pct', label: 'Lowest ventilation', unit: '%', min: 0, max: 100, step: 1 },
] as const;
type Setpoint = (typeof SETPOINTS)[number];

interface Written { key: string; value: number; verified: boolean }
interface Dispatch { status: string; message: string | null; controller_id: string | null; written: Written[] }
interface Change { sp: Setpoint; from: number | undefined; to: number }

const show = (v: number | undefined, unit: string) => (v === undefined ? 'not set' : `${Number.isInteger(v) ? v : v.toFixed(1)} ${unit}`);

/**
 * Why a write failed, for the person at the house: the field service's message ("Connection
 * refused 10.0.0.5:502 addr:100", "Timed out ...", "Modbus exception 2 ...") in farm words.
 */
export function failureWords(message: string | null | undefined, anyWritten: boolean): string {
  const m = (message ?? '').toLowerCase();
  const tail = anyWritten ? 'the values marked written reached it, the others did not' : 'nothing was changed';
  if (/refused|timed? ?out|timeout|unreachable|no route|econn|ehost|closed|not open|port/.test(m)) return `The house controller did not answer — ${tail}.`;
  if (/exception|illegal|rejected|refus/.test(m)) return `The house controller refused the value — ${tail}.`;
  if (/read.?back|verify|mismatch/.test(m)) return 'The house controller holds a different value than was sent — check it at the controller.';
  return `The write did not go through — ${tail}.`;
}

/** One value's outcome in words, and its tone. */
function outcomeOf(c: Change, d: Dispatch | null, sendError: string | null): { words: string; tone: 'ok' | 'warn' | 'alarm'; state: string } {
  if (sendError) return { words: sendError, tone: 'alarm', state: 'failed' };
  if (!d) return { words: 'Sending...', tone: 'warn', state: 'sending' };
  const w = d.written.find((x) => x.key === c.sp.key);
  if (w?.verified) return { words: 'Written and read back by the controller', tone: 'ok', state: 'verified' };
  if (w) return { words: d.status === 'failed' ? 'Written, but the change as a whole did not complete' : 'Written; the controller cannot read it back', tone: 'warn', state: 'written' };
  if (d.status === 'failed') return { words: failureWords(d.message, d.written.length > 0), tone: 'alarm', state: 'failed' };
  if (d.status === 'not_configured') return { words: 'Saved as the house\'s target; no controller is set up to receive it', tone: 'warn', state: 'not_configured' };
  if (d.status === 'skipped') return { words: 'Saved for its days; the controller keeps today\'s values', tone: 'warn', state: 'skipped' };
  return { words: 'Saved as the house\'s target; no controller holds this value', tone: 'warn', state: 'saved' };
}

export function SetpointFlow({ house, onChanged }: { house: House; onChanged?: () => void }) {
  const s = useObservable(session);
  const phase = house.climate;
  const current = (k: string) => (typeof phase?.[k] === 'number' ? (phase[k] as number) : undefined);
  const [values, setValues] = useState<Record<string, string>>({});
  const [stage, setStage] = useState<'edit' | 'confirm' | 'sending' | 'done'>('edit');
  const [changes, setChanges] = useState<Change[]>([]);
  const [draftId, setDraftId] = useState<string | null>(null);
  const [dispatch, setDispatch] = useState<Dispatch | null>(null);
  const [sendError, setSendError] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  if (!s) return null;
  if (!phase?.id) {
    return (
      <section class="panel setpoint" aria-labelledby="setpoint-h" id="setpoint">
        <h2 id="setpoint-h">Climate targets</h2>
        <p class="notice">This house has no climate targets in force: place a flock first.</p>
      </section>
    );
  }

  const review = (e: Event) => {
    e.preventDefault();
    const out: Change[] = [];
    for (const sp of SETPOINTS) {
      const raw = (values[sp.key] ?? '').trim().replace(',', '.');
      if (raw === '') continue;
      const n = Number(raw);
      if (!Number.isFinite(n) || n < sp.min || n > sp.max) {
        setProblem(`${sp.label}: enter a number from ${sp.min} to ${sp.max} ${sp.unit}.`);
        return;
      }
      if (n !== current(sp.key)) out.push({ sp, from: current(sp.key), to: n });
    }
    if (!out.length) {
      setProblem('Nothing to change: enter a new value beside the one you want to change.');
      return;
    }
    setProblem(null);
    setChanges(out);
    setStage('confirm');
  };

  /** Confirms the draft (making it first when there is none yet); the outcome per value. */
  const send = async () => {
    setStage('sending');
    setSendError(null);
    setDispatch(null);
    try {
      let id = draftId;
      if (!id) {
        const body: Row = { profile_id: phase.id, change_note: `From the house screen: ${changes.map((c) => `${c.sp.label} ${show(c.from, c.sp.unit)} -> ${show(c.to, c.sp.unit)}`).join(', ')}` };
        for (const c of changes) body[c.sp.key] = c.to;
        const draft = await post<Row>('/api/v1/poultry-climate/commands/setpoint', body);
        id = String(draft.id);
        setDraftId(id);
      }
      const acked = await post<Row>('/api/v1/poultry-climate/commands/ack', { id });
      const d = acked.adapter_dispatch as Dispatch | undefined;
      setDispatch(d ?? { status: 'not_configured', message: null, controller_id: null, written: [] });
      if (d?.status !== 'failed') onChanged?.();
    } catch (err) {
      setSendError(err instanceof ApiError && err.offline ? 'The box did not answer — nothing was changed. Check the tablet\'s network.' : describeError(err));
    }
    setStage('done');
  };

  const reset = () => {
    setValues({});
    setChanges([]);
    setDraftId(null);
    setDispatch(null);
    setSendError(null);
    setStage('edit');
  };

  const failed = stage === 'done' && (sendError !== null || dispatch?.status === 'failed');
  const overall = stage === 'sending' ? 'sending' : sendError ? 'failed' : (dispatch?.status ?? '');
  const days = typeof phase.day_from === 'number' && typeof phase.day_to === 'number' ? `days ${phase.day_from}–${phase.day_to}` : '';

  return (
    <section class="panel setpoint" aria-labelledby="setpoint-h" id="setpoint" data-stage={stage}>
      <h2 id="setpoint-h">Climate targets</h2>
      <p class="muted setpoint-phase">In force now{days ? ` (${days} of the flock)` : ''}. Enter a new value beside what you want to change.</p>
      {stage === 'edit' ? (
        <form class="setpoint-form" onSubmit={review} aria-label="New climate targets">
          <table class="setpoint-table">
            <thead>
              <tr>
                <th scope="col">Value</th>
                <th scope="col">Now</th>
                <th scope="col">New</th>
              </tr>
            </thead>
            <tbody>
              {SETPOINTS.map((sp) => (
                <tr key={sp.key} data-setpoint={sp.key}>
                  <th scope="row">
                    <label for={`sp-${sp.key}`}>{sp.label}</label>
                  </th>
                  <td class="sp-now">{show(current(sp.key), sp.unit)}</td>
                  <td class="sp-new">
                    <input
                      id={`sp-${sp.key}`}
                      name={sp.key}
                      type="number"
                      inputMode="decimal"
                      step={sp.step}
                      min={sp.min}
                      max={sp.max}
                      placeholder={current(sp.key) !== undefined ? String(current(sp.key)) : ''}
                      value={values[sp.key] ?? ''}
                      onInput={(e) => setValues({ ...values, [sp.key]: (e.target as HTMLInputElement).value })}
                    />
                    <span class="sp-unit">{sp.unit}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {problem ? (
            <p class="error" role="alert">
              {problem}
            </p>
          ) : null}
          <div class="actions">
            <button type="submit" class="btn primary" id="setpoint-review">
              Review the change
            </button>
          </div>
        </form>
      ) : (
        <div class="setpoint-review" role={stage === 'confirm' ? 'alertdialog' : 'status'} aria-label={stage === 'confirm' ? 'Confirm the new targets' : 'Outcome of the change'}>
          <p class="setpoint-lead">
            {stage === 'confirm'
              ? `Send ${changes.length === 1 ? 'this change' : `these ${changes.length} changes`} to the house controller of house ${house.id}?`
              : stage === 'sending'
                ? 'Sending to the house controller...'
                : failed
                  ? 'The change did not go through.'
                  : 'The change is in force.'}
          </p>
          <ul class="setpoint-changes" id="setpoint-changes" data-status={overall}>
            {changes.map((c) => {
              const o = stage === 'done' || stage === 'sending' ? outcomeOf(c, dispatch, sendError) : null;
              return (
                <li key={c.sp.key} data-setpoint={c.sp.key} data-outcome={o?.state ?? 'proposed'}>
                  <span class="sp-label">{c.sp.label}</span>
                  <span class="sp-change">
                    {show(c.from, c.sp.unit)} <span aria-label="to">→</span> <strong>{show(c.to, c.sp.unit)}</strong>
                  </span>
                  {o ? <span class={`sp-outcome tone-${o.tone}`}>{o.words}</span> : null}
                </li>
              );
            })}
          </ul>
          {stage === 'confirm' ? (
            <div class="actions">
              <button type="button" class="btn primary" id="setpoint-confirm" onClick={() => void send()}>
                Yes, send {changes.length === 1 ? 'it' : 'them'}
              </button>
              <button type="button" class="btn" onClick={() => setStage('edit')}>
                Back
              </button>
            </div>
          ) : stage === 'done' ? (
            <div class="actions">
              {failed ? (
                <>
                  <button type="button" class="btn primary" id="setpoint-retry" onClick={() => void send()}>
                    Retry
                  </button>
                  <button type="button" class="btn" onClick={() => (setDraftId(null), setStage('edit'))}>
                    Change the values
                  </button>
                </>
              ) : (
                <button type="button" class="btn" id="setpoint-again" onClick={reset}>
                  Another change
                </button>
              )}
            </div>
          ) : null}
        </div>
      )}
    </section>
  );
}
