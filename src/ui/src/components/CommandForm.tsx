// A command of a resource as an action: a form derived from the command's body JSON schema, a
// confirmation step that says what will happen, then the API's answer (or its error in words).
import { useMemo, useState } from 'preact/hooks';
import { describeError, post } from '../lib/api';
import { formatDay, formatTime, humanise, toLocalInput } from '../lib/format';
import type { JsonSchema, SchemeField } from '../lib/types';
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

/** The JSON body from the form's text values; throws a message naming the field on bad input. */
function toBody(body: JsonSchema | null, values: Record<string, string | boolean>): Record<string, unknown> {
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
      if (required.has(name)) throw new Error(`${humanise(name)} is required.`);
      continue;
    }
    const text = String(v);
    if (kind === 'integer' || kind === 'number') {
      const n = Number(text);
      if (!Number.isFinite(n) || (kind === 'integer' && !Number.isInteger(n))) throw new Error(`${humanise(name)} must be ${kind === 'integer' ? 'a whole number' : 'a number'}.`);
      out[name] = n;
    } else if (kind === 'datetime') {
      // the tablet's local time as an instant
      const d = new Date(text);
      if (Number.isNaN(d.getTime())) throw new Error(`${humanise(name)} must be a date and time.`);
      out[name] = d.toISOString();
    } else if (kind === 'json') {
      try {
        out[name] = JSON.parse(text);
      } catch {
        throw new Error(`${humanise(name)} must be JSON (for example {"key": "value"}).`);
      }
    } else {
      out[name] = text;
    }
  }
  return out;
}

function initialValues(body: JsonSchema | null, initial: Record<string, unknown>): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const [name, raw] of propertiesOf(body)) {
    const { schema } = simplify(raw);
    const v = initial[name] ?? schema.default;
    if (v === undefined || v === null) continue;
    out[name] = kindOf(schema) === 'datetime' && typeof v === 'string' ? toLocalInput(v) : typeof v === 'boolean' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

export function CommandForm({ command: given, initial = {}, fields = [], fixed = [], submitLabel, onDone, onCancel }: Props) {
  const command = useMemo(() => ({ ...given, body: withFieldFormats(given.body, fields) }), [given, fields]);
  const [values, setValues] = useState(() => initialValues(command.body, initial));
  const [stage, setStage] = useState<'edit' | 'confirm' | 'sending' | 'done'>('edit');
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [result, setResult] = useState<unknown>(null);
  const required = new Set(command.body?.required ?? []);
  const labelOf = (name: string) => fields.find((f) => f.name === name)?.label ?? humanise(name);
  const idBase = `cmd-${command.path.replace(/[^a-z0-9]+/gi, '-')}`;
  const props = propertiesOf(command.body).filter(([name]) => !fixed.includes(name));
  const title = humanise(command.name);

  const review = (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      toBody(command.body, values);
      setStage('confirm');
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const send = async () => {
    setStage('sending');
    setError(null);
    setFieldErrors({});
    try {
      const r = await post(command.path, toBody(command.body, values));
      setResult(r);
      setStage('done');
      onDone?.(r);
    } catch (err) {
      const details = (err as { details?: { field: string; reason: string }[] }).details ?? [];
      setFieldErrors(Object.fromEntries(details.map((d) => [d.field.split('.')[0] ?? d.field, d.reason.replace(/_/g, ' ')])));
      setError(describeError(err));
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
          <strong>{title}</strong>: done.
        </p>
        {result && typeof result === 'object' ? <ResultSummary value={result as Record<string, unknown>} /> : null}
        {onCancel ? (
          <button type="button" class="btn" onClick={onCancel}>
            Close
          </button>
        ) : null}
      </div>
    );
  }

  return (
    <form class="command-form" onSubmit={review} data-command={command.name} aria-label={title}>
      <p class="command-summary">{command.summary}</p>
      {props.map(([name, raw]) => {
        const { schema } = simplify(raw);
        const kind = kindOf(schema);
        const id = `${idBase}-${name}`;
        const value = values[name];
        const set = (v: string | boolean) => setValues({ ...values, [name]: v });
        const disabled = stage !== 'edit';
        return (
          <div class="form-row" key={name}>
            {kind === 'boolean' ? (
              <label class="check" for={id}>
                <input id={id} name={name} type="checkbox" checked={value === true} disabled={disabled} onChange={(e) => set((e.target as HTMLInputElement).checked)} />
                {labelOf(name)}
              </label>
            ) : (
              <label for={id}>
                {labelOf(name)}
                {required.has(name) ? <span aria-hidden="true"> *</span> : null}
              </label>
            )}
            {kind === 'enum' ? (
              <select id={id} name={name} value={String(value ?? '')} disabled={disabled} required={required.has(name)} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
                <option value="">{required.has(name) ? 'Choose...' : '(none)'}</option>
                {(schema.enum ?? []).map((o) => (
                  <option value={String(o)} key={String(o)}>
                    {humanise(String(o))}
                  </option>
                ))}
              </select>
            ) : kind === 'json' ? (
              <textarea id={id} name={name} rows={3} value={String(value ?? '')} disabled={disabled} placeholder="{}" onInput={(e) => set((e.target as HTMLTextAreaElement).value)} />
            ) : kind === 'date' || kind === 'datetime' ? (
              <span class="date-field">
                <input
                  id={id}
                  name={name}
                  type={kind === 'date' ? 'date' : 'datetime-local'}
                  value={String(value ?? '')}
                  required={required.has(name)}
                  disabled={disabled}
                  aria-invalid={fieldErrors[name] ? true : undefined}
                  aria-describedby={value ? `${id}-read` : undefined}
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
              <input
                id={id}
                name={name}
                type={kind === 'text' ? 'text' : 'number'}
                inputMode={kind === 'integer' ? 'numeric' : kind === 'number' ? 'decimal' : undefined}
                step={kind === 'number' ? 'any' : undefined}
                value={String(value ?? '')}
                required={required.has(name)}
                disabled={disabled}
                aria-invalid={fieldErrors[name] ? true : undefined}
                onInput={(e) => set((e.target as HTMLInputElement).value)}
              />
            ) : null}
            {fieldErrors[name] ? <span class="field-error">{fieldErrors[name]}</span> : null}
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
              Cancel
            </button>
          ) : null}
        </div>
      ) : (
        <div class="confirm" role="alertdialog" aria-label={`Confirm ${title}`}>
          <p>
            <strong>Confirm: {title}</strong>
            {Object.entries(safeBody(command.body, values)).map(([k, v]) => (
              <span class="confirm-field" key={k}>
                {' '}
                {labelOf(k)}: {showValue(kindIn(command.body, k), v)};
              </span>
            ))}
          </p>
          <div class="actions">
            <button type="button" class="btn primary confirm-yes" disabled={stage === 'sending'} onClick={() => void send()}>
              {stage === 'sending' ? 'Sending...' : `Yes, ${title.toLowerCase()}`}
            </button>
            <button type="button" class="btn" disabled={stage === 'sending'} onClick={() => setStage('edit')}>
              Back
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
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function safeBody(body: JsonSchema | null, values: Record<string, string | boolean>): Record<string, unknown> {
  try {
    return toBody(body, values);
  } catch {
    return {};
  }
}

function ResultSummary({ value }: { value: Record<string, unknown> }) {
  const entries = Object.entries(value).filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object').slice(0, 8);
  const nested = Object.entries(value).filter(([, v]) => v && typeof v === 'object' && !Array.isArray(v));
  return (
    <dl class="result">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{humanise(k)}</dt>
          <dd>{String(v)}</dd>
        </div>
      ))}
      {nested.map(([k, v]) => (
        <div key={k} data-result={k}>
          <dt>{humanise(k)}</dt>
          <dd>
            {Object.entries(v as Record<string, unknown>)
              .map(([a, b]) => `${humanise(a)}: ${String(b)}`)
              .join(', ')}
          </dd>
        </div>
      ))}
    </dl>
  );
}
