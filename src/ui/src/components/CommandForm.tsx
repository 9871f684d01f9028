// A command of a resource as an action: a form derived from the command's body JSON schema, a
// confirmation step that says what will happen, then the API's answer (or its error in words).
// Every label, unit and choice is in farm words (lib/field-words.ts); the farm and the site come
// from the session and are not asked; a house or a profile is chosen by its name; the answer says
// what happened without the record's internal ids. Every word is the reader's (lib/i18n): a field's
// issue, found here or by the box, is said beside that field in the reader's language.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, describeError, post, type ErrorDetail } from '../lib/api';
import { errorText, issueText } from '../lib/error-words';
import { formatDay, formatTime, humanise, toLocalInput } from '../lib/format';
import { askedFromSession, choicesFor, choiceWords, durationWords, FIELD_DEFAULTS, fieldWords, foreignOf, loadChoices, scopeWords, sessionValues, type Choice } from '../lib/field-words';
import { readerLocale, t } from '../lib/i18n';
import { session, type Session } from '../lib/session';
import { useObservable } from '../lib/store';
import type { JsonSchema, SchemeField } from '../lib/types';
import { commandLabel } from '../lib/words';
import { isIssuedCredential, OneTimeCredential } from './OneTimeCredential';

export interface CommandSpec {
  /** POST target */
  path: string;
  name: string;
  summary: string;
  body: JsonSchema | null;
}

interface Props {
  command: CommandSpec;
  /** the resource (below /api/v1/) the command is of, for its words and its lists of names; default: from the path */
  resource?: string;
  /** Values filled in from the context (the item's id, the person's name) */
  initial?: Record<string, unknown>;
  /** Labels of the resource's fields, for properties with the same name */
  fields?: SchemeField[];
  /** Fields fixed by the context and not shown (e.g. the id of the item the action is on) */
  fixed?: string[];
  submitLabel?: string;
  onDone?: (result: unknown) => void;
  onCancel?: () => void;
}

type Kind = 'text' | 'number' | 'integer' | 'boolean' | 'enum' | 'json' | 'date' | 'datetime';

function simplify(s: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  const alts = s.anyOf ?? s.oneOf;
  if (alts) {
    const nonNull = alts.filter((a) => a.type !== 'null');
    return { schema: { ...(nonNull[0] ?? {}), description: s.description ?? nonNull[0]?.description }, nullable: nonNull.length < alts.length };
  }
  if (Array.isArray(s.type)) {
    const t = s.type.filter((x) => x !== 'null');
    return { schema: { ...s, type: t.length === 1 ? t[0] : t }, nullable: t.length < s.type.length };
  }
  return { schema: s, nullable: false };
}

function kindOf(s: JsonSchema): Kind {
  if (s.enum) return 'enum';
  if (s.type === 'boolean') return 'boolean';
  if (s.type === 'integer') return 'integer';
  if (s.type === 'number') return 'number';
  // the API's scheme marks calendar days and instants (valibot isoDate / isoTimestamp) by format
  if (s.type === 'string' && s.format === 'date') return 'date';
  if (s.type === 'string' && s.format === 'date-time') return 'datetime';
  if (s.type === 'string' || s.type === undefined) return s.type === undefined && !s.format ? 'json' : 'text';
  return 'json';
}

/**
 * A body whose plain-text property is a record field the scheme marks as a day (ui format date,
 * e.g. a production record's metric_date checked by a pattern) gets the date picker too.
 */
function withFieldFormats(body: JsonSchema | null, fields: SchemeField[]): JsonSchema | null {
  if (!body?.properties) return body;
  const days = new Set(fields.filter((f) => f.format === 'date').map((f) => f.name));
  const properties = Object.fromEntries(
    Object.entries(body.properties).map(([name, p]) => [name, days.has(name) && p.type === 'string' && !p.format && !p.enum ? { ...p, format: 'date' } : p]),
  );
  return { ...body, properties };
}

export function propertiesOf(body: JsonSchema | null): [string, JsonSchema][] {
  return Object.entries(body?.properties ?? {});
}

/** A value of the form that cannot be sent: which field, and what is wrong, in words. */
class FieldIssue extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** A number as the reader writes it (1,5 in Russian), without grouping (a card's 525600 minutes). */
export function numberText(n: number): string {
  return new Intl.NumberFormat(readerLocale(), { useGrouping: false, maximumFractionDigits: 20 }).format(n);
}

/** The JSON body from the form's text values; throws a FieldIssue naming the field on bad input. */
function toBody(body: JsonSchema | null, values: Record<string, string | boolean>, label: (name: string) => string = humanise): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set(body?.required ?? []);
  for (const [name, raw] of propertiesOf(body)) {
    const { schema } = simplify(raw);
    const kind = kindOf(schema);
    const v = values[name];
    if (kind === 'boolean') {
      if (v !== undefined && v !== '') out[name] = v === true || v === 'true';
      continue;
    }
    if (v === undefined || v === '' || v === false) {
      if (required.has(name)) throw new FieldIssue(name, t('forms.invalid.required', { field: label(name) }));
      continue;
    }
    const text = String(v);
    if (kind === 'integer' || kind === 'number') {
      // a decimal comma as the reader may type it (a number input gives a dot; a text box may not)
      const n = Number(text.trim().replace(',', '.'));
      if (text.trim() === '' || !Number.isFinite(n) || (kind === 'integer' && !Number.isInteger(n))) throw new FieldIssue(name, t(kind === 'integer' ? 'forms.invalid.wholeNumber' : 'forms.invalid.number', { field: label(name) }));
      out[name] = n;
    } else if (kind === 'datetime') {
      // the tablet's local time as an instant
      const d = new Date(text);
      if (Number.isNaN(d.getTime())) throw new FieldIssue(name, t('forms.invalid.dateTime', { field: label(name) }));
      out[name] = d.toISOString();
    } else if (kind === 'json') {
      try {
        out[name] = JSON.parse(text);
      } catch {
        throw new FieldIssue(name, t('forms.invalid.json', { field: label(name) }));
      }
    } else {
      out[name] = text;
    }
  }
  return out;
}

/** The resource of a command's path: /api/v1/<resource>/commands/<name>, or /api/v1/<resource> (create). */
export function resourceOfPath(path: string): string {
  return path.replace(/^\/api\/v1\//, '').replace(/\/commands\/[^/]+$/, '');
}

function initialValues(body: JsonSchema | null, initial: Record<string, unknown>, s: Session | null | undefined): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  const required = new Set(body?.required ?? []);
  for (const [name, raw] of propertiesOf(body)) {
    const { schema } = simplify(raw);
    // one choice left to this person (a site admin's cards are for site staff): it is the answer
    const only = schema.enum && required.has(name) ? choicesFor(name, schema.enum.map(String), s) : [];
    const v = initial[name] ?? schema.default ?? FIELD_DEFAULTS[name] ?? (only.length === 1 ? only[0] : undefined);
    if (v === undefined || v === null) continue;
    out[name] = kindOf(schema) === 'datetime' && typeof v === 'string' ? toLocalInput(v) : typeof v === 'boolean' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

export function CommandForm({ command: given, resource: givenResource, initial = {}, fields = [], fixed = [], submitLabel, onDone, onCancel }: Props) {
  const s = useObservable(session);
  const command = useMemo(() => ({ ...given, body: withFieldFormats(given.body, fields) }), [given, fields]);
  const resource = givenResource ?? resourceOfPath(command.path);
  const required = new Set(command.body?.required ?? []);
  // the farm and the site are the session's: filled in, not asked
  const fromSession = sessionValues(s);
  const hidden = new Set([...fixed, ...propertiesOf(command.body).filter(([n]) => !askedFromSession(n, s, required.has(n))).map(([n]) => n)]);
  const [values, setValues] = useState(() => initialValues(command.body, { ...fromSession, ...initial }, s));
  const [stage, setStage] = useState<'edit' | 'confirm' | 'sending' | 'done'>('edit');
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [result, setResult] = useState<unknown>(null);
  const [choices, setChoices] = useState<Record<string, Choice[]>>({});
  const [typed, setTyped] = useState<Record<string, boolean>>({});
  const wordsOf = (name: string) => fieldWords(name, resource, fields, command.body?.properties?.[name] ? simplify(command.body.properties[name]!).schema : undefined);
  const labelOf = (name: string) => wordsOf(name).label;
  const idBase = `cmd-${command.path.replace(/[^a-z0-9]+/gi, '-')}`;
  const props = propertiesOf(command.body).filter(([name]) => !hidden.has(name));
  const title = commandLabel(command.name, resource);
  const propNames = props.map(([n]) => n).join(',');

  // A field naming another record (a house, a profile) is chosen from their names.
  useEffect(() => {
    let gone = false;
    for (const name of propNames.split(',')) {
      if (!name || !foreignOf(name, resource)) continue;
      void loadChoices(name, resource, s).then((list) => !gone && list.length && setChoices((c) => ({ ...c, [name]: list })));
    }
    return () => {
      gone = true;
    };
  }, [propNames, resource, s]);

  /** The field a person is sent to: the first one with an issue. */
  const focusField = (name: string) => requestAnimationFrame(() => document.getElementById(`${idBase}-${name}`)?.focus());

  const review = (e: Event) => {
    e.preventDefault();
    setError(null);
    setFieldErrors({});
    try {
      toBody(command.body, values, labelOf);
      setStage('confirm');
    } catch (err) {
      if (err instanceof FieldIssue && !hidden.has(err.field)) {
        setFieldErrors({ [err.field]: err.message });
        focusField(err.field);
      } else setError((err as Error).message);
    }
  };

  const send = async () => {
    setStage('sending');
    setError(null);
    setFieldErrors({});
    try {
      const r = await post(command.path, toBody(command.body, values, labelOf));
      setResult(r);
      setStage('done');
      onDone?.(r);
    } catch (err) {
      const details: ErrorDetail[] = err instanceof ApiError && err.code === 'validation_error' ? err.details : [];
      // A field's issue beside the field (the box's words for it, in the reader's language); one
      // about a field the form does not show (fixed by the context) is said in the summary.
      const top = (d: ErrorDetail) => (typeof d.field === 'string' ? (d.field.split('.')[0] ?? d.field) : '');
      const beside = details.filter((d) => props.some(([n]) => n === top(d)));
      const elsewhere = details.filter((d) => !beside.includes(d));
      setFieldErrors(Object.fromEntries(beside.map((d) => [top(d), issueText(d)])));
      if (details.length) {
        const lines = [...(beside.length ? [t('forms.invalid.seeFields', { n: beside.length })] : []), ...elsewhere.map((d) => t('forms.invalid.field', { field: top(d) ? labelOf(top(d)) : t('forms.invalid.request'), issue: issueText(d) }))];
        setError(lines.join(' '));
      } else setError(err instanceof ApiError ? errorText(err) : describeError(err));
      if (beside[0]) focusField(top(beside[0]));
      setStage('edit');
    }
  };

  if (stage === 'done' && isIssuedCredential(result)) {
    // Dropped from state when dismissed: the code lives nowhere else in the shell.
    return (
      <OneTimeCredential
        issued={result}
        onDismiss={() => {
          setResult(null);
          if (onCancel) onCancel();
          else setStage('edit');
        }}
      />
    );
  }

  if (stage === 'done') {
    return (
      <div class="command-done" role="status">
        <p>
          <strong>{t('forms.command.done', { action: title })}</strong>
        </p>
        {result && typeof result === 'object' ? <ResultSummary value={result as Record<string, unknown>} words={(k) => wordsOf(k).label} fields={fields} s={s} /> : null}
        {onCancel ? (
          <button type="button" class="btn" onClick={onCancel}>
            {t('common.action.close')}
          </button>
        ) : null}
      </div>
    );
  }

  /** A value as the confirmation says it: choices and names in words, days and times the site's way. */
  const said = (name: string, v: unknown): string => {
    const named = choices[name]?.find((c) => c.value === v);
    if (named) return named.label;
    const kind = kindIn(command.body, name);
    if (kind === 'enum' && typeof v === 'string') return choiceWords(name, v);
    if (kind === 'boolean') return v ? t('common.yes') : t('common.no');
    const { unit, unitId } = wordsOf(name);
    const shown = showValue(kind, v);
    if (!unit || (kind !== 'integer' && kind !== 'number')) return shown;
    return unitId === 'minutes' ? t('forms.value.minutes', { value: shown, unit, duration: durationWords(Number(v)) }) : t('forms.value.unit', { value: shown, unit });
  };

  return (
    // noValidate: a missing or wrong value is said beside its field in the reader's language, not in the browser's bubble
    <form class="command-form" onSubmit={review} data-command={command.name} aria-label={title} noValidate>
      <p class="command-summary">{command.summary}</p>
      {props.map(([name, raw]) => {
        const { schema } = simplify(raw);
        const kind = kindOf(schema);
        const id = `${idBase}-${name}`;
        const value = values[name];
        const set = (v: string | boolean) => {
          setValues({ ...values, [name]: v });
          if (fieldErrors[name]) setFieldErrors(({ [name]: _gone, ...rest }) => rest);
        };
        const disabled = stage !== 'edit';
        const words = wordsOf(name);
        const hintId = words.hint ? `${id}-hint` : undefined;
        const named = choices[name];
        const other = foreignOf(name, resource)?.other;
        // typing a new one: asked for, or a value that is none of the names
        const typing = !!named && (typed[name] === true || (typeof value === 'string' && value !== '' && !named.some((c) => c.value === value)));
        const unit = words.unit ? (
          <span class="field-unit" id={`${id}-unit`}>
            {words.unitId === 'minutes' && value && durationWords(Number(value)) ? t('forms.unit.withDuration', { unit: words.unit, duration: durationWords(Number(value)) }) : words.unit}
          </span>
        ) : null;
        const issue = fieldErrors[name];
        const issueId = issue ? `${id}-issue` : undefined;
        const described = [issueId, hintId, words.unit ? `${id}-unit` : undefined].filter(Boolean).join(' ') || undefined;
        return (
          <div class="form-row" key={name}>
            {kind === 'boolean' ? (
              <label class="check" for={id}>
                <input id={id} name={name} type="checkbox" checked={value === true} disabled={disabled} onChange={(e) => set((e.target as HTMLInputElement).checked)} />
                {words.label}
              </label>
            ) : (
              <label for={id}>
                {words.label}
                {required.has(name) ? <span aria-hidden="true"> *</span> : null}
              </label>
            )}
            {words.hint ? (
              <span class="field-hint" id={hintId}>
                {words.hint}
              </span>
            ) : null}
            {named ? (
              <span class="choice-field">
                <select
                  id={id}
                  name={name}
                  value={typing ? '__new' : String(value ?? '')}
                  disabled={disabled}
                  required={required.has(name)}
                  aria-invalid={issue ? true : undefined}
                  aria-describedby={described}
                  onChange={(e) => {
                    const v = (e.target as HTMLSelectElement).value;
                    setTyped({ ...typed, [name]: v === '__new' });
                    set(v === '__new' ? '' : v);
                  }}
                >
                  <option value="">{required.has(name) ? t('forms.choose') : (foreignOf(name, resource)?.none ?? t('forms.none'))}</option>
                  {named.map((c) => (
                    <option value={c.value} key={c.value}>
                      {c.label}
                    </option>
                  ))}
                  {other ? <option value="__new">{other}...</option> : null}
                </select>
                {typing ? (
                  <input name={`${name}-new`} aria-label={t('forms.newValue', { field: words.label })} value={String(value ?? '')} disabled={disabled} required={required.has(name)} onInput={(e) => set((e.target as HTMLInputElement).value)} />
                ) : null}
              </span>
            ) : kind === 'enum' ? (
              <select id={id} name={name} value={String(value ?? '')} disabled={disabled} required={required.has(name)} aria-invalid={issue ? true : undefined} aria-describedby={described} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
                <option value="">{required.has(name) ? t('forms.choose') : t('forms.none')}</option>
                {choicesFor(name, (schema.enum ?? []).map(String), s).map((o) => (
                  <option value={o} key={o}>
                    {choiceWords(name, o)}
                  </option>
                ))}
              </select>
            ) : kind === 'json' ? (
              <textarea id={id} name={name} rows={3} value={String(value ?? '')} disabled={disabled} placeholder="{}" aria-invalid={issue ? true : undefined} aria-describedby={described} onInput={(e) => set((e.target as HTMLTextAreaElement).value)} />
            ) : kind === 'date' || kind === 'datetime' ? (
              <span class="date-field">
                <input
                  id={id}
                  name={name}
                  type={kind === 'date' ? 'date' : 'datetime-local'}
                  value={String(value ?? '')}
                  required={required.has(name)}
                  disabled={disabled}
                  aria-invalid={issue ? true : undefined}
                  aria-describedby={[issueId, value ? `${id}-read` : undefined, hintId].filter(Boolean).join(' ') || undefined}
                  onInput={(e) => set((e.target as HTMLInputElement).value)}
                />
                {/* the picker follows the browser's language; this is how the site writes it */}
                {value ? (
                  <span class="date-read" id={`${id}-read`}>
                    {showValue(kind, value)}
                  </span>
                ) : null}
              </span>
            ) : kind !== 'boolean' ? (
              <span class={unit ? 'unit-field' : undefined}>
                <input
                  id={id}
                  name={name}
                  type={kind === 'text' ? 'text' : 'number'}
                  inputMode={kind === 'integer' ? 'numeric' : kind === 'number' ? 'decimal' : undefined}
                  step={kind === 'number' ? 'any' : undefined}
                  value={String(value ?? '')}
                  required={required.has(name)}
                  disabled={disabled}
                  aria-invalid={issue ? true : undefined}
                  aria-describedby={described}
                  onInput={(e) => set((e.target as HTMLInputElement).value)}
                />
                {unit}
              </span>
            ) : null}
            {issue ? (
              <span class="field-error" id={issueId} data-field-error={name}>
                {issue}
              </span>
            ) : null}
          </div>
        );
      })}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {stage === 'edit' ? (
        <div class="actions">
          <button type="submit" class="btn primary">
            {submitLabel ?? title}
          </button>
          {onCancel ? (
            <button type="button" class="btn" onClick={onCancel}>
              {t('common.action.cancel')}
            </button>
          ) : null}
        </div>
      ) : (
        <div class="confirm" role="alertdialog" aria-label={t('forms.confirm.label', { action: title })}>
          <p>
            <strong>{t('forms.confirm.title', { action: title })}</strong>
            {Object.entries(safeBody(command.body, values))
              .filter(([k]) => !hidden.has(k))
              .map(([k, v]) => (
                <span class="confirm-field" key={k}>
                  {' '}
                  {t('forms.confirm.field', { label: labelOf(k), value: said(k, v) })}
                </span>
              ))}
          </p>
          <div class="actions">
            <button type="button" class="btn primary confirm-yes" disabled={stage === 'sending'} onClick={() => void send()}>
              {stage === 'sending' ? t('forms.confirm.sending') : t('forms.confirm.yes', { action: `${title.charAt(0).toLocaleLowerCase(readerLocale())}${title.slice(1)}` })}
            </button>
            <button type="button" class="btn" disabled={stage === 'sending'} onClick={() => setStage('edit')}>
              {t('common.action.back')}
            </button>
          </div>
        </div>
      )}
    </form>
  );
}

function kindIn(body: JsonSchema | null, name: string): Kind {
  const raw = body?.properties?.[name];
  return raw ? kindOf(simplify(raw).schema) : 'text';
}

/** A value as the confirmation and the date fields say it: days and times the site's way. */
function showValue(kind: Kind, v: unknown): string {
  if (typeof v === 'string' && kind === 'date') return formatDay(v);
  if (typeof v === 'string' && kind === 'datetime') return formatTime(v);
  if (typeof v === 'number') return numberText(v);
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function safeBody(body: JsonSchema | null, values: Record<string, string | boolean>): Record<string, unknown> {
  try {
    return toBody(body, values);
  } catch {
    return {};
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** The box's bookkeeping in an answer: never shown. */
const BOOKKEEPING = /^(id|tenant_id|site_id|correlation_id|request_id|content_sha256|content|version_id|rollback_of|scope_type|idempotency_key|.*_hash|.*_digest)$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** One value of the answer in words, or null when it is an internal id. */
function resultWords(key: string, v: unknown, fields: SchemeField[], s: Session | null | undefined): string | null {
  if (typeof v === 'boolean') return v ? t('common.yes') : t('common.no');
  if (typeof v === 'number') {
    const unit = fields.find((f) => f.name === key)?.unit;
    return unit ? t('forms.value.unit', { value: numberText(v), unit: String(unit) }) : numberText(v);
  }
  if (typeof v !== 'string' || v === '') return null;
  if (key === 'scope') return scopeWords(v, s);
  if (UUID.test(v) || /^tenant:/.test(v) || /^(PK|RF|QR|DC)-/.test(v)) return null;
  if (INSTANT.test(v)) return formatTime(v);
  if (DAY.test(v)) return formatDay(v);
  if (fields.find((f) => f.name === key)?.enum || /^[a-z0-9]+(?:[_-][a-z0-9]+)*$/.test(v) && /[_-]/.test(v)) return choiceWords(key, v);
  if (key === 'house_id' || key === 'unit_id') return t('forms.foreign.house', { id: v });
  return v;
}

/** What happened, in words: the answer's values a person knows, without the record's internal ids. */
function ResultSummary({ value, words, fields, s }: { value: Record<string, unknown>; words: (key: string) => string; fields: SchemeField[]; s: Session | null | undefined }) {
  const shown: [string, string][] = [];
  const add = (k: string, v: unknown) => {
    if (BOOKKEEPING.test(k) || shown.length >= 8) return;
    const w = resultWords(k, v, fields, s);
    if (w !== null) shown.push([k, w]);
  };
  for (const [k, v] of Object.entries(value)) if (v === null || typeof v !== 'object') add(k, v);
  // an answer wrapping its record ({item}, {flock}): the record's values, one level down
  for (const [, v] of Object.entries(value)) if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) if (v2 === null || typeof v2 !== 'object') add(k2, v2);
  if (!shown.length) return null;
  return (
    <dl class="result">
      {shown.map(([k, w]) => (
        <div key={k} data-result={k}>
          <dt>{words(k)}</dt>
          <dd>{w}</dd>
        </div>
      ))}
    </dl>
  );
}
