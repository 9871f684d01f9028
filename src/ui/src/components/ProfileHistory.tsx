// The shell profile of this tenant/site/industry: its versions (every settings change is one) and,
// for admins, restoring an earlier one (auth/shell-profile/commands/rollback).
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList, post, query } from '../lib/api';
import { known } from '../lib/field-words';
import { formatTime, humanise } from '../lib/format';
import { t } from '../lib/i18n';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';

interface Version { version: number; theme: string | null; source: string; created_by: string; created_at: string; rollback_of: number | null }
interface Profile { current_version: number; versions: Version[] }

export function ProfileHistory() {
  const s = useObservable(session);
  const [profile, setProfile] = useState<Profile | null>(null);
  const [error, setError] = useState('');
  const [confirm, setConfirm] = useState<number | null>(null);
  const [version, setVersion] = useState(0);
  const industry = s?.industry;
  useEffect(() => {
    getList<Profile>(`/api/v1/auth/shell-profile/list${query({ industry_code: industry })}`)
      .then((r) => setProfile(r.data.items[0] ?? null))
      .catch((err) => setError(describeError(err)));
  }, [industry, version]);
  if (!s) return null;
  const admin = s.user.role === 'admin';
  const restore = async (v: number) => {
    setError('');
    try {
      await post('/api/v1/auth/shell-profile/commands/rollback', { to_version: v, industry_code: industry });
      setConfirm(null);
      setVersion(version + 1);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const versions = [...(profile?.versions ?? [])].reverse().slice(0, 8);
  return (
    <section class="panel" aria-labelledby="profile-h" id="profile-history">
      <h2 id="profile-h">{t('forms.shellProfile.title')}</h2>
      <p class="muted">{t('forms.shellProfile.intro')}</p>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {versions.length === 0 ? <p class="empty">{t('forms.shellProfile.none')}</p> : null}
      <ol class="versions">
        {versions.map((v) => (
          <li key={v.version} data-version={v.version}>
            <span>
              <strong>{t('forms.shellProfile.version', { version: v.version })}</strong>
              {t('forms.shellProfile.versionLine', {
                current: v.version === profile?.current_version ? 'yes' : 'no',
                source: known(`forms.shellProfile.source.${v.source}`) ?? humanise(v.source),
                rollback: v.rollback_of ?? 0,
                who: v.created_by,
                when: formatTime(v.created_at),
              })}
            </span>
            {admin && v.version !== profile?.current_version ? (
              confirm === v.version ? (
                <span class="actions">
                  <button type="button" class="btn primary" onClick={() => void restore(v.version)}>
                    {t('forms.shellProfile.restoreYes', { version: v.version })}
                  </button>
                  <button type="button" class="btn" onClick={() => setConfirm(null)}>
                    {t('common.action.back')}
                  </button>
                </span>
              ) : (
                <button type="button" class="btn" onClick={() => setConfirm(v.version)}>
                  {t('forms.shellProfile.restore')}
                </button>
              )
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
