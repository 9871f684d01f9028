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
import { boxText, t, type MessageKey, type MessageParams } from '../lib/i18n';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import type { House } from './Poultry';
import { failureWords, numberWords, valueWords, unitWord, type Unit } from './poultry-words';

export { failureWords };

type Row = Record<string, unknown>;

/** The poultry setpoints (poultry-climate SETPOINT_KEYS), their names' keys, units and the API's limits. */
export const SETPOINTS = [
  { key: 'target_temp_c', label: 'setpoints.sp.target_temp_c', unit: 'c', min: -10, max: 45, step: 0.5 },
  { key: 'temp_tolerance_c', label: 'setpoints.sp.temp_tolerance_c', unit: 'c', min: 0, max: 10, step: 0.5 },
  { key: 'humidity_min_pct', label: 'setpoints.sp.humidity_min_pct', unit: 'pct', min: 0, max: 100, step: 1 },
  { key: 'humidity_max_pct', label: 'setpoints.sp.humidity_max_pct', unit: 'pct', min: 0, max: 100, step: 1 },
  { key: 'co2_max_ppm', label: 'setpoints.sp.co2_max_ppm', unit: 'ppm', min: 0, max: 20_000, step: 100 },
  { key: 'nh3_max_ppm', label: 'setpoints.sp.nh3_max_ppm', unit: 'ppm', min: 0, max: 500, step: 1 },
  { key: 'min_ventilation_pct', label: 'setpoints.sp.min_ventilation_pct', unit: 'pct', min: 0, max: 100, step: 1 },
] as const satisfies readonly { key: string; label: MessageKey; unit: Unit; min: number; max: number; step: number }[];
type Setpoint = (typeof SETPOINTS)[number];

interface Written { key: string; value: number; verified: boolean }
/**
 * The write's outcome as the box answers it. `message` is the field service's own (technical,
 * English); a box that words it for people sends its key and parameters beside it (message_key,
 * text_params, as on its alarms).
 */
interface Dispatch { status: string; message: string | null; controller_id: string | null; written: Written[]; message_key?: string | null; text_params?: MessageParams | null }
interface Change { sp: Setpoint; from: number | undefined; to: number }

/** A setpoint's value with its unit, or "not set". */
const show = (v: number | undefined, unit: Unit) => (v === undefined ? t('setpoints.notSet') : valueWords(v, unit));

/** One value's outcome in words, and its tone. */
export function outcomeOf(c: Change, d: Dispatch | null, sendError: string | null): { words: string; tone: 'ok' | 'warn' | 'alarm'; state: string } {
  if (sendError) return { words: sendError, tone: 'alarm', state: 'failed' };
  if (!d) return { words: t('setpoints.outcome.sending'), tone: 'warn', state: 'sending' };
  const w = d.written.find((x) => x.key === c.sp.key);
  if (w?.verified) return { words: t('setpoints.outcome.verified'), tone: 'ok', state: 'verified' };
  if (w) return { words: t(d.status === 'failed' ? 'setpoints.outcome.writtenIncomplete' : 'setpoints.outcome.writtenNoReadBack'), tone: 'warn', state: 'written' };
  // The farm words for a failure are this shell's (from the field service's message) unless the box worded it itself.
  if (d.status === 'failed') return { words: boxText(d.message_key, d.text_params, failureWords(d.message, d.written.length > 0)), tone: 'alarm', state: 'failed' };
  if (d.status === 'not_configured') return { words: t('setpoints.outcome.notConfigured'), tone: 'warn', state: 'not_configured' };
  if (d.status === 'skipped') return { words: t('setpoints.outcome.skipped'), tone: 'warn', state: 'skipped' };
  return { words: t('setpoints.outcome.saved'), tone: 'warn', state: 'saved' };
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
        <h2 id="setpoint-h">{t('setpoints.title')}</h2>
        <p class="notice">{t('setpoints.noPhase')}</p>
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
        setProblem(t('setpoints.outOfRange', { label: t(sp.label), min: sp.min, max: sp.max, unit: unitWord(sp.unit) }));
        return;
      }
      if (n !== current(sp.key)) out.push({ sp, from: current(sp.key), to: n });
    }
    if (!out.length) {
      setProblem(t('setpoints.nothing'));
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
        // The note of the version, in the words of the person who made the change (as if typed).
        const note = changes.map((c) => t('setpoints.changeNoteItem', { label: t(c.sp.label), from: show(c.from, c.sp.unit), to: show(c.to, c.sp.unit) })).join(', ');
        const body: Row = { profile_id: phase.id, change_note: t('setpoints.changeNote', { changes: note }) };
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
      setSendError(err instanceof ApiError && err.offline ? t('setpoints.offline') : describeError(err));
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
  const lead = typeof phase.day_from === 'number' && typeof phase.day_to === 'number' ? t('setpoints.phaseDays', { from: phase.day_from, to: phase.day_to }) : t('setpoints.phase');

  return (
    <section class="panel setpoint" aria-labelledby="setpoint-h" id="setpoint" data-stage={stage}>
      <h2 id="setpoint-h">{t('setpoints.title')}</h2>
      <p class="muted setpoint-phase">{lead}</p>
      {stage === 'edit' ? (
        <form class="setpoint-form" onSubmit={review} aria-label={t('setpoints.form')}>
          <table class="setpoint-table">
            <thead>
              <tr>
                <th scope="col">{t('setpoints.col.value')}</th>
                <th scope="col">{t('setpoints.col.now')}</th>
                <th scope="col">{t('setpoints.col.new')}</th>
              </tr>
            </thead>
            <tbody>
              {SETPOINTS.map((sp) => (
                <tr key={sp.key} data-setpoint={sp.key}>
                  <th scope="row">
                    <label for={`sp-${sp.key}`}>{t(sp.label)}</label>
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
                      placeholder={current(sp.key) !== undefined ? numberWords(current(sp.key)!) : ''}
                      value={values[sp.key] ?? ''}
                      onInput={(e) => setValues({ ...values, [sp.key]: (e.target as HTMLInputElement).value })}
                    />
                    <span class="sp-unit">{unitWord(sp.unit)}</span>
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
              {t('setpoints.review')}
            </button>
          </div>
        </form>
      ) : (
        <div class="setpoint-review" role={stage === 'confirm' ? 'alertdialog' : 'status'} aria-label={t(stage === 'confirm' ? 'setpoints.confirmLabel' : 'setpoints.outcomeLabel')}>
          <p class="setpoint-lead">
            {stage === 'confirm'
              ? t('setpoints.confirmLead', { n: changes.length, house: house.id })
              : t(stage === 'sending' ? 'setpoints.sendingLead' : failed ? 'setpoints.failedLead' : 'setpoints.doneLead')}
          </p>
          <ul class="setpoint-changes" id="setpoint-changes" data-status={overall}>
            {changes.map((c) => {
              const o = stage === 'done' || stage === 'sending' ? outcomeOf(c, dispatch, sendError) : null;
              return (
                <li key={c.sp.key} data-setpoint={c.sp.key} data-outcome={o?.state ?? 'proposed'}>
                  <span class="sp-label">{t(c.sp.label)}</span>
                  <span class="sp-change">
                    {show(c.from, c.sp.unit)} <span aria-label={t('setpoints.to')}>→</span> <strong>{show(c.to, c.sp.unit)}</strong>
                  </span>
                  {o ? <span class={`sp-outcome tone-${o.tone}`}>{o.words}</span> : null}
                </li>
              );
            })}
          </ul>
          {stage === 'confirm' ? (
            <div class="actions">
              <button type="button" class="btn primary" id="setpoint-confirm" onClick={() => void send()}>
                {t('setpoints.yes', { n: changes.length })}
              </button>
              <button type="button" class="btn" id="setpoint-back" onClick={() => setStage('edit')}>
                {t('setpoints.back')}
              </button>
            </div>
          ) : stage === 'done' ? (
            <div class="actions">
              {failed ? (
                <>
                  <button type="button" class="btn primary" id="setpoint-retry" onClick={() => void send()}>
                    {t('setpoints.retry')}
                  </button>
                  <button type="button" class="btn" id="setpoint-change" onClick={() => (setDraftId(null), setStage('edit'))}>
                    {t('setpoints.changeValues')}
                  </button>
                </>
              ) : (
                <button type="button" class="btn" id="setpoint-again" onClick={reset}>
                  {t('setpoints.another')}
                </button>
              )}
            </div>
          ) : null}
        </div>
      )}
    </section>
  );
}
