// The adapter profiles of a site's controllers (poultry-adapters, ...) as the installer needs them
// after commissioning: each controller with whether it answers the box, in words and live (the
// poller's link state from device-polling/list, read again on the shell's data tick and every few
// seconds: a polled reading raises no status event), how it is reached, and what it holds. Admins
// add, change (a new version of the profile: commands/revise) and delete profiles here; what a
// role may not run is not offered (the session's permission matrix).
import { useEffect, useRef, useState } from 'preact/hooks';
import { del, describeError, getList, getLoaded, query } from '../../lib/api';
import { t } from '../../lib/i18n';
import { dataTick } from '../../lib/live';
import { session, staleSince } from '../../lib/session';
import { useObservable } from '../../lib/store';
import type { Scheme } from '../../lib/types';
import { AdapterEditor, unitLabel as unitLabelOf } from '../AdapterEditor';
import { resourceTitle } from '../ResourceView';
import { useNow } from '../hooks';
import { StaleNote } from '../StaleNote';
import { AdapterHistory } from './AdapterHistory';
import { linkWords, type PolledDevice } from './link-words';

type Row = Record<string, unknown>;
const API = '/api/v1';
/** The poller's state is in memory: cheap to ask often enough that "Answering" shows within seconds. */
const REFRESH_MS = 5_000;

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** How the box reaches the controller, in words. */
export function connectionWords(r: Row): string {
  // 'none': no unit id to tell (the messages select on it)
  const unit = r.modbus_unit_id !== null && r.modbus_unit_id !== undefined && str(r.modbus_unit_id) !== '' ? str(r.modbus_unit_id) : 'none';
  if (r.transport === 'modbus-tcp') return t('adapters.link.tcp', { host: str(r.host), port: str(r.port) || '502', unit });
  if (r.transport === 'modbus-rtu') return t('adapters.link.rtu', { path: str(r.serial_path), unit });
  if (r.transport === 'bacnet') return t('adapters.link.bacnet', { device: str(r.device_instance) });
  return str(r.transport);
}

/** Whether the poller has anything to read on it: readings, or setpoints read back. */
const reads = (r: Row) => (Array.isArray(r.readings) && r.readings.length > 0) || (Array.isArray(r.points) && (r.points as Row[]).some((p) => p.read_back !== false));

type Note = { tone: 'ok' | 'alarm'; text: string };

export function AdapterList({ path, industry }: { path: string; industry: string }) {
  const s = useObservable(session);
  const tick = useObservable(dataTick);
  const globalStale = useObservable(staleSince);
  const now = useNow(1000);
  const [scheme, setScheme] = useState<Scheme | null>(null);
  const [rows, setRows] = useState<Row[] | null>(null);
  const [devices, setDevices] = useState<Map<string, PolledDevice> | null>(null);
  const [staleAt, setStaleAt] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Row | 'new' | null>(null);
  const [history, setHistory] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [note, setNote] = useState<Note | null>(null);
  const [version, setVersion] = useState(0);
  const [beat, setBeat] = useState(0);
  const panel = useRef<HTMLDivElement>(null);

  const api = s?.ctx.policy.permissions.api ?? {};
  // Offered only where the matrix says yes: a role refused by the box is not shown the button.
  const may = (key: string) => api[key] === true;
  const canCreate = may(`api:POST ${API}/${path}`);
  const canRevise = may(`api:POST ${API}/${path}/commands/revise`);
  const canDelete = may(`api:DELETE ${API}/${path}/{id}`);
  const readsLinks = api[`api:GET ${API}/device-polling/list`] === true;

  useEffect(() => {
    getLoaded<{ item: Scheme }>(`${API}/${path}/scheme`)
      .then((r) => setScheme(r.data.item))
      .catch((err) => setError(describeError(err)));
  }, [path]);
  useEffect(() => {
    const t = setInterval(() => setBeat((b) => b + 1), REFRESH_MS);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    let cancelled = false;
    getList<Row>(`${API}/${path}/list${query({ limit: 200 })}`)
      .then((r) => {
        if (cancelled) return;
        setRows(r.data.items);
        setStaleAt(r.stale ? r.at : null);
        setError(null);
      })
      .catch((err) => !cancelled && setError(describeError(err)));
    if (readsLinks) {
      getList<PolledDevice>(`${API}/device-polling/list${query({ industry, limit: 500 })}`)
        .then((r) => !cancelled && setDevices(r.stale ? null : new Map(r.data.items.map((d) => [d.device_id, d]))))
        .catch(() => !cancelled && setDevices(null));
    }
    return () => {
      cancelled = true;
    };
  }, [path, tick, beat, version, readsLinks]);
  useEffect(() => {
    if (editing) panel.current?.scrollIntoView({ block: 'start' });
  }, [editing]);

  if (!scheme) return error ? <p class="error" role="alert">{error}</p> : <p class="loading">{t('forms.list.loading')}</p>;
  const unitLabel = unitLabelOf(scheme);
  const offline = Boolean(staleAt || globalStale);

  const remove = async (r: Row) => {
    try {
      await del(`${API}/${path}/${encodeURIComponent(str(r.id))}`);
      setNote({ tone: 'ok', text: t('adapters.list.deleted', { name: str(r.controller_id) }) });
      setDeleting(null);
      setHistory(null);
      setVersion((x) => x + 1);
    } catch (err) {
      setNote({ tone: 'alarm', text: describeError(err) });
    }
  };

  return (
    <section class="resource adapter-list" data-resource={path} aria-labelledby={`h-${path}`}>
      <div class="resource-head">
        <h2 id={`h-${path}`}>
          {resourceTitle(path, scheme.title)}
          {rows ? <span class="count"> ({rows.length})</span> : null}
        </h2>
        <div class="resource-actions">
          {canCreate && !offline ? (
            <button type="button" class="btn" onClick={() => { setEditing('new'); setNote(null); }}>
              {t('forms.list.new')}
            </button>
          ) : null}
        </div>
      </div>
      {staleAt && !globalStale ? <StaleNote at={staleAt} /> : null}
      {note ? (
        <p class={`adapter-note tone-${note.tone}`} role={note.tone === 'alarm' ? 'alert' : 'status'} id="adapter-saved">
          {note.text}
        </p>
      ) : null}
      {editing ? (
        <div class="panel action-panel" ref={panel} key={editing === 'new' ? 'new' : str(editing.id)}>
          {editing !== 'new' ? <h3>{t('adapters.editor.changeLabel', { name: str(editing.controller_id) })}</h3> : null}
          <AdapterEditor
            path={path}
            scheme={scheme}
            initial={editing === 'new' ? undefined : editing}
            onDone={(out) => {
              const name = out?.controller_id ?? '';
              setNote({
                tone: 'ok',
                text: out?.version ? t('adapters.list.savedVersion', { name, version: out.version }) : t('adapters.list.saved', { name }),
              });
              setEditing(null);
              setVersion((x) => x + 1);
            }}
            onCancel={() => setEditing(null)}
          />
        </div>
      ) : null}
      {error ? <p class="error" role="alert">{error}</p> : null}
      {!rows ? (
        <p class="loading">{t('forms.list.loading')}</p>
      ) : rows.length === 0 ? (
        <p class="empty">{canCreate ? t('adapters.list.emptyCanAdd') : t('adapters.list.empty')}</p>
      ) : (
        <ul class="cards adapter-cards">
          {rows.map((r) => {
            const id = str(r.id);
            const name = str(r.controller_id);
            const device = devices?.get(`${industry}:${id}`);
            const link = offline
              ? { kind: 'unknown', tone: 'muted' as const, headline: t('adapters.link.unknownHeadline'), detail: t('adapters.link.unknownDetail'), error: null }
              : readsLinks && devices
                ? linkWords(device, { reads: reads(r), priority: str(r.comm_loss_priority) || 'P1', now })
                : null;
            const points = Array.isArray(r.points) ? r.points.length : 0;
            const readings = Array.isArray(r.readings) ? r.readings.length : 0;
            const edge = link && (link.tone === 'alarm' || link.tone === 'warn') ? link.tone : 'none';
            return (
              <li key={id} class={`card adapter-card tone-edge-${edge}`} data-controller={name} data-link={link?.kind ?? 'none'} data-tone={link?.tone ?? 'none'}>
                <div class="adapter-card-body">
                  <h3 class="card-title">
                    {name} <span class="muted adapter-unit">· {t('adapters.list.unit', { label: unitLabel, unit: str(r.unit_id) })}</span>
                  </h3>
                  {link ? (
                    <p class="adapter-link">
                      <span class={`badge tone-${link.tone} link-headline`}>{link.headline}</span>
                      {link.detail ? <span class="link-detail"> {link.detail}</span> : null}
                    </p>
                  ) : null}
                  {link?.error ? <p class="link-error">{t('adapters.list.lastError', { error: link.error })}</p> : null}
                  <p class="muted adapter-how">{t('adapters.list.how', { link: connectionWords(r), points, readings, period: str(r.poll_period_s) || '10' })}</p>
                  {deleting === id ? (
                    <div class="confirm" role="alertdialog" aria-label={t('adapters.list.deleteLabel', { name })}>
                      <p>
                        <strong>{t('adapters.list.deleteAsk', { name })}</strong> {t('adapters.list.deleteWhat')}
                      </p>
                      <div class="actions">
                        <button type="button" class="btn primary confirm-delete" onClick={() => void remove(r)}>
                          {t('adapters.list.yesDelete')}
                        </button>
                        <button type="button" class="btn" onClick={() => setDeleting(null)}>
                          {t('common.action.back')}
                        </button>
                      </div>
                    </div>
                  ) : (
                    <div class="actions adapter-actions">
                      {canRevise && !offline ? (
                        <button type="button" class="btn adapter-edit" onClick={() => { setEditing(r); setNote(null); setHistory(null); }} aria-label={t('adapters.list.editLabel', { name })}>
                          {t('common.action.edit')}
                        </button>
                      ) : null}
                      <button type="button" class="btn adapter-versions" aria-expanded={history === id} onClick={() => setHistory(history === id ? null : id)} aria-label={history === id ? t('adapters.list.hideVersionsOf', { name }) : t('adapters.list.versionsOf', { name })}>
                        {history === id ? t('adapters.list.hideVersions') : t('adapters.list.versions')}
                      </button>
                      {canDelete && !offline ? (
                        <button type="button" class="btn adapter-delete" onClick={() => setDeleting(id)} aria-label={t('adapters.list.deleteLabel', { name })}>
                          {t('common.action.delete')}
                        </button>
                      ) : null}
                    </div>
                  )}
                  {history === id ? <AdapterHistory path={path} id={id} name={name} version={version} /> : null}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
