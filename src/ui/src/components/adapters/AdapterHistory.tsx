// The versions of one adapter profile (GET <path>/{id}/versions), newest first: which one is in
// force, what each changed against the one before, who saved it and when, and the change note.
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList, query } from '../../lib/api';
import { known } from '../../lib/field-words';
import { formatTime } from '../../lib/format';
import { t } from '../../lib/i18n';
import { loadPeople, nameOf, people } from '../../lib/people';
import { session } from '../../lib/session';
import { useObservable } from '../../lib/store';

export interface AdapterVersion {
  version_id: number;
  state: 'draft' | 'published' | 'archived';
  change_note: string | null;
  created_by: string;
  created_at: string;
  profile: Record<string, unknown>;
  /** The fields it changed against the version before it (the box compares them). */
  changed: string[];
}

/** What `v` changed against the version before it, in words ("changed readings, port"): the fields as adapters.changed.<field>. */
export function changeWords(v: AdapterVersion, first: boolean): string {
  if (first) return v.created_by === 'system' ? t('adapters.history.beforeFirst') : t('adapters.history.firstSaved');
  const fields = v.changed.map((k) => known(`adapters.changed.${k}`) ?? k.replace(/_/g, ' '));
  return fields.length ? t('adapters.history.changed', { fields: fields.join(', ') }) : t('adapters.history.same');
}

export function AdapterHistory({ path, id, name, version }: { path: string; id: string; name: string; version: number }) {
  const s = useObservable(session);
  const names = useObservable(people);
  const [items, setItems] = useState<AdapterVersion[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (s) void loadPeople(s);
    getList<AdapterVersion>(`/api/v1/${path}/${encodeURIComponent(id)}/versions${query({ limit: 50 })}`)
      .then((r) => setItems(r.data.items))
      .catch((err) => setError(describeError(err)));
  }, [path, id, version]);
  return (
    <section class="adapter-history" aria-label={t('adapters.history.title', { name })}>
      <h4>{t('adapters.history.title', { name })}</h4>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {!items && !error ? <p class="loading">{t('forms.list.loading')}</p> : null}
      {items && !items.length ? <p class="empty">{t('adapters.history.none')}</p> : null}
      {items?.length ? (
        <ol class="versions">
          {items.map((v, i) => (
            <li key={v.version_id} data-version={v.version_id} data-state={v.state}>
              <span>
                <strong>{t('adapters.history.version', { version: v.version_id })}</strong>
                {t('adapters.history.line', {
                  inForce: v.state === 'published' ? 'yes' : 'no',
                  change: changeWords(v, i === items.length - 1 && v.version_id === 1),
                  who: v.created_by === 'system' ? t('adapters.history.theBox') : nameOf(v.created_by, names),
                  when: formatTime(v.created_at),
                })}
                {v.change_note ? <span class="muted version-note"> — {v.change_note}</span> : null}
              </span>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
