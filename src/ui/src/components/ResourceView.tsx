// The generic renderer: any resource's scheme + list as cards (tablet) or a table (wide screen),
// with search, filters, sort and paging, an item's detail, and the resource's commands as actions.
// Every installed module the caller may see gets a usable screen from this alone.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, describeError, getItem, getList, getLoaded, query, type ListEnvelope } from '../lib/api';
import { countdown, formatValue, toLocalInput, humanise, isAlarmRow, titleField, toneIn, toneOf } from '../lib/format';
import { alarmRecordOf } from '../lib/inbox';
import { loadPeople, nameOf, people } from '../lib/people';
import { commandLabel, commandWords } from '../lib/words';
import { choiceWords, fieldLabel, known, scopeWords } from '../lib/field-words';
import { readerLocale, t } from '../lib/i18n';
import { AlarmAccount } from './AlarmAccount';
import { dataTick } from '../lib/live';
import { session, staleSince } from '../lib/session';
import { useObservable } from '../lib/store';
import type { JsonSchema, Scheme, SchemeCommand, SchemeField } from '../lib/types';
import { CommandForm, propertiesOf } from './CommandForm';
import { AdapterEditor } from './AdapterEditor';
import { useNow, useWide } from './hooks';
import { StaleNote } from './StaleNote';

type Row = Record<string, unknown>;

interface Props {
  path: string;
  /** Filters applied from the outside (a house, open alarms only) */
  fixedFilters?: Record<string, string>;
  /** Filters the screen opens with, which the user may change (open alarms first, say) */
  initialFilters?: Record<string, string>;
  heading?: string;
  pageSize?: number;
  headingLevel?: 2 | 3;
}

const API = '/api/v1';

function Countdown({ at }: { at: string }) {
  const now = useNow(1000);
  const c = countdown(at, now);
  return <span class={`badge countdown tone-${c.overdue ? 'alarm' : 'warn'}`}>{c.text}</span>;
}

export function Value({ field, value, row }: { field?: SchemeField; value: unknown; row?: Row }) {
  // An SLA deadline counts down while the record is still open.
  if (field?.countdown && typeof value === 'string' && !(row && (row.acked_at || row.cleared_at || row.status === 'acked' || row.status === 'cleared'))) return <Countdown at={value} />;
  const names = useObservable(people);
  const tone = field?.enum || field?.name === 'status' || field?.name === 'priority' ? toneIn(field.name, value, row) : undefined;
  // Who did something, by name (a card's holder), never the passkey id.
  const person = field && PERSON_FIELDS.has(field.name) && typeof value === 'string';
  // A login's reach in words ("This site", "Farm farm-1"), never "tenant:farm-1".
  const scope = field?.name === 'scope' && typeof value === 'string' && /^(master$|tenant:)/.test(value);
  const text = person
    ? nameOf(value as string, names)
    : scope
      ? scopeWords(value as string, session.get())
      : field?.enum && typeof value === 'string'
        ? choiceWords(field.name, value)
        : formatValue(field, value);
  return tone ? <span class={`badge tone-${tone}`}>{text}</span> : <span>{text}</span>;
}

const PERSON_FIELDS = new Set(['acked_by', 'acknowledged_by', 'assignee', 'created_by', 'updated_by', 'actor', 'issued_by', 'subject', 'recorded_by', 'shelved_by']);
/** Fields that are the box's bookkeeping: an admin sees them behind "Details", nobody in the list. */
const TECHNICAL = /^(id|tenant_id|site_id|correlation_id|bridged_to_status|sla_breached|escalated_at|sla_target_sec|details|version_id|session_id)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A record's field worth a person's eye: no bookkeeping, no bare UUIDs. */
const plainField = (f: SchemeField, value?: unknown) => !TECHNICAL.test(f.name) && !(typeof value === 'string' && UUID.test(value));

/** A record's name on its card and its detail: an event's "alarm_changed" read as "Alarm changed". */
function titleText(field: SchemeField | undefined, value: unknown): string {
  if ((field?.name === 'house_id' || field?.name === 'unit_id') && typeof value === 'string' && value) return t('forms.foreign.house', { id: value });
  return typeof value === 'string' && /^[a-z0-9]+(?:_[a-z0-9]+)+$/.test(value) ? choiceWords(field?.name ?? '', value) : formatValue(field, value);
}

/** An alarm someone already acknowledged: its Acknowledge button would only be refused. */
const acknowledged = (r: Row) => Boolean(r.acked_at || r.acknowledged_at) || r.status === 'acked' || r.state === 'acknowledged';

function isCommandOnItem(c: SchemeCommand): boolean {
  return propertiesOf(c.body).some(([n]) => n === 'id');
}

function createSchema(fields: SchemeField[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const f of fields) {
    if (f.read_only || f.name === 'tenant_id' || f.hidden) continue;
    properties[f.name] = f.enum
      ? { type: 'string', enum: f.enum }
      : f.type === 'datetime'
        ? { type: 'string', format: 'date-time' }
        : f.format === 'date'
          ? { type: 'string', format: 'date' }
          : { type: f.type };
  }
  return { type: 'object', properties, required: fields.filter((f) => f.required && !f.read_only).map((f) => f.name) };
}

export function ResourceView({ path, fixedFilters = {}, initialFilters = {}, heading, pageSize = 20, headingLevel = 2 }: Props) {
  const s = useObservable(session);
  const tick = useObservable(dataTick);
  const globalStale = useObservable(staleSince);
  const wide = useWide();
  const [scheme, setScheme] = useState<Scheme | null>(null);
  const [list, setList] = useState<ListEnvelope<Row> | null>(null);
  const [staleAt, setStaleAt] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [q, setQ] = useState('');
  const [filters, setFilters] = useState<Record<string, string>>(initialFilters);
  const [sort, setSort] = useState<{ field: string; order: 'asc' | 'desc' } | null>(null);
  const [offset, setOffset] = useState(0);
  const [selected, setSelected] = useState<Row | null>(null);
  const [action, setAction] = useState<{ command: SchemeCommand; item?: Row } | 'create' | null>(null);
  const [version, setVersion] = useState(0);
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    setScheme(null);
    setList(null);
    setError(null);
    setQ('');
    setFilters(initialFilters);
    setSort(null);
    setOffset(0);
    setSelected(null);
    setAction(null);
    getLoaded<{ item: Scheme }>(`${API}/${path}/scheme`)
      .then((r) => setScheme(r.data.item))
      .catch((err) => setError(describeError(err)));
  }, [path]);

  const listUrl = useMemo(() => {
    if (!scheme) return null;
    const sortable = scheme.sortable ?? [];
    const known = new Set((scheme.filters ?? []).map((f) => f.name));
    const params: Record<string, string | number | undefined> = { limit: pageSize, offset };
    for (const [k, v] of Object.entries({ ...filters, ...fixedFilters })) if (known.has(k) && v !== '') params[k] = v;
    if (q && (scheme.search_fields?.length ?? 0) > 0) params.q = q;
    if (sort && sortable.includes(sort.field)) {
      params.sort = sort.field;
      params.order = sort.order;
    }
    return `${API}/${path}/list${query(params)}`;
  }, [scheme, filters, fixedFilters, q, sort, offset, path, pageSize]);

  // Load the page; reload when live data arrives (debounced) or after an action.
  useEffect(() => {
    if (!listUrl) return;
    let cancelled = false;
    const t = setTimeout(
      () => {
        getList<Row>(listUrl)
          .then((r) => {
            if (cancelled) return;
            setList(r.data);
            setStaleAt(r.stale ? r.at : null);
            setError(null);
          })
          .catch((err) => !cancelled && setError(describeError(err)));
      },
      list ? 250 : 0,
    );
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [listUrl, tick, version]);

  if (error && !scheme) {
    return (
      <section class="resource" aria-label={heading ?? path}>
        <p class="error" role="alert">
          {error}
        </p>
      </section>
    );
  }
  if (!scheme) return <p class="loading">{t('forms.list.loading')}</p>;

  const fields = scheme.fields;
  const byName = new Map(fields.map((f) => [f.name, f]));
  const admin = s?.user.role === 'admin';
  // a column whose values on this page are internal ids (a profile version's UUID) is left out
  const idColumn = (f: SchemeField) => !!list?.items.some((r) => typeof r[f.name] === 'string' && UUID.test(r[f.name] as string));
  const visible = fields.filter((f) => !f.hidden && plainField(f) && f.type !== 'object' && f.type !== 'array' && !idColumn(f));
  const tField = titleField(visible.length ? visible : fields);
  // What a card or row shows first: badges and countdowns (ui hints), then enums, values, times.
  const rank = (f: SchemeField) => (f.badge || f.countdown ? 0 : f.enum ? 1 : f.type === 'datetime' ? 3 : 2);
  const summaryFields = visible
    .filter((f) => f.name !== tField && f.name !== 'id')
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
    .map((x) => x.f)
    .slice(0, wide ? 7 : 5);
  // Only the commands this person may run (the policy matrix says true): an operator is not
  // offered publish or evaluate to be refused, nor a command the matrix does not name.
  const allowed = s?.ctx.policy.permissions.api ?? {};
  const commands = (scheme.commands ?? []).filter((c) => allowed[`api:POST ${API}/${path}/commands/${c.name}`] === true);
  const mayCreate = scheme.operations?.create === true && allowed[`api:POST ${API}/${path}`] === true;
  const itemCommands = commands.filter(isCommandOnItem);
  // An adapter profile (it can read a point now) is made in its own editor, Read now included.
  const adapterProfiles = commands.some((c) => c.name === 'read-now');
  const newCommands = commands.filter((c) => !isCommandOnItem(c) && !(adapterProfiles && c.name === 'read-now'));
  const filterDefs = (scheme.filters ?? []).filter((f) => !(f.name in fixedFilters) && f.name !== 'tenant_id');
  const H = headingLevel === 2 ? 'h2' : 'h3';
  // the resource in the reader's words when the catalogue names it, else the server's title
  const title = heading ?? resourceTitle(path, scheme.title);
  const idOf = (r: Row) => String(r.id ?? r[tField] ?? '');

  const open = (r: Row) => {
    if (s) void loadPeople(s);
    setSelected(r);
    setAction(null);
    // The detail may carry more than the list (history of a task): fetch it.
    if (r.id !== undefined && !staleAt) {
      getItem<Row>(`${API}/${path}/${encodeURIComponent(String(r.id))}`)
        .then((full) => setSelected((cur) => (cur && cur.id === r.id ? full : cur)))
        .catch(() => undefined);
    }
  };
  const done = () => {
    setVersion(version + 1);
    if (selected?.id !== undefined) {
      getItem<Row>(`${API}/${path}/${encodeURIComponent(String(selected.id))}`)
        .then(setSelected)
        .catch(() => undefined);
    }
  };

  return (
    <section class="resource" data-resource={path} aria-labelledby={`h-${path}`}>
      <div class="resource-head">
        <H id={`h-${path}`} ref={headingRef}>
          {title}
          {list ? <span class="count"> ({list.total})</span> : null}
        </H>
        <div class="resource-actions">
          {newCommands.map((c) => (
            <button type="button" class="btn" key={c.name} data-command={c.name} onClick={() => setAction({ command: c })}>
              {commandLabel(c.name, path)}
            </button>
          ))}
          {mayCreate ? (
            <button type="button" class="btn" onClick={() => setAction('create')}>
              {t('forms.list.new')}
            </button>
          ) : null}
        </div>
      </div>
      {staleAt && !globalStale ? <StaleNote at={staleAt} /> : null}
      {action === 'create' && adapterProfiles ? (
        <div class="panel action-panel" key="action">
          <AdapterEditor
            path={path}
            scheme={scheme}
            onDone={() => {
              done();
              setAction(null);
            }}
            onCancel={() => setAction(null)}
          />
        </div>
      ) : action && (action === 'create' || !action.item) ? (
        <div class="panel action-panel" key="action">
          <CommandForm
            command={
              action === 'create'
                ? { path: `${API}/${path}`, name: 'create', summary: t('forms.list.createSummary', { what: title }), body: { type: 'object', properties: { item: createSchema(fields) } } }
                : { path: `${API}/${path}/commands/${action.command.name}`, name: action.command.name, summary: commandWords(action.command.name, action.command.summary, path), body: action.command.body }
            }
            resource={path}
            fields={fields}
            onDone={done}
            onCancel={() => setAction(null)}
          />
        </div>
      ) : null}
      <form class="toolbar" role="search" onSubmit={(e) => e.preventDefault()}>
        {(scheme.search_fields?.length ?? 0) > 0 ? (
          <label class="search">
            <span class="sr-only">{t('forms.list.search', { what: title })}</span>
            <input
              type="search"
              placeholder={t('forms.list.searchIn', { fields: scheme.search_fields!.map((n) => fieldLabel(n, path, fields)).join(', ').toLocaleLowerCase(readerLocale()) })}
              value={q}
              onInput={(e) => {
                setQ((e.target as HTMLInputElement).value);
                setOffset(0);
              }}
            />
          </label>
        ) : null}
        {filterDefs.map((f) => {
          const label = fieldLabel(f.name, path, fields);
          const value = filters[f.name] ?? '';
          const set = (v: string) => {
            setFilters({ ...filters, [f.name]: v });
            setOffset(0);
          };
          return f.enum || f.type === 'boolean' ? (
            <label class="filter" key={f.name}>
              <span>{label}</span>
              <select name={`filter-${f.name}`} value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
                <option value="">{t('forms.list.all')}</option>
                {(f.enum ?? ['true', 'false']).map((o) => (
                  <option key={o} value={o}>
                    {f.type === 'boolean' ? (o === 'true' ? t('common.yes') : t('common.no')) : choiceWords(f.name, o)}
                  </option>
                ))}
              </select>
            </label>
          ) : f.format === 'date' || byName.get(f.name)?.format === 'date' ? (
            <label class="filter" key={f.name}>
              <span>{label}</span>
              <input type="date" name={`filter-${f.name}`} value={value} onChange={(e) => set((e.target as HTMLInputElement).value)} />
            </label>
          ) : f.format === 'date-time' ? (
            <label class="filter" key={f.name}>
              <span>{label}</span>
              <input
                type="datetime-local"
                name={`filter-${f.name}`}
                value={value ? toLocalInput(value) : ''}
                onChange={(e) => {
                  const local = (e.target as HTMLInputElement).value;
                  set(local ? new Date(local).toISOString() : '');
                }}
              />
            </label>
          ) : null;
        })}
        {(scheme.sortable?.length ?? 0) > 0 ? (
          <label class="filter">
            <span>{t('forms.list.sortBy')}</span>
            <select
              name="sort"
              value={sort?.field ?? scheme.default_sort?.field ?? ''}
              onChange={(e) => {
                setSort({ field: (e.target as HTMLSelectElement).value, order: sort?.order ?? 'desc' });
                setOffset(0);
              }}
            >
              {scheme.sortable!.map((n) => (
                <option key={n} value={n}>
                  {fieldLabel(n, path, fields)}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {(scheme.sortable?.length ?? 0) > 0 ? (
          <button
            type="button"
            class="btn"
            onClick={() => {
              const cur = sort ?? scheme.default_sort ?? { field: scheme.sortable![0]!, order: 'desc' as const };
              setSort({ field: cur.field, order: cur.order === 'desc' ? 'asc' : 'desc' });
            }}
          >
            <span aria-hidden="true">{(sort?.order ?? scheme.default_sort?.order ?? 'desc') === 'desc' ? '↓' : '↑'}</span>
            {(sort?.order ?? scheme.default_sort?.order ?? 'desc') === 'desc' ? t('forms.list.descending') : t('forms.list.ascending')}
          </button>
        ) : null}
      </form>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {!list ? (
        error ? null : <p class="loading">{t('forms.list.loading')}</p>
      ) : list.items.length === 0 ? (
        <p class="empty">{q || Object.values(filters).some(Boolean) ? t('forms.list.emptySearch') : t('forms.list.empty')}</p>
      ) : wide ? (
        <div class="table-wrap" key="table">
          <table class="grid">
            <thead>
              <tr>
                {[byName.get(tField)!, ...summaryFields].filter(Boolean).map((f) => (
                  <th key={f.name} scope="col">
                    {fieldLabel(f.name, path, fields)}
                  </th>
                ))}
                <th scope="col">
                  <span class="sr-only">{t('forms.list.open')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((r) => (
                <tr key={idOf(r)} data-id={idOf(r)} class={selected && idOf(selected) === idOf(r) ? 'selected' : ''}>
                  {[byName.get(tField)!, ...summaryFields].filter(Boolean).map((f) => (
                    <td key={f.name}>
                      <Value field={f} value={r[f.name]} row={r} />
                    </td>
                  ))}
                  <td>
                    <button type="button" class="btn small" onClick={() => open(r)} aria-label={t('forms.list.openNamed', { name: titleText(byName.get(tField), r[tField] ?? r.id) })}>
                      {t('forms.list.open')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <ul class="cards" key="cards">
          {list.items.map((r) => (
            <li key={idOf(r)} data-id={idOf(r)} class={`card tone-edge-${toneOf(r.severity ?? r.status ?? r.priority) ?? 'none'}`}>
              <button type="button" class="card-open" onClick={() => open(r)}>
                <span class="card-title">{titleText(byName.get(tField), r[tField])}</span>
                <dl class="card-fields">
                  {/* a card leaves out what a record does not have (the table keeps its columns) */}
                  {summaryFields.filter((f) => r[f.name] !== null && r[f.name] !== undefined && r[f.name] !== '').map((f) => (
                    <div key={f.name}>
                      <dt>{fieldLabel(f.name, path, fields)}</dt>
                      <dd>
                        <Value field={f} value={r[f.name]} row={r} />
                      </dd>
                    </div>
                  ))}
                </dl>
              </button>
            </li>
          ))}
        </ul>
      )}
      {list && (list.total > list.limit || offset > 0) ? (
        <nav class="pager" aria-label={t('forms.list.pages', { what: title })}>
          <button type="button" class="btn" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - pageSize))}>
            {t('forms.list.previous')}
          </button>
          <span>{t('forms.list.range', { from: list.total ? offset + 1 : 0, to: Math.min(list.total, offset + list.items.length), total: list.total })}</span>
          <button type="button" class="btn" disabled={!list.has_more} onClick={() => setOffset(offset + pageSize)}>
            {t('forms.list.next')}
          </button>
        </nav>
      ) : null}
      {selected ? (
        <div class="detail panel" key="detail" role="region" aria-label={t('forms.list.detailsOf', { name: titleText(byName.get(tField), selected[tField] ?? selected.id) })}>
          <div class="detail-head">
            <h3>{titleText(byName.get(tField), selected[tField])}</h3>
            <button type="button" class="btn" onClick={() => setSelected(null)}>
              {t('common.action.close')}
            </button>
          </div>
          {isAlarmRow(selected) ? (
            <AlarmAccount alarm={alarmRecordOf(path, selected)} />
          ) : (
            <RecordFields fields={fields} row={selected} admin={admin} path={path} />
          )}
          {itemCommands.length ? (
            <div class="detail-actions">
              {itemCommands.map((c) =>
                (action && action !== 'create' && action.item && action.command.name === c.name) || (c.name === 'ack' && acknowledged(selected)) ? null : (
                  <button type="button" class="btn primary" key={c.name} data-command={c.name} onClick={() => setAction({ command: c, item: selected })}>
                    {commandLabel(c.name, path)}
                  </button>
                ),
              )}
            </div>
          ) : null}
          {action && action !== 'create' && action.item ? (
            <CommandForm
              key={`${action.command.name}-${idOf(action.item)}`}
              command={{ path: `${API}/${path}/commands/${action.command.name}`, name: action.command.name, summary: commandWords(action.command.name, action.command.summary, path), body: action.command.body }}
              resource={path}
              initial={{ id: action.item.id }}
              // who acknowledges or takes it is the person logged in (the box's default), not a field to type
              fixed={['id', 'acknowledged_by', 'assignee']}
              fields={fields}
              onDone={done}
              onCancel={() => setAction(null)}
            />
          ) : null}
          {staleAt ? <p class="muted">{t('forms.list.actionsOffline')}</p> : null}
        </div>
      ) : null}
    </section>
  );
}

/** A record's fields for a person; the bookkeeping (ids, tenant, raw values) only for admins, behind "Details". */
function RecordFields({ fields, row, admin, path }: { fields: SchemeField[]; row: Row; admin: boolean; path: string }) {
  const [raw, setRaw] = useState(false);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const plain = fields.filter((f) => row[f.name] !== undefined && !f.hidden && plainField(f, row[f.name]) && f.type !== 'object' && f.type !== 'array');
  return (
    <>
      <dl class="detail-fields">
        {plain.map((f) => (
          <div key={f.name}>
            <dt>{fieldLabel(f.name, path, fields)}</dt>
            <dd>
              <Value field={f} value={row[f.name]} row={row} />
            </dd>
          </div>
        ))}
      </dl>
      {admin ? (
        <div class="account-raw">
          <button type="button" class="btn small" aria-expanded={raw} onClick={() => setRaw(!raw)}>
            {raw ? t('forms.list.hideDetails') : t('forms.list.details')}
          </button>
          {raw ? (
            <dl class="detail-fields raw-fields">
              {Object.keys(row)
                .filter((k) => row[k] !== null && row[k] !== undefined && row[k] !== '')
                .map((k) => (
                  <div key={k}>
                    <dt>{byName.has(k) ? fieldLabel(k, path, fields) : humanise(k)}</dt>
                    <dd>{typeof row[k] === 'object' ? JSON.stringify(row[k]) : String(row[k])}</dd>
                  </div>
                ))}
            </dl>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

/** A record list's heading: the catalogue's words for the resource (forms.resource.<path>), else the server's title. */
export function resourceTitle(path: string, serverTitle: string): string {
  return known(`forms.resource.${path}`) ?? serverTitle;
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
