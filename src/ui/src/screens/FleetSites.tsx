// The fleet view: every site of every farm from sync-sites (its scheme gives the filters and their
// words, its list the order: the sites that need the fleet team first), each in words a fleet team
// reads at a glance: "Stopped", "Last heard 3 min ago", "2 open P1 alarms", "Version 0.1.0 —
// outside policy". Status by colour and by text. A box that goes quiet sends nothing, so the list
// is read again every few seconds as well as on live data. Each site's software update as the box
// last reported it: running, target and previous versions, the step in words ("Downloading 40 %",
// "Rolled back" and why), and the fleet team's hold on its updates (held with a reason, released).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, describeError, getList, getLoaded, query, type ListEnvelope } from '../lib/api';
import { dataTick } from '../lib/live';
import { useObservable } from '../lib/store';
import { formatTime, humanise, type Tone } from '../lib/format';
import { t, type MessageKey } from '../lib/i18n';
import { useNow } from '../components/hooks';
import { industryName } from '../components/shell-words';
import { ReasonAction } from '../components/updates/ReasonAction';
import { ReachNote } from '../components/updates/ReachNote';
import { mayPost } from '../components/updates/live';
import { reasonWords, stepTone, stepWords } from '../components/updates/words';
import { session } from '../lib/session';
import type { Scheme } from '../lib/types';

export interface FleetSite {
  id: string;
  tenant_id: string;
  site_id: string;
  industry_code: string | null;
  status: 'live' | 'degraded' | 'stopped' | null;
  lag_seconds: number | null;
  reported_pending: number;
  last_seen_at: string | null;
  last_heartbeat_at: string | null;
  open_p1: number | null;
  app_version: string | null;
  module_versions: { id: string; version: string }[] | null;
  policy: 'conforms' | 'violates' | 'unknown' | null;
  policy_violations: string[] | null;
  holds_master_state: boolean | null;
  attention: number | null;
  // ---- the box's self-update (sync-sites, since the releases module)
  running_version?: string | null;
  target_version?: string | null;
  previous_version?: string | null;
  update_version?: string | null;
  update_step?: string | null;
  update_progress?: number | null;
  update_reason?: string | null;
  update_reason_code?: string | null;
  /** The reason's data, when the master keeps it (it does not yet: the words then do without). */
  update_reason_params?: Record<string, string | number> | null;
  update_at?: string | null;
  update_hold?: boolean | null;
  update_hold_reason?: string | null;
  update_hold_by?: string | null;
  update_hold_at?: string | null;
}

const HOLD_PATH = '/api/v1/tenant-master-sync/commands/hold-updates';

const PATH = '/api/v1/sync-sites';
const PAGE = 50;
/** How often the list is read again while nothing arrives (a silent box must still turn stopped). */
const POLL_MS = 5000;

// Keys, not words: read at render time in the reader's language.
const STATUS: Record<string, { tone: Tone; text: MessageKey }> = {
  live: { tone: 'ok', text: 'fleet.status.live' },
  degraded: { tone: 'warn', text: 'fleet.status.degraded' },
  stopped: { tone: 'alarm', text: 'fleet.status.stopped' },
};

/** "40 s", "3 min", "2 h 5 min", "3 days". */
function duration(seconds: number): string {
  if (seconds < 60) return t('fleet.duration.seconds', { n: Math.max(0, Math.round(seconds)) });
  const m = Math.round(seconds / 60);
  return m < 120 ? t('fleet.duration.minutes', { n: m }) : m < 48 * 60 ? t('fleet.duration.hours', { h: Math.floor(m / 60), m: m % 60 }) : t('fleet.duration.days', { n: Math.floor(m / 1440) });
}

const silence = (iso: string, now: number) => duration((now - Date.parse(iso)) / 1000);
const ago = (iso: string, now: number) => t('fleet.ago', { span: silence(iso, now) });

/** Why a site is near the top, in the fleet team's words (empty: nothing to do). */
export function reasons(s: FleetSite, now: number): string[] {
  const out: string[] = [];
  if (s.status === 'stopped') out.push(s.last_seen_at ? t('fleet.why.silent', { span: silence(s.last_seen_at, now) }) : t('fleet.why.never'));
  if (s.status === 'degraded') {
    if (s.reported_pending > 0) out.push(t('fleet.why.pending', { n: s.reported_pending }));
    if (s.holds_master_state === false) out.push(t('fleet.why.policies'));
  }
  if ((s.open_p1 ?? 0) > 0) out.push(t('fleet.p1.open', { n: s.open_p1 ?? 0 }));
  if (s.policy === 'violates') out.push(t('fleet.why.outside'));
  return out;
}

/** The site's update: the step in words, why, and since when. */
function UpdateField({ s }: { s: FleetSite }) {
  const step = s.update_step ?? null;
  const words = stepWords({ step, progress: s.update_progress, reason_code: s.update_reason_code, target: s.target_version });
  return (
    <dd data-field="update">
      <span class={`badge tone-${stepTone(step)}`} data-step={step ?? ''}>
        {words}
      </span>
      {step && s.update_at ? <span class="muted site-update-at"> {t('fleet.update.since', { time: formatTime(s.update_at) })}</span> : null}
    </dd>
  );
}

function SiteCard({ s, now, mayHold, onChanged }: { s: FleetSite; now: number; mayHold: boolean; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const st = STATUS[s.status ?? ''] ?? { tone: 'muted' as Tone, text: 'fleet.status.unchecked' };
  const why = reasons(s, now);
  const p1 = s.open_p1 ?? 0;
  const version = s.app_version ? t('fleet.version', { version: s.app_version }) : t('fleet.version.none');
  const policy = s.policy === 'violates' ? t('fleet.policy.outside') : s.policy === 'conforms' ? t('fleet.policy.within') : null;
  const updateReason = s.update_reason_code || s.update_reason ? reasonWords(s.update_reason_code, s.update_reason_params, s.update_reason) : '';
  const holder = s.update_hold_by ?? '';
  return (
    <li class={`card site-card tone-edge-${st.tone}`} data-site={s.id} data-status={s.status ?? ''}>
      <div class="site-head">
        <h3 class="site-name">
          {s.site_id} <span class="site-farm">· {s.tenant_id}</span>
        </h3>
        <span class={`badge tone-${st.tone}`} data-badge="status">
          {t(st.text)}
        </span>
      </div>
      {why.length ? (
        <p class="site-why" data-why>
          {why.join(' · ')}
        </p>
      ) : null}
      <dl class="card-fields site-fields">
        <div>
          <dt>{t('fleet.field.last_seen')}</dt>
          <dd data-field="last-seen">{s.last_seen_at ? ago(s.last_seen_at, now) : t('fleet.never')}</dd>
        </div>
        <div>
          <dt>{t('fleet.field.lag')}</dt>
          <dd data-field="lag">{s.lag_seconds === null ? '—' : s.lag_seconds > 0 ? duration(s.lag_seconds) : t('fleet.lag.none')}</dd>
        </div>
        <div>
          <dt>{t('fleet.field.p1')}</dt>
          <dd data-field="p1">
            <span class={p1 > 0 ? 'badge tone-alarm' : ''}>{p1 > 0 ? t('fleet.p1.open', { n: p1 }) : t('fleet.p1.none')}</span>
          </dd>
        </div>
        <div>
          <dt>{t('fleet.field.software')}</dt>
          <dd data-field="version">
            {version}
            {policy ? ' — ' : null}
            {policy ? <span class={`badge tone-${s.policy === 'violates' ? 'alarm' : 'ok'} site-policy`}>{policy}</span> : null}
            {s.policy_violations?.length ? <span class="site-violation"> {s.policy_violations[0]}{s.policy_violations.length > 1 ? ` ${t('fleet.violations.more', { n: s.policy_violations.length - 1 })}` : ''}</span> : null}
          </dd>
        </div>
        <div>
          <dt>{t('fleet.field.heartbeat')}</dt>
          <dd data-field="heartbeat">{s.last_heartbeat_at ? t('fleet.heartbeat', { time: formatTime(s.last_heartbeat_at), ago: ago(s.last_heartbeat_at, now) }) : t('fleet.heartbeat.none')}</dd>
        </div>
        <div>
          <dt>{t('fleet.field.industry')}</dt>
          <dd>{s.industry_code ? industryName(s.industry_code) : t('fleet.industry.none')}</dd>
        </div>
        <div>
          <dt>{t('fleet.field.update')}</dt>
          <UpdateField s={s} />
        </div>
        <div>
          <dt>{t('fleet.field.target')}</dt>
          <dd data-field="target">{s.target_version ?? (s.update_step ? t('fleet.target.none') : '—')}</dd>
        </div>
        <div>
          <dt>{t('fleet.field.previous')}</dt>
          <dd data-field="previous">{s.previous_version ?? '—'}</dd>
        </div>
      </dl>
      {updateReason ? (
        <p class="site-update-reason" data-field="update-reason">
          {updateReason}
        </p>
      ) : null}
      {s.update_hold ? (
        <p class="site-hold" data-hold>
          {s.update_hold_reason
            ? t('fleet.hold.line', { who: holder, time: s.update_hold_at ? formatTime(s.update_hold_at) : '—', reason: s.update_hold_reason })
            : t('fleet.hold.line_bare', { who: holder, time: s.update_hold_at ? formatTime(s.update_hold_at) : '—' })}
        </p>
      ) : null}
      <button type="button" class="btn small" aria-expanded={open} onClick={() => setOpen(!open)}>
        {t(open ? 'fleet.less' : 'fleet.more')}
      </button>
      {open ? (
        <div class="site-more">
          {s.policy_violations?.length ? (
            <>
              <h4>{t('fleet.more.outside')}</h4>
              <ul>
                {s.policy_violations.map((v) => (
                  <li key={v}>{v}</li>
                ))}
              </ul>
            </>
          ) : null}
          <p>
            {t('fleet.more.pending', { n: s.reported_pending })}{' '}
            {t(s.holds_master_state ? 'fleet.more.policies' : 'fleet.more.no_policies')}
          </p>
          {s.module_versions?.length ? (
            <p class="muted">{t('fleet.more.modules', { list: s.module_versions.map((m) => `${m.id} ${m.version}`).join(', ') })}</p>
          ) : null}
          {/* Holding is rare and deliberate: behind "More", with the reason asked for. */}
          {mayHold ? (
            s.update_hold ? (
              <ReasonAction action="release-hold" owner={s.id} label={t('fleet.hold.release')} question={t('fleet.hold.release_why')} submit={t('fleet.hold.release_submit')}
                busyLabel={t('fleet.action.busy')} required={false} path={HOLD_PATH} body={(reason) => ({ site_id: s.id, hold: false, ...(reason ? { reason } : {}) })} onDone={onChanged} />
            ) : (
              <ReasonAction action="hold" owner={s.id} label={t('fleet.hold.hold')} question={t('fleet.hold.why')} submit={t('fleet.hold.submit')}
                busyLabel={t('fleet.action.busy')} required path={HOLD_PATH} body={(reason) => ({ site_id: s.id, hold: true, reason })} onDone={onChanged} />
            )
          ) : null}
        </div>
      ) : null}
    </li>
  );
}

export function FleetSites() {
  const tick = useObservable(dataTick);
  const now = useNow(POLL_MS);
  const sess = useObservable(session);
  const mayHold = sess ? mayPost(sess.ctx.policy.permissions.api, HOLD_PATH) : false;
  const [turn, setTurn] = useState(0);
  const [staleAt, setStaleAt] = useState<string | null>(null);
  const [downSince, setDownSince] = useState<string | null>(null);
  const [scheme, setScheme] = useState<Scheme | null>(null);
  const [list, setList] = useState<ListEnvelope<FleetSite> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);

  useEffect(() => {
    getLoaded<{ item: Scheme }>(`${PATH}/scheme`)
      .then((r) => setScheme(r.data.item))
      .catch((err) => setError(describeError(err)));
  }, []);
  // The order is the API's default (attention, highest first); the status filter is the scheme's.
  const statusFilter = scheme?.filters?.find((f) => f.name === 'status');
  const url = useMemo(() => (scheme ? `${PATH}/list${query({ limit: PAGE, offset, status: status || undefined })}` : null), [scheme, offset, status]);
  useEffect(() => {
    if (!url) return;
    let cancelled = false;
    getList<FleetSite>(url)
      .then((r) => {
        if (cancelled) return;
        setList(r.data);
        setError(null);
        // The master out of reach: the last list, said to be as it was then.
        setStaleAt(r.stale ? r.at : null);
        setDownSince((d) => (r.stale ? (d ?? new Date().toISOString()) : null));
      })
      .catch((err) => {
        if (cancelled) return;
        if (err instanceof ApiError && err.offline) setDownSince((d) => d ?? new Date().toISOString());
        else setError(describeError(err));
      });
    return () => {
      cancelled = true;
    };
  }, [url, tick, now, turn]);

  const items = list?.items ?? [];
  const need = items.filter((s) => (s.attention ?? 0) > 0).length;
  return (
    <section class="resource fleet-sites" data-resource="sync-sites" aria-labelledby="h-fleet-sites">
      <div class="resource-head">
        <h2 id="h-fleet-sites">
          {t('fleet.sites')}
          {list ? <span class="count"> ({list.total})</span> : null}
        </h2>
        {statusFilter?.enum ? (
          <label class="filter">
            <span>{t('fleet.filter.show')}</span>
            <select
              name="filter-status"
              value={status}
              onChange={(e) => {
                setStatus((e.target as HTMLSelectElement).value);
                setOffset(0);
              }}
            >
              <option value="">{t('fleet.filter.every')}</option>
              {statusFilter.enum.map((v) => (
                <option key={v} value={v}>
                  {STATUS[v] ? t(STATUS[v].text) : humanise(v)}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      {list ? (
        <p class="fleet-summary" data-summary>
          {need ? t('fleet.summary.need', { need, n: items.length }) : items.length ? t('fleet.summary.ok') : ''}
        </p>
      ) : null}
      <ReachNote side="master" downSince={downSince} staleAt={staleAt} />
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {!list ? (
        <p class="loading">{t('fleet.loading')}</p>
      ) : items.length === 0 ? (
        <p class="empty">{t(status ? 'fleet.empty.filtered' : 'fleet.empty')}</p>
      ) : (
        <ul class="cards site-cards">
          {items.map((s) => (
            <SiteCard key={s.id} s={s} now={now} mayHold={mayHold} onChanged={() => setTurn((n) => n + 1)} />
          ))}
        </ul>
      )}
      {list && (list.total > list.limit || offset > 0) ? (
        <nav class="pager" aria-label={t('fleet.pages')}>
          <button type="button" class="btn" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            {t('fleet.previous')}
          </button>
          <span>{t('fleet.range', { from: offset + 1, to: offset + items.length, total: list.total })}</span>
          <button type="button" class="btn" disabled={!list.has_more} onClick={() => setOffset(offset + PAGE)}>
            {t('fleet.next')}
          </button>
        </nav>
      ) : null}
    </section>
  );
}
