// The master's releases and rollouts (module releases: its own screen instead of the generic
// record lists). The rollouts first, newest first: each one's state, its waves (the canary sites,
// then percentages of the other eligible sites) with the sites of each wave and where their update
// stands, the failure rate against the threshold, and why it is paused; pause, resume and abort
// for those the policy allows. Then the releases: version, notes, state and each architecture's
// package (size, uploaded, checked). Uploading a release is the command line's
// (`cabinet release upload`): the screen says so. Read again every 10 s; when the master does not
// answer, the last data is shown with since when.
import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { formatTime, type Tone } from '../lib/format';
import { t, tParts, type MessageKey } from '../lib/i18n';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import type { ListEnvelope } from '../lib/api';
import { ReasonAction } from '../components/updates/ReasonAction';
import { StartRollout } from '../components/updates/StartRollout';
import { ReachNote } from '../components/updates/ReachNote';
import { mayPost, useLive } from '../components/updates/live';
import { reasonWords, secondsWords, sizeWords, stepTone, stepWords } from '../components/updates/words';

interface PackageSummary { arch: string; size: number | null; chunks: number | null; received: number; signed: boolean; complete: boolean }

export interface Release {
  id: string; version: string; notes: string; state: 'draft' | 'published' | 'withdrawn'; created_by: string; created_at: string;
  published_at: string | null; published_by: string | null; withdrawn_at: string | null; withdrawn_reason: string | null; packages: PackageSummary[] | null;
}

type Outcome = 'pending' | 'done' | 'failed' | 'skipped';
interface WaveSite { id: string; outcome: Outcome; step: string | null; progress: number | null; reason: string | null }
interface Wave { wave: number; percent: number | null; started: boolean; sites: WaveSite[] }
interface Progress { eligible: number; finished: number; done: number; failed: number; pending: number; failure_rate_percent: number; waves: Wave[] }

export interface Rollout {
  id: string; release_id: string; canary_site_ids: string[]; waves: number[]; failure_threshold_percent: number; proof_timeout_s: number;
  state: 'running' | 'paused' | 'done' | 'aborted'; wave: number; paused_reason: string | null; created_by: string; created_at: string;
  updated_at: string; finished_at: string | null; progress: Progress | null;
}

/** What the sites card knows of a failed site's reason (its code, to word it). */
interface SiteReason { id: string; update_reason: string | null; update_reason_code: string | null; update_reason_params?: Record<string, string | number> | null }

const RELEASES = '/api/v1/releases/list?limit=50';
const ROLLOUTS = '/api/v1/release-rollouts/list?limit=20';
// The failed sites' reasons by code (the rollout's progress carries the box's English only).
const FAILED = ['failed', 'rolled_back'].map((step) => `/api/v1/sync-sites/list?limit=200&update_step=${step}`);
const COMMAND = (name: string) => `/api/v1/release-rollouts/commands/${name}`;

const RELEASE_STATE: Record<Release['state'], { key: MessageKey; tone: Tone }> = {
  draft: { key: 'fleet.release.state.draft', tone: 'warn' },
  published: { key: 'fleet.release.state.published', tone: 'ok' },
  withdrawn: { key: 'fleet.release.state.withdrawn', tone: 'muted' },
};
const ROLLOUT_STATE: Record<Rollout['state'], { key: MessageKey; tone: Tone }> = {
  running: { key: 'fleet.rollout.state.running', tone: 'ok' },
  paused: { key: 'fleet.rollout.state.paused', tone: 'warn' },
  done: { key: 'fleet.rollout.state.done', tone: 'muted' },
  aborted: { key: 'fleet.rollout.state.aborted', tone: 'muted' },
};

function packageLine(p: PackageSummary): string {
  if (p.complete && p.size !== null) return t('fleet.package.complete', { arch: p.arch, size: sizeWords(p.size) });
  if (!p.signed) return t('fleet.package.unsigned', { arch: p.arch, received: p.received });
  return t('fleet.package.partial', { arch: p.arch, received: p.received, chunks: p.chunks ?? 0, size: sizeWords(p.size ?? 0) });
}

function ReleaseCard({ r, mayStart, onChanged }: { r: Release; mayStart: boolean; onChanged: () => void }) {
  const st = RELEASE_STATE[r.state] ?? { key: 'fleet.release.state.draft', tone: 'muted' as Tone };
  const pkgs = r.packages ?? [];
  return (
    <li class={`card site-card release-card tone-edge-${st.tone === 'muted' ? 'none' : st.tone}`} data-release={r.id} data-state={r.state}>
      <div class="site-head">
        <h3 class="site-name">{t('fleet.release.version', { version: r.version })}</h3>
        <span class={`badge tone-${st.tone}`} data-badge="state">
          {t(st.key)}
        </span>
      </div>
      {r.notes ? <p class="release-notes">{r.notes}</p> : null}
      <dl class="card-fields">
        <div>
          <dt>{t('fleet.release.created')}</dt>
          <dd>{t('fleet.release.when_who', { time: formatTime(r.created_at), who: r.created_by })}</dd>
        </div>
        {r.published_at ? (
          <div>
            <dt>{t('fleet.release.published')}</dt>
            <dd>{t('fleet.release.when_who', { time: formatTime(r.published_at), who: r.published_by ?? '—' })}</dd>
          </div>
        ) : null}
        {r.withdrawn_at ? (
          <div>
            <dt>{t('fleet.release.withdrawn')}</dt>
            <dd>{r.withdrawn_reason ? t('fleet.release.withdrawn_why', { time: formatTime(r.withdrawn_at), reason: r.withdrawn_reason }) : formatTime(r.withdrawn_at)}</dd>
          </div>
        ) : null}
      </dl>
      <h4 class="release-packages-h">{t('fleet.release.packages')}</h4>
      {pkgs.length ? (
        <ul class="release-packages">
          {pkgs.map((p) => (
            <li key={p.arch} data-arch={p.arch} data-complete={p.complete ? 'true' : 'false'}>
              {packageLine(p)}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{t('fleet.release.no_packages')}</p>
      )}
      {mayStart ? <StartRollout release={r.id} onDone={onChanged} /> : null}
    </li>
  );
}

/** A wave's heading: "Canary sites" or "Wave 2: 50 % of the other sites". */
function waveTitle(w: Wave): string {
  return w.wave === 0 || w.percent === null ? t('fleet.wave.canaries') : t('fleet.wave.percent', { k: w.wave, percent: w.percent });
}

function WaveSiteLine({ site, version, reasons }: { site: WaveSite; version: string; reasons: Map<string, SiteReason> }) {
  const failedReason = site.outcome === 'failed' ? reasons.get(site.id) : undefined;
  const [words, tone]: [string, Tone] =
    site.outcome === 'done' ? [t('fleet.outcome.done', { version }), 'ok']
      : site.outcome === 'skipped' ? [t('fleet.outcome.skipped'), 'muted']
        : site.outcome === 'failed' ? [stepWords({ step: site.step }), 'alarm']
          : [stepWords({ step: site.step, progress: site.progress, target: version }), stepTone(site.step)];
  const reason = site.outcome === 'failed'
    ? (failedReason ? reasonWords(failedReason.update_reason_code, failedReason.update_reason_params, failedReason.update_reason) : (site.reason ?? ''))
    : '';
  return (
    <li data-site={site.id} data-outcome={site.outcome}>
      <span class="wave-site-id">{site.id}</span>{' '}
      <span class={`badge tone-${tone}`} data-step={site.step ?? ''}>
        {words}
      </span>
      {reason ? <span class="wave-reason">{reason}</span> : null}
    </li>
  );
}

function RolloutCard({ r, api, reasons, onChanged }: { r: Rollout; api: Record<string, boolean>; reasons: Map<string, SiteReason>; onChanged: () => void }) {
  const st = ROLLOUT_STATE[r.state] ?? { key: 'fleet.rollout.state.running', tone: 'muted' as Tone };
  const p = r.progress;
  const threshold = Number(r.failure_threshold_percent);
  const rate = p?.failure_rate_percent ?? 0;
  const over = !!p && p.failed > 0 && rate > threshold;
  const waves = p?.waves ?? [];
  const total = r.waves.length;
  // Paused by the threshold: said from the figures; by a person or aborted: the master's note (with the person's reason).
  const note = r.state === 'paused' && over
    ? t('fleet.rollout.paused_rate', { rate, threshold, failed: p.failed, finished: p.finished })
    : (r.state === 'paused' || r.state === 'aborted') && r.paused_reason ? t('fleet.rollout.note', { note: r.paused_reason }) : '';
  const action = (name: 'pause' | 'resume' | 'abort', required: boolean, primary = false): ComponentChildren =>
    mayPost(api, COMMAND(name)) ? (
      <ReasonAction action={name} owner={r.id} label={t(`fleet.rollout.${name}`)} question={t(`fleet.rollout.${name}_why`)} submit={t(`fleet.rollout.${name}_submit`)}
        busyLabel={t('fleet.action.busy')} required={required} primary={primary} path={COMMAND(name)} body={(reason) => ({ id: r.id, ...(reason ? { reason } : {}) })} onDone={onChanged} />
    ) : null;
  return (
    <li class={`card site-card rollout-card tone-edge-${st.tone === 'muted' ? 'none' : over ? 'alarm' : st.tone}`} data-rollout={r.id} data-state={r.state}>
      <div class="site-head">
        <h3 class="site-name">{t('fleet.rollout.title', { version: r.release_id })}</h3>
        <span class={`badge tone-${st.tone}`} data-badge="state">
          {t(st.key)}
        </span>
      </div>
      {note ? (
        <p class={r.state === 'paused' ? 'notice rollout-note' : 'muted rollout-note'} data-note>
          {note}
        </p>
      ) : null}
      <dl class="card-fields">
        <div>
          <dt>{t('fleet.rollout.wave')}</dt>
          <dd data-field="wave">{Number(r.wave) === 0 ? t('fleet.wave.canaries') : t('fleet.rollout.wave_of', { k: Number(r.wave), n: total })}</dd>
        </div>
        <div>
          <dt>{t('fleet.rollout.failure_rate')}</dt>
          <dd data-field="failure-rate">
            {tParts('fleet.rollout.rate', { rate: <span class={`badge tone-${over ? 'alarm' : p && p.failed > 0 ? 'warn' : 'ok'}`} data-rate={rate}>{t('fleet.rollout.rate_value', { rate })}</span> }, { threshold })}
          </dd>
        </div>
        <div>
          <dt>{t('fleet.rollout.sites')}</dt>
          <dd data-field="sites">{p ? t('fleet.rollout.counts', { done: p.done, failed: p.failed, pending: p.pending, eligible: p.eligible }) : '—'}</dd>
        </div>
        <div>
          <dt>{t('fleet.rollout.proof')}</dt>
          <dd data-field="proof">{secondsWords(Number(r.proof_timeout_s))}</dd>
        </div>
        <div>
          <dt>{t('fleet.rollout.started')}</dt>
          <dd>{t('fleet.release.when_who', { time: formatTime(r.created_at), who: r.created_by })}</dd>
        </div>
        {r.finished_at ? (
          <div>
            <dt>{t('fleet.rollout.finished')}</dt>
            <dd>{formatTime(r.finished_at)}</dd>
          </div>
        ) : null}
      </dl>
      <ol class="waves">
        {waves.map((w) => (
          <li key={w.wave} class="wave" data-wave={w.wave} data-started={w.started ? 'true' : 'false'}>
            <h4 class="wave-head">
              <span>{waveTitle(w)}</span>{' '}
              <span class={`badge tone-${w.started ? 'ok' : 'muted'}`}>{t(w.started ? 'fleet.wave.started' : 'fleet.wave.waiting')}</span>
            </h4>
            {w.sites.length ? (
              <ul class="wave-sites">
                {w.sites.map((site) => (
                  <WaveSiteLine key={site.id} site={site} version={r.release_id} reasons={reasons} />
                ))}
              </ul>
            ) : (
              <p class="muted">{t(w.started ? 'fleet.wave.empty' : 'fleet.wave.later')}</p>
            )}
          </li>
        ))}
      </ol>
      <div class="actions">
        {r.state === 'running' ? action('pause', false) : null}
        {r.state === 'paused' ? action('resume', false, true) : null}
        {r.state === 'running' || r.state === 'paused' ? action('abort', true) : null}
      </div>
    </li>
  );
}

export function FleetReleases() {
  const s = useObservable(session);
  const releases = useLive<ListEnvelope<Release>>(RELEASES);
  const rollouts = useLive<ListEnvelope<Rollout>>(ROLLOUTS);
  const anyFailed = (rollouts.data?.items ?? []).some((r) => (r.progress?.failed ?? 0) > 0);
  const failed = useLive<ListEnvelope<SiteReason>>(anyFailed ? FAILED[0]! : null);
  const rolledBack = useLive<ListEnvelope<SiteReason>>(anyFailed ? FAILED[1]! : null);
  const reasons = useMemo(() => new Map([...(failed.data?.items ?? []), ...(rolledBack.data?.items ?? [])].map((x) => [x.id, x])), [failed.data, rolledBack.data]);
  if (!s) return null;
  const api = s.ctx.policy.permissions.api;
  const reload = () => {
    rollouts.reload();
    releases.reload();
  };
  const down = rollouts.downSince ?? releases.downSince;
  // A release is offered a rollout when none of its own is under way (the master refuses a second).
  const mayCreate = mayPost(api, COMMAND('create'));
  const active = new Set((rollouts.data?.items ?? []).filter((r) => r.state === 'running' || r.state === 'paused').map((r) => r.release_id));
  const upload = tParts('fleet.releases.upload', {
    // i18n-ok: the command's own name, typed as it is in every language
    command: <code>cabinet release upload</code>,
  });
  return (
    <section class="panel fleet-releases" aria-labelledby="h-fleet-releases" data-screen="fleet-releases">
      <h1 id="h-fleet-releases">{t('fleet.releases.title')}</h1>
      <p class="muted release-upload" data-upload-note>
        {upload}
      </p>
      <ReachNote side="master" downSince={down} staleAt={rollouts.staleAt ?? releases.staleAt} />
      <section aria-labelledby="h-rollouts" data-resource="release-rollouts">
        <h2 id="h-rollouts">
          {t('fleet.rollouts')}
          {rollouts.data ? <span class="count"> ({rollouts.data.total})</span> : null}
        </h2>
        {rollouts.error ? <p class="error" role="alert">{rollouts.error}</p> : null}
        {!rollouts.data ? (
          !rollouts.error && !down ? <p class="loading">{t('fleet.loading')}</p> : null
        ) : rollouts.data.items.length === 0 ? (
          <p class="empty">{t('fleet.rollouts.empty')}</p>
        ) : (
          <ul class="cards rollout-cards">
            {rollouts.data.items.map((r) => (
              <RolloutCard key={r.id} r={r} api={api} reasons={reasons} onChanged={reload} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="h-releases" data-resource="releases">
        <h2 id="h-releases">
          {t('fleet.releases')}
          {releases.data ? <span class="count"> ({releases.data.total})</span> : null}
        </h2>
        {releases.error ? <p class="error" role="alert">{releases.error}</p> : null}
        {!releases.data ? (
          !releases.error && !down ? <p class="loading">{t('fleet.loading')}</p> : null
        ) : releases.data.items.length === 0 ? (
          <p class="empty">{t('fleet.releases.empty')}</p>
        ) : (
          <ul class="cards release-cards">
            {releases.data.items.map((r) => (
              <ReleaseCard key={r.id} r={r} mayStart={r.state === 'published' && mayCreate && !active.has(r.id)} onChanged={reload} />
            ))}
          </ul>
        )}
      </section>
    </section>
  );
}
