// Reading a screen's data again every 10 s, and knowing when it could not be: the last answer kept
// (the API client's cache) with the time it was had, and since when the server did not answer, so
// the screen says "does not answer since 14:05; shown as at 14:03" instead of showing old data as new.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, describeError, getLoaded } from '../../lib/api';

export const REFRESH_MS = 10_000;

export interface Live<T> {
  data: T | null;
  /** When the data shown was had, while the server does not answer (null: fresh). */
  staleAt: string | null;
  /** Since when the server does not answer (null: it answers). */
  downSince: string | null;
  /** An answer that was an error (not the server being out of reach). */
  error: string;
  /** Read again now (after a command). */
  reload: () => void;
}

export function useLive<T>(path: string | null, ms = REFRESH_MS): Live<T> {
  const [data, setData] = useState<T | null>(null);
  const [staleAt, setStaleAt] = useState<string | null>(null);
  const [downSince, setDownSince] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [turn, setTurn] = useState(0);
  const reload = useCallback(() => setTurn((n) => n + 1), []);
  useEffect(() => {
    if (!path) return;
    let live = true;
    const load = async () => {
      try {
        const r = await getLoaded<T>(path);
        if (!live) return;
        setData(r.data);
        setError('');
        if (r.stale) {
          setStaleAt(r.at);
          setDownSince((d) => d ?? new Date().toISOString());
        } else {
          setStaleAt(null);
          setDownSince(null);
        }
      } catch (err) {
        if (!live) return;
        if (err instanceof ApiError && err.offline) {
          setDownSince((d) => d ?? new Date().toISOString());
          setError('');
        } else setError(describeError(err));
      }
    };
    void load();
    const timer = setInterval(() => void load(), ms);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [path, ms, turn]);
  return { data, staleAt, downSince, error, reload };
}

/** Whether this person may run a command of the API (app/context's permissions, as the other screens ask). */
export function mayPost(api: Record<string, boolean>, path: string): boolean {
  return api[`api:POST ${path}`] === true;
}
