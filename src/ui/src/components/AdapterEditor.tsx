// The adapter profile of a controller (poultry-adapters, swine-adapters) as a form: how the box
// reaches it, then each setpoint it holds and each reading it gives, field by field (register
// table, address, data type, word order, scale, offset, period), with "Read now" on every row: the
// live value from the equipment, in engineering units, before anything is saved (the resource's
// read-now command). A profile file (JSON or YAML) can fill the form; saving asks once. Given a
// saved profile (`initial`), the form changes it: saving sends commands/revise, which the box keeps
// as the profile's next version.
import { useState } from 'preact/hooks';
import { ApiError, describeError, post } from '../lib/api';
import { humanise } from '../lib/format';
import { known, serverLabel } from '../lib/field-words';
import { t } from '../lib/i18n';
import type { Scheme } from '../lib/types';
import { blankRow, enumsOf, fromProfile, readingText, readNowBody, toProfile, type Draft, type Row } from '../lib/adapter-draft';
import { ProfileFile } from './ProfileFile';
import { errorWords } from './adapters/link-words';

/** What was saved: the controller's name, and the version a change became. */
export interface Saved { controller_id: string; version?: number }

interface Props {
  path: string;
  scheme: Scheme;
  /** A saved profile to change (its item as the list answers it); absent for a new one. */
  initial?: Record<string, unknown>;
  onDone: (saved?: Saved) => void;
  onCancel: () => void;
}

type Reading = { state: 'reading' } | { state: 'ok'; text: string } | { state: 'error'; text: string };

/** The byte order in words (adapters.order.<value>), else the API's name for it. */
const orderWords = (o: string) => known(`adapters.order.${o}`) ?? o;
/** A reading's key in words (adapters.reading.<key>; a probe's depth by its own key), else made readable. */
const keyWords = (k: string) => {
  const depth = /^vwc_pct_(\d+)$/.exec(k)?.[1];
  return known(`adapters.reading.${k}`) ?? (depth ? t('adapters.reading.soilWater', { depth }) : humanise(k));
};
/** How the box reaches the controller, in words (adapters.transport.<value>). */
const transportWords = (v: string) => known(`adapters.transport.${v}`) ?? v;
/** A register table in words ("Input register"): adapters.table.<value with dashes>. */
const tableWords = (v: string) => known(`adapters.table.${v.replace(/\s+/g, '-')}`) ?? humanise(v);

export function AdapterEditor({ path, scheme, initial, onDone, onCancel }: Props) {
  const readNowCmd = scheme.commands?.find((c) => c.name === 'read-now');
  const enums = enumsOf(readNowCmd?.body ?? null);
  const [draft, setDraft] = useState<Draft>(() => fromProfile(initial, enums.holdsSetpoints));
  const [changeNote, setChangeNote] = useState('');
  const revising = initial !== undefined;
  const [reads, setReads] = useState<Record<string, Reading>>({});
  const [stage, setStage] = useState<'edit' | 'confirm' | 'sending'>('edit');
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const setRow = (list: 'points' | 'readings', i: number, patch: Partial<Row>) =>
    setDraft({ ...draft, [list]: draft[list].map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  const bacnet = draft.transport === 'bacnet';
  const editing = stage === 'edit';

  const readNow = async (list: 'points' | 'readings', i: number) => {
    const id = `${list}-${i}`;
    let body: Record<string, unknown>;
    try {
      body = readNowBody(draft, list, i);
    } catch (err) {
      setReads({ ...reads, [id]: { state: 'error', text: (err as Error).message } });
      return;
    }
    setReads((r) => ({ ...r, [id]: { state: 'reading' } }));
    try {
      const r = await post<{ value: number }>(`/api/v1/${path}/commands/read-now`, body);
      const row = draft[list][i]!;
      setReads((x) => ({ ...x, [id]: { state: 'ok', text: readingText(r.value, row.key) } }));
    } catch (err) {
      // The equipment did not answer: the field service's failure said as what to check (link-words), in the reader's words.
      const cause = err instanceof ApiError && err.code === 'device_read_failed' ? (errorWords(err.message) ?? describeError(err)) : describeError(err);
      setReads((x) => ({ ...x, [id]: { state: 'error', text: t('adapters.read.failed', { cause }) } }));
    }
  };

  const review = (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      toProfile(draft, enums.holdsSetpoints);
      setStage('confirm');
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const save = async () => {
    setStage('sending');
    setError(null);
    try {
      const item = toProfile(draft, enums.holdsSetpoints);
      if (revising) {
        const note = changeNote.trim();
        const r = await post<{ version_id: number }>(`/api/v1/${path}/commands/revise`, { id: initial.id, item, ...(note ? { change_note: note } : {}) });
        onDone({ controller_id: draft.controller_id.trim(), version: r.version_id });
      } else {
        await post(`/api/v1/${path}`, { item });
        onDone({ controller_id: draft.controller_id.trim() });
      }
    } catch (err) {
      setError(describeError(err));
      setStage('edit');
    }
  };

  const rowEditor = (list: 'points' | 'readings', row: Row, i: number) => {
    const id = `${list}-${i}`;
    const f = (name: string) => `adp-${id}-${name}`;
    const table = enums.table(list);
    const bit = row.object_type === 'coil' || row.object_type === 'discrete input';
    const result = reads[id];
    return (
      <fieldset class="adapter-row" key={id} data-row={id} disabled={!editing}>
        <legend>{row.key ? t('adapters.row.legendNamed', { list, n: i + 1, name: keyWords(row.key) }) : t('adapters.row.legend', { list, n: i + 1 })}</legend>
        <div class="adapter-grid">
          <Field id={f('key')} label={t('adapters.row.key', { list })}>
            {list === 'readings' && enums.openKeys ? (
              <>
                <input id={f('key')} name="key" list={f('keys')} value={row.key} onInput={(e) => setRow(list, i, { key: (e.target as HTMLInputElement).value })} />
                <datalist id={f('keys')}>
                  {enums.readingKeys.map((k) => (
                    <option key={k} value={k}>
                      {keyWords(k)}
                    </option>
                  ))}
                </datalist>
              </>
            ) : list === 'readings' ? (
              <select id={f('key')} name="key" value={row.key} onChange={(e) => setRow(list, i, { key: (e.target as HTMLSelectElement).value })}>
                <option value="">{t('forms.choose')}</option>
                {enums.readingKeys.map((k) => (
                  <option key={k} value={k}>
                    {keyWords(k)}
                  </option>
                ))}
              </select>
            ) : (
              // i18n-ok: the placeholder is an example of the API's setpoint key, typed as it is
              <input id={f('key')} name="key" value={row.key} placeholder="target_temp_c" onInput={(e) => setRow(list, i, { key: (e.target as HTMLInputElement).value })} />
            )}
          </Field>
          {bacnet ? (
            <>
              <Num id={f('bacnet_object_type')} label={t('adapters.label.bacnetObjectType')} value={row.bacnet_object_type} onInput={(v) => setRow(list, i, { bacnet_object_type: v })} />
              <Num id={f('address')} label={t('adapters.label.objectInstance')} value={row.address} onInput={(v) => setRow(list, i, { address: v })} />
              <Num id={f('property')} label={t('adapters.label.property')} value={row.property} onInput={(v) => setRow(list, i, { property: v })} />
            </>
          ) : (
            <>
              <Field id={f('object_type')} label={t('adapters.label.registerTable')}>
                <select id={f('object_type')} name="object_type" value={row.object_type} onChange={(e) => setRow(list, i, { object_type: (e.target as HTMLSelectElement).value })}>
                  {table.map((v) => (
                    <option key={v} value={v}>
                      {tableWords(v)}
                    </option>
                  ))}
                </select>
              </Field>
              <Num id={f('address')} label={t('adapters.label.address')} value={row.address} onInput={(v) => setRow(list, i, { address: v })} />
              <Field id={f('data_type')} label={t('adapters.label.dataType')}>
                <select id={f('data_type')} name="data_type" value={bit ? 'bool' : row.data_type} disabled={bit} onChange={(e) => setRow(list, i, { data_type: (e.target as HTMLSelectElement).value })}>
                  {enums.dataTypes.filter((d) => (bit ? d === 'bool' : d !== 'bool')).map((d) => (
                    <option key={d} value={d}>
                      {d}
                    </option>
                  ))}
                </select>
              </Field>
              <Field id={f('order')} label={t('adapters.label.order')}>
                <select id={f('order')} name="order" value={row.order} disabled={bit} onChange={(e) => setRow(list, i, { order: (e.target as HTMLSelectElement).value })}>
                  {enums.orders.map((o) => (
                    <option key={o} value={o}>
                      {orderWords(o)}
                    </option>
                  ))}
                </select>
              </Field>
            </>
          )}
          <Num id={f('scale')} label={t('adapters.label.scale')} value={row.scale} decimal onInput={(v) => setRow(list, i, { scale: v })} />
          <Num id={f('offset')} label={t('adapters.label.offset')} value={row.offset} decimal onInput={(v) => setRow(list, i, { offset: v })} />
          {list === 'readings' ? (
            <Num id={f('period_s')} label={t('adapters.label.readEvery')} value={row.period_s} placeholder={draft.poll_period_s || '10'} onInput={(v) => setRow(list, i, { period_s: v })} />
          ) : (
            <label class="check" for={f('read_back')}>
              <input id={f('read_back')} name="read_back" type="checkbox" checked={row.read_back} onChange={(e) => setRow(list, i, { read_back: (e.target as HTMLInputElement).checked })} />
              {t('adapters.label.readBack')}
            </label>
          )}
        </div>
        <div class="adapter-row-actions">
          {readNowCmd ? (
            <button type="button" class="btn read-now" disabled={result?.state === 'reading'} onClick={() => void readNow(list, i)}>
              {result?.state === 'reading' ? t('adapters.read.reading') : t('adapters.read.now')}
            </button>
          ) : null}
          <output class={`read-value${result?.state === 'error' ? ' tone-alarm' : result?.state === 'ok' ? ' tone-ok' : ''}`} aria-live="polite" for={f('address')}>
            {result && result.state !== 'reading' ? result.text : ''}
          </output>
          <button type="button" class="btn" onClick={() => setDraft({ ...draft, [list]: draft[list].filter((_, j) => j !== i) })}>
            {t('adapters.row.remove')}
          </button>
        </div>
      </fieldset>
    );
  };

  return (
    // noValidate: a missing value is said by the editor's own check, in the reader's language, not in the browser's bubble
    <form class="adapter-editor command-form" aria-label={revising ? t('adapters.editor.changeLabel', { name: String(initial.controller_id ?? '') }) : t('adapters.editor.newLabel')} data-revising={revising ? 'true' : 'false'} onSubmit={review} noValidate>
      <p class="command-summary">{t('adapters.editor.summary')}</p>
      <ProfileFile
        onLoad={(profile, name) => {
          setDraft(fromProfile(profile, enums.holdsSetpoints));
          setReads({});
          setNote(t('adapters.editor.filled', { file: name }));
        }}
        onError={(text) => setNote(text)}
        disabled={!editing}
      />
      {note ? (
        <p class="muted" role="status" id="adapter-note">
          {note}
        </p>
      ) : null}
      <fieldset class="adapter-link" disabled={!editing}>
        <legend>{t('adapters.editor.controller')}</legend>
        <div class="adapter-grid">
          <Text id="adp-unit_id" label={unitLabel(scheme)} value={draft.unit_id} onInput={(v) => set({ unit_id: v })} required />
          <Text id="adp-controller_id" label={t('adapters.label.controllerName')} value={draft.controller_id} onInput={(v) => set({ controller_id: v })} required />
          <Field id="adp-transport" label={t('adapters.label.connection')}>
            <select id="adp-transport" name="transport" value={draft.transport} onChange={(e) => set({ transport: (e.target as HTMLSelectElement).value })}>
              {enums.transports.map((v) => (
                <option key={v} value={v}>
                  {transportWords(v)}
                </option>
              ))}
            </select>
          </Field>
          {draft.transport === 'modbus-tcp' ? (
            <>
              <Text id="adp-host" label={t('adapters.label.host')} value={draft.host} onInput={(v) => set({ host: v })} required />
              <Num id="adp-port" label={t('adapters.label.port')} value={draft.port} placeholder="502" onInput={(v) => set({ port: v })} />
            </>
          ) : null}
          {draft.transport === 'modbus-rtu' ? <Text id="adp-serial_path" label={t('adapters.label.serialPath')} value={draft.serial_path} onInput={(v) => set({ serial_path: v })} required /> : null}
          {bacnet ? (
            <Num id="adp-device_instance" label={t('adapters.label.deviceInstance')} value={draft.device_instance} onInput={(v) => set({ device_instance: v })} />
          ) : (
            <Num id="adp-modbus_unit_id" label={t('adapters.label.modbusUnit')} value={draft.modbus_unit_id} placeholder="1" onInput={(v) => set({ modbus_unit_id: v })} />
          )}
          <Num id="adp-poll_period_s" label={t('adapters.label.readEvery')} value={draft.poll_period_s} placeholder="10" onInput={(v) => set({ poll_period_s: v })} />
          <Num id="adp-loss_after_misses" label={t('adapters.label.lossAfter')} value={draft.loss_after_misses} placeholder="3" onInput={(v) => set({ loss_after_misses: v })} />
        </div>
      </fieldset>
      {enums.holdsSetpoints ? (
        <>
          <h3>{t('adapters.editor.setpoints')}</h3>
          {draft.points.map((r, i) => rowEditor('points', r, i))}
          {editing ? (
            <button type="button" class="btn" id="add-point" onClick={() => set({ points: [...draft.points, blankRow('points', draft.transport)] })}>
              {t('adapters.editor.addSetpoint')}
            </button>
          ) : null}
        </>
      ) : null}
      <h3>{t('adapters.editor.readings')}</h3>
      {draft.readings.map((r, i) => rowEditor('readings', r, i))}
      {editing ? (
        <button type="button" class="btn" id="add-reading" onClick={() => set({ readings: [...draft.readings, blankRow('readings', draft.transport)] })}>
          {t('adapters.editor.addReading')}
        </button>
      ) : null}
      {revising ? (
        <div class="form-row">
          <label for="adp-change_note">{t('adapters.editor.changeNote')}</label>
          <input id="adp-change_note" name="change_note" maxLength={500} value={changeNote} disabled={!editing} onInput={(e) => setChangeNote((e.target as HTMLInputElement).value)} />
        </div>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {editing ? (
        <div class="actions">
          <button type="submit" class="btn primary">
            {revising ? t('adapters.editor.saveChanges') : t('adapters.editor.save')}
          </button>
          <button type="button" class="btn" onClick={onCancel}>
            {t('common.action.cancel')}
          </button>
        </div>
      ) : (
        <div class="confirm" role="alertdialog" aria-label={t('adapters.editor.confirmLabel')}>
          <p>
            <strong>{revising ? t('adapters.editor.confirmChanges', { name: draft.controller_id }) : t('adapters.editor.confirmNew', { name: draft.controller_id })}</strong>{' '}
            {t('adapters.editor.counts', { points: draft.points.length, readings: draft.readings.length })}{' '}
            {revising ? t('adapters.editor.afterChange') : t('adapters.editor.afterNew')}
          </p>
          <div class="actions">
            <button type="button" class="btn primary confirm-yes" disabled={stage === 'sending'} onClick={() => void save()}>
              {stage === 'sending' ? t('adapters.editor.saving') : t('adapters.editor.yesSave')}
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

/** What the profile's unit is called on this resource (House, Room, Field): the server's label in the reader's words. */
export function unitLabel(scheme: Scheme): string {
  const label = scheme.fields.find((x) => x.name === 'unit_id')?.label;
  return label ? serverLabel(label) : t('adapters.label.unit');
}

function Field({ id, label, children }: { id: string; label: string; children: preact.ComponentChildren }) {
  return (
    <div class="form-row">
      <label for={id}>{label}</label>
      {children}
    </div>
  );
}

function Text({ id, label, value, onInput, required }: { id: string; label: string; value: string; onInput: (v: string) => void; required?: boolean }) {
  return (
    <Field id={id} label={required ? `${label} *` : label}>
      <input id={id} name={id.replace(/^adp-/, '')} value={value} required={required} onInput={(e) => onInput((e.target as HTMLInputElement).value)} />
    </Field>
  );
}

function Num({ id, label, value, onInput, decimal, placeholder }: { id: string; label: string; value: string; onInput: (v: string) => void; decimal?: boolean; placeholder?: string }) {
  return (
    <Field id={id} label={label}>
      <input id={id} name={id.replace(/^adp-(?:[a-z]+-\d+-)?/, '')} inputMode={decimal ? 'decimal' : 'numeric'} value={value} placeholder={placeholder} onInput={(e) => onInput((e.target as HTMLInputElement).value)} />
    </Field>
  );
}
