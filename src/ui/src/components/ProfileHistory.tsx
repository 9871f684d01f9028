// The shell profile of this tenant/site/industry: its versions (every settings change is one) and,
// for admins, restoring an earlier one (auth/shell-profile/commands/rollback).
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList, post, query } from '../lib/api';
import { formatTime, humanise } from '../lib/format';
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
      <h2 id="profile-h">Site shell profile</h2>
      <p class="muted">Every settings change is a version; people without settings of their own get the current one.</p>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {versions.length === 0 ? <p class="empty">No versions yet.</p> : null}
      <ol class="versions">
        {versions.map((v) => (
          <li key={v.version} data-version={v.version}>
            <span>
              <strong>Version {v.version}</strong>
              {v.version === profile?.current_version ? ' (current)' : ''}: {humanise(v.source)}
              {v.rollback_of ? ` of version ${v.rollback_of}` : ''} by {v.created_by}, {formatTime(v.created_at)}
            </span>
            {admin && v.version !== profile?.current_version ? (
              confirm === v.version ? (
                <span class="actions">
                  <button type="button" class="btn primary" onClick={() => void restore(v.version)}>
                    Yes, restore version {v.version}
                  </button>
                  <button type="button" class="btn" onClick={() => setConfirm(null)}>
                    Back
                  </button>
                </span>
              ) : (
                <button type="button" class="btn" onClick={() => setConfirm(v.version)}>
                  Restore
                </button>
              )
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
