// The box's own screen of its self-update (module updates), for its admins: where the update stands
// now (versions running, target and previous; the step and how far the download is; why, in the
// box's words), when it will install (the maintenance window, and what the install waits for: an
// unacknowledged P1, a setpoint write, the window, the package to go back to), the proof of a new
// version after an install, the last outcome and the recent steps. From GET /api/v1/updates/status,
// read again every 10 s; when the box does not answer, the last state with since when.
import type { ComponentChildren } from 'preact';
import { formatTime, type Tone } from '../lib/format';
import { t, type MessageKey } from '../lib/i18n';
import { href } from '../lib/router';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import { ReachNote } from '../components/updates/ReachNote';
import { useLive } from '../components/updates/live';
import { reasonWords, sizeWords, stepTone, stepWords, waitWords } from '../components/updates/words';

type Params = Record<string, string | number>;

interface HistoryEntry { id: string; step: string; at: string; by: 'service' | 'installer'; running_version: string | null; target_version: string | null; reason: string | null; reason_code: string | null }

export interface UpdateStatus {
  step: string; running_version: string; target_version: string | null; previous_version: string | null; arch: string; progress: number;
  reason: string | null; reason_code: string | null; reason_params: Params | null; at: string; rollout_id: string | null;
  enabled: boolean; release_key: boolean;
  window: { setting: string; timezone: string; open: boolean; opens_at: string | null };
  waiting_for: string[]; p1_unacknowledged: number; writes_in_flight: number;
  previous_package: { version: string; present: boolean };
  handed_over: boolean; deadline_at: string | null;
  proof: { ready?: boolean; answering?: number; answering_before?: number; synced?: boolean } | null;
  offer: { version: string; rollout_id: string | null; size: number; at?: string | null } | null;
  history: HistoryEntry[];
}

const STATUS = '/api/v1/updates/status';
/** Steps in which a package is downloaded and the install waits for what must hold first. */
const WAITING_STEPS = new Set(['verified', 'waiting_for_window']);
const OUTCOMES: Record<string, MessageKey> = { done: 'updates.screen.last.done', rolled_back: 'updates.screen.last.rolled_back', failed: 'updates.screen.last.failed' };
const OUTCOME_TONE: Record<string, Tone> = { done: 'ok', rolled_back: 'alarm', failed: 'alarm' };

function Field({ label, field, children }: { label: string; field: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-field={field}>{children}</dd>
    </div>
  );
}

function windowWords(w: UpdateStatus['window']): string {
  if (!w.setting) return t('updates.screen.window_any');
  if (w.open) return t('updates.screen.window_open', { window: w.setting, timezone: w.timezone });
  return w.opens_at ? t('updates.screen.window_closed', { window: w.setting, timezone: w.timezone, time: formatTime(w.opens_at) }) : t('updates.screen.window_set', { window: w.setting, timezone: w.timezone });
}

function Status({ st }: { st: UpdateStatus }) {
  const words = stepWords({ step: st.step, progress: st.progress, reason_code: st.reason_code, target: st.target_version });
  const reason = st.reason_code || st.reason ? reasonWords(st.reason_code, st.reason_params, st.reason) : '';
  const waiting = WAITING_STEPS.has(st.step);
  const last = st.history.find((h) => OUTCOMES[h.step]);
  const tone = stepTone(st.step);
  return (
    <>
      <section class={`card site-card update-now tone-edge-${tone === 'muted' ? 'none' : tone}`} aria-labelledby="h-update-now" data-update-step={st.step}>
        <div class="site-head">
          <h2 id="h-update-now" class="site-name">{t('updates.screen.now')}</h2>
          <span class={`badge tone-${tone}`} data-badge="step">
            {words}
          </span>
        </div>
        {reason ? (
          <p class="site-update-reason" data-field="reason">
            {reason}
          </p>
        ) : null}
        <dl class="card-fields">
          <Field label={t('updates.screen.running')} field="running">{st.running_version}</Field>
          <Field label={t('updates.screen.target')} field="target">{st.target_version ?? t('updates.screen.none')}</Field>
          <Field label={t('updates.screen.previous')} field="previous">{st.previous_version ?? t('updates.screen.none')}</Field>
          <Field label={t('updates.screen.since')} field="at">{formatTime(st.at)}</Field>
          <Field label={t('updates.screen.offer')} field="offer">
            {st.offer ? t('updates.screen.offer_value', { version: st.offer.version, size: sizeWords(st.offer.size) }) : t('updates.screen.offer_none')}
          </Field>
        </dl>
        {st.step === 'downloading' ? (
          <progress class="update-progress" max={1} value={st.progress} aria-label={t('updates.screen.download')} />
        ) : null}
      </section>

      <section class="card site-card update-when" aria-labelledby="h-update-when">
        <h2 id="h-update-when" class="site-name">{t('updates.screen.when')}</h2>
        <dl class="card-fields">
          <Field label={t('updates.screen.window')} field="window">{windowWords(st.window)}</Field>
          <Field label={t('updates.screen.go_back')} field="go-back">
            {t(st.previous_package.present ? 'updates.screen.go_back_kept' : 'updates.screen.go_back_missing', { version: st.previous_package.version })}
          </Field>
        </dl>
        {waiting ? (
          st.waiting_for.length ? (
            <>
              <h3 class="update-waits-h">{t('updates.screen.waits')}</h3>
              <ul class="update-waits" data-waits>
                {st.waiting_for.map((w) => (
                  <li key={w} data-wait={w}>
                    {w === 'p1_alarm' && st.p1_unacknowledged > 0 ? t('updates.screen.wait_p1', { n: st.p1_unacknowledged }) : waitWords(w)}
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <p data-waits="none">{t('updates.screen.waits_none')}</p>
          )
        ) : null}
        {st.step === 'proving' ? (
          <>
            <h3>{t('updates.screen.proof')}</h3>
            <ul class="update-proof" data-proof>
              {st.deadline_at ? <li>{t('updates.screen.proof_by', { time: formatTime(st.deadline_at) })}</li> : null}
              {st.proof ? <li>{t(st.proof.ready ? 'updates.screen.proof_ready_yes' : 'updates.screen.proof_ready_no')}</li> : null}
              {st.proof && (st.proof.answering_before ?? 0) > 0 ? <li>{t('updates.screen.proof_controllers', { answering: st.proof.answering ?? 0, before: st.proof.answering_before ?? 0 })}</li> : null}
              {st.proof ? <li>{t(st.proof.synced ? 'updates.screen.proof_synced_yes' : 'updates.screen.proof_synced_no')}</li> : null}
            </ul>
          </>
        ) : null}
      </section>

      <section class="card site-card update-last" aria-labelledby="h-update-last">
        <h2 id="h-update-last" class="site-name">{t('updates.screen.last')}</h2>
        {last ? (
          <p data-last={last.step}>
            <span class={`badge tone-${OUTCOME_TONE[last.step] ?? 'muted'}`}>{stepWords({ step: last.step })}</span>{' '}
            {t(OUTCOMES[last.step]!, { version: last.target_version ?? last.running_version ?? '—', time: formatTime(last.at) })}
            {last.reason_code || last.reason ? <span class="update-last-reason"> {reasonWords(last.reason_code, null, last.reason)}</span> : null}
          </p>
        ) : (
          <p class="muted" data-last="none">{t('updates.screen.last_none')}</p>
        )}
        {st.history.length ? (
          <>
            <h3>{t('updates.screen.history')}</h3>
            <ol class="update-history">
              {st.history.slice(0, 10).map((h) => (
                <li key={h.id} data-step={h.step}>
                  <span class="update-history-time">{formatTime(h.at)}</span>{' '}
                  <span class={`badge tone-${stepTone(h.step)}`}>{stepWords({ step: h.step })}</span>{' '}
                  {h.target_version ? <span>{t('updates.screen.version', { version: h.target_version })}</span> : null}{' '}
                  <span class="muted">{t(h.by === 'installer' ? 'updates.screen.by.installer' : 'updates.screen.by.service')}</span>
                </li>
              ))}
            </ol>
          </>
        ) : null}
      </section>
    </>
  );
}

export function SoftwareUpdates() {
  const s = useObservable(session);
  const master = s?.ctx.deployment_mode === 'cloud-multi';
  const live = useLive<{ item: UpdateStatus }>(s && !master ? STATUS : null);
  if (!s) return null;
  const releases = s.modules.some((m) => m.id === 'releases');
  return (
    <section class="panel software-updates" aria-labelledby="h-software-updates" data-screen="software-updates">
      <h1 id="h-software-updates">{t('updates.screen.title')}</h1>
      {master ? (
        <>
          <p class="notice">{t('updates.screen.master')}</p>
          {releases ? (
            <a class="btn" href={href('module', 'releases')}>
              {t('updates.screen.master_link')}
            </a>
          ) : null}
        </>
      ) : (
        <>
          <p class="muted">{t('updates.screen.intro')}</p>
          <ReachNote side="box" downSince={live.downSince} staleAt={live.staleAt} />
          {live.error ? (
            <p class="error" role="alert">
              {live.error}
            </p>
          ) : null}
          {live.data ? <Status st={live.data.item} /> : !live.error && !live.downSince ? <p class="loading">{t('updates.screen.loading')}</p> : null}
        </>
      )}
    </section>
  );
}
