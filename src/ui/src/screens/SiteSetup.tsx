// The installer's set-up screen: what is commissioned on this box and what is missing, in the
// order a box is set up, as the box checks it now (site-setup/list). Each line says what is
// missing in words and opens the screen that sets it up. Re-read every 10 s, so a controller
// coming up or an output failing shows while the installer stands at the panel.
// Titles and words are the box's message keys with parameters, read in the reader's language
// (boxText: the box's English when this shell lacks a key).
import { useEffect, useState } from 'preact/hooks';
import { describeError, getList } from '../lib/api';
import { boxText, readerLocale, t, type MessageKey, type MessageParams } from '../lib/i18n';
import { href } from '../lib/router';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import { inFarmWords } from '../lib/words';

type Params = Record<string, string | number>;

interface SetupLine {
  id: string; order: number; state: 'done' | 'missing' | 'attention' | 'optional'; module: string | null; screen: string | null;
  /** English, and the key it was rendered from (an older box sends no key: its English is shown). */
  title: string; title_key?: string; title_params?: Params;
  words: string; text_key?: string; text_params?: Params;
}

const STATE: Record<SetupLine['state'], { label: MessageKey; tone: string; mark: string }> = {
  done: { label: 'setup.state.done', tone: 'ok', mark: '✓' },
  missing: { label: 'setup.state.missing', tone: 'warn', mark: '!' },
  attention: { label: 'setup.state.attention', tone: 'warn', mark: '!' },
  optional: { label: 'setup.state.optional', tone: 'muted', mark: '–' },
};

/** An instant as the reader's clock reads it: the time today, day and time on another day (the tablet's zone). */
function instant(iso: string, clock: '24h' | '12h' | undefined): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const today = d.toDateString() === new Date().toDateString();
  return d.toLocaleString(readerLocale(), { hour: '2-digit', minute: '2-digit', hour12: clock === '12h', ...(today ? {} : { day: 'numeric', month: 'short' }) });
}

/** The box's parameters for the reader: a `*_at` parameter is an instant (RFC 3339), written as the reader's clock reads it. */
function readerParams(params: Params | undefined, clock: '24h' | '12h' | undefined): MessageParams {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(params ?? {})) out[k] = k.endsWith('_at') && typeof v === 'string' && v ? instant(v, clock) : v;
  return out;
}

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
  const clock = s.ctx.display?.clock;
  const screenOf = (l: SetupLine): { to: string; name: string } | null => {
    if (l.screen === 'handoff') return { to: href('handoff'), name: t('setup.screen.handoff') };
    if (l.screen) return { to: href(l.screen), name: t('setup.screen.settings') };
    const m = l.module ? s.modules.find((x) => x.id === l.module) : undefined;
    return m ? { to: href('module', m.id), name: inFarmWords(m).name } : null;
  };
  const open = lines?.filter((l) => l.state === 'missing' || l.state === 'attention').length ?? 0;
  return (
    <section class="panel site-setup" aria-labelledby="setup-h" data-screen="setup">
      <h1 id="setup-h">{t('setup.screen.title')}</h1>
      <p>{t('setup.screen.intro')}</p>
      {error ? <p class="error" role="alert">{error}</p> : null}
      {stale ? <p class="stale-note">{t('setup.screen.stale', { time: instant(stale, clock) })}</p> : null}
      {lines === null && !error ? <p class="loading">{t('setup.screen.checking')}</p> : null}
      {lines ? (
        <p id="setup-summary" class={open ? 'notice' : 'setup-complete'}>
          {open ? t('setup.screen.open_steps', { open, total: lines.length }) : t('setup.screen.all_done')}
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
                  {t(st.label)}
                </span>
                <h2>{boxText(l.title_key, l.title_params, l.title)}</h2>
              </div>
              <p class="setup-words">{boxText(l.text_key, readerParams(l.text_params, clock), l.words)}</p>
              {to ? (
                <a class="btn" href={to.to}>
                  {t('setup.screen.open', { name: to.name })}
                </a>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
