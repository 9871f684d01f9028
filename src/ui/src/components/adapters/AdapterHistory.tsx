// The versions of one adapter profile (GET <path>/{id}/versions), newest first: which one is in
// force, what each changed against the one before, who saved it and when, and the change note.
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList, query } from '../../lib/api';
import { formatTime } from '../../lib/format';
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

/** The profile's fields in the editor's words. */
const FIELD_WORDS: Record<string, string> = {
  unit_id: 'house', controller_id: 'name', transport: 'connection', host: 'IP address', port: 'port', serial_path: 'serial port', modbus_unit_id: 'Modbus unit id',
  device_instance: 'BACnet device', points: 'setpoints', readings: 'readings', poll_period_s: 'read every', loss_after_misses: 'alarm after missed reads', comm_loss_priority: 'alarm priority',
};

/** What `v` changed against the version before it, in words ("changed readings, port"). */
export function changeWords(v: AdapterVersion, first: boolean): string {
  if (first) return v.created_by === 'system' ? 'as it stood before its first change' : 'first saved';
  return v.changed.length ? `changed ${v.changed.map((k) => FIELD_WORDS[k] ?? k.replace(/_/g, ' ')).join(', ')}` : 'same as the version before';
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
    <section class="adapter-history" aria-label={`Versions of ${name}`}>
      <h4>Versions of {name}</h4>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {!items && !error ? <p class="loading">Loading...</p> : null}
      {items && !items.length ? <p class="empty">No versions kept yet: the first change saves the profile as it is now as version 1.</p> : null}
      {items?.length ? (
        <ol class="versions">
          {items.map((v, i) => (
            <li key={v.version_id} data-version={v.version_id} data-state={v.state}>
              <span>
                <strong>Version {v.version_id}</strong>
                {v.state === 'published' ? ' (in force)' : ''}: {changeWords(v, i === items.length - 1 && v.version_id === 1)}, by {v.created_by === 'system' ? 'the box' : nameOf(v.created_by, names)}, {formatTime(v.created_at)}
                {v.change_note ? <span class="muted version-note"> — {v.change_note}</span> : null}
              </span>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
