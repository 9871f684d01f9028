// The installer's set-up screen: what is commissioned on this box and what is missing, in the
// order a box is set up, as the box checks it now (site-setup/list). Each line says what is
// missing in words and opens the screen that sets it up. Re-read every 10 s, so a controller
// coming up or an output failing shows while the installer stands at the panel.
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList } from '../lib/api';
import { href } from '../lib/router';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import { inFarmWords } from '../lib/words';

interface SetupLine { id: string; order: number; title: string; state: 'done' | 'missing' | 'attention' | 'optional'; words: string; module: string | null; screen: string | null }

const STATE: Record<SetupLine['state'], { label: string; tone: string; mark: string }> = {
  done: { label: 'Done', tone: 'ok', mark: '✓' },
  missing: { label: 'Missing', tone: 'warn', mark: '!' },
  attention: { label: 'Needs attention', tone: 'warn', mark: '!' },
  optional: { label: 'Optional', tone: 'muted', mark: '–' },
};

const REFRESH_MS = 10_000;

export function SiteSetup() {
  const s = useObservable(session);
  const [lines, setLines] = useState<SetupLine[] | null>(null);
  const [stale, setStale] = useState<string | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    const load = async () => {
      try {
        const r = await getList<SetupLine>('/api/v1/site-setup/list');
        if (!live) return;
        setLines(r.data.items);
        setStale(r.stale ? r.at : null);
        setError('');
      } catch (err) {
        if (live) setError(describeError(err));
      }
    };
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  if (!s) return null;
  const screenOf = (l: SetupLine): { to: string; name: string } | null => {
    if (l.screen === 'handoff') return { to: href('handoff'), name: 'Log in a phone' };
    if (l.screen) return { to: href(l.screen), name: 'Settings' };
    const m = l.module ? s.modules.find((x) => x.id === l.module) : undefined;
    return m ? { to: href('module', m.id), name: inFarmWords(m).name } : null;
  };
  const open = lines?.filter((l) => l.state === 'missing' || l.state === 'attention').length ?? 0;
  return (
    <section class="panel site-setup" aria-labelledby="setup-h" data-screen="setup">
      <h1 id="setup-h">Site set-up</h1>
      <p>What this box is commissioned with, in the order a site is set up. The box checks each line again every few seconds.</p>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {stale ? <p class="stale-note">The box does not answer: these lines are as they were at {new Date(stale).toLocaleTimeString()}.</p> : null}
      {lines === null && !error ? <p class="loading">Checking the box...</p> : null}
      {lines ? (
        <p id="setup-summary" class={open ? 'notice' : 'setup-complete'}>
          {open ? `${open} of ${lines.length} steps need you.` : 'Every step is done.'}
        </p>
      ) : null}
      <ol class="setup-lines" id="setup-lines">
        {(lines ?? []).map((l) => {
          const st = STATE[l.state];
          const to = screenOf(l);
          return (
            <li key={l.id} class={`setup-line tone-edge-${st.tone === 'muted' ? 'none' : st.tone}`} data-step={l.id} data-state={l.state}>
              <div class="setup-head">
                <span class={`badge tone-${st.tone}`}>
                  <span aria-hidden="true">{st.mark} </span>
                  {st.label}
                </span>
                <h2>{l.title}</h2>
              </div>
              <p class="setup-words">{l.words}</p>
              {to ? (
                <a class="btn" href={to.to}>
                  Open {to.name}
                </a>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
