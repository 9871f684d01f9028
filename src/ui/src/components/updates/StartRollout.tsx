// Starting a rollout of a published release (release-rollouts/commands/create), for a fleet admin:
// the canary sites picked from the fleet's sites, the waves as percentages of the other sites, the
// failure rate that pauses it and the time a box's new version has to prove itself. The master
// checks the rest (only the sites whose version policies allow the release take part).
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList, post } from '../../lib/api';
import { t } from '../../lib/i18n';

interface SiteChoice { id: string; site_id: string; tenant_id: string; running_version?: string | null; app_version?: string | null }

/** "50, 100" -> [50, 100]; null when it is not whole percentages growing up to at most 100. */
export function parseWaves(text: string): number[] | null {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  if (!parts.length) return null;
  const waves = parts.map((p) => Number(p.replace('%', '')));
  if (waves.some((w) => !Number.isInteger(w) || w < 1 || w > 100)) return null;
  return waves.every((w, i) => i === 0 || w > waves[i - 1]!) ? waves : null;
}

export function StartRollout({ release, onDone }: { release: string; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [sites, setSites] = useState<SiteChoice[] | null>(null);
  const [canaries, setCanaries] = useState<string[]>([]);
  const [waves, setWaves] = useState('50, 100');
  const [threshold, setThreshold] = useState('20');
  const [minutes, setMinutes] = useState('10');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const id = `start-rollout-${release.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  useEffect(() => {
    if (!open || sites) return;
    getList<SiteChoice>('/api/v1/sync-sites/list?limit=500&sort=site_id&order=asc')
      .then((r) => setSites(r.data.items))
      .catch((err) => setError(describeError(err)));
  }, [open, sites]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const w = parseWaves(waves);
    const th = Number(threshold);
    const min = Number(minutes);
    if (!w) return setError(t('fleet.start.bad_waves'));
    if (!Number.isFinite(th) || th < 0 || th > 100) return setError(t('fleet.start.bad_threshold'));
    if (!Number.isFinite(min) || min < 1 || min > 1440) return setError(t('fleet.start.bad_minutes'));
    setBusy(true);
    setError('');
    try {
      await post('/api/v1/release-rollouts/commands/create', { release_id: release, canary_site_ids: canaries, waves: w, failure_threshold_percent: th, proof_timeout_s: Math.round(min * 60) });
      setOpen(false);
      onDone();
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="reason-action start-rollout">
      <button type="button" class="btn primary" data-action="start-rollout" aria-expanded={open} aria-controls={id} onClick={() => {
          setOpen(!open);
          setError('');
        }}>
        {t('fleet.start.open')}
      </button>
      {open ? (
        <form class="reason-form" id={id} data-form="start-rollout" noValidate onSubmit={(e) => void submit(e)}>
          <fieldset class="start-canaries">
            <legend>{t('fleet.start.canaries')}</legend>
            <p class="field-hint">{t('fleet.start.canaries_hint')}</p>
            {sites === null ? <p class="loading">{t('fleet.loading')}</p> : null}
            {(sites ?? []).map((s) => (
              <label key={s.id} class="check">
                <input type="checkbox" name="canary" value={s.id} checked={canaries.includes(s.id)} onChange={(e) => {
                    const on = e.currentTarget.checked;
                    setCanaries(on ? [...canaries, s.id] : canaries.filter((c) => c !== s.id));
                  }} />
                <span>{t('fleet.start.site', { site: s.site_id, farm: s.tenant_id })}</span>
              </label>
            ))}
          </fieldset>
          <label class="form-row">
            <span>{t('fleet.start.waves')}</span>
            <input name="waves" type="text" inputMode="numeric" value={waves} onInput={(e) => setWaves(e.currentTarget.value)} aria-describedby={`${id}-waves`} />
            <small id={`${id}-waves`} class="field-hint">{t('fleet.start.waves_hint')}</small>
          </label>
          <label class="form-row">
            <span>{t('fleet.start.threshold')}</span>
            <input name="failure_threshold_percent" type="number" min={0} max={100} value={threshold} onInput={(e) => setThreshold(e.currentTarget.value)} />
          </label>
          <label class="form-row">
            <span>{t('fleet.start.minutes')}</span>
            <input name="proof_minutes" type="number" min={1} max={1440} value={minutes} onInput={(e) => setMinutes(e.currentTarget.value)} />
          </label>
          <div class="actions">
            <button type="submit" class="btn primary" disabled={busy}>
              {busy ? t('fleet.action.busy') : t('fleet.start.submit', { version: release })}
            </button>
            <button type="button" class="btn" onClick={() => setOpen(false)}>
              {t('common.action.cancel')}
            </button>
          </div>
        </form>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
