// The person's own language, from the top bar: one button showing the language read now (by its
// own name), opening the languages the box offers as big buttons. A card's choice is kept on the
// card (auth/commands/set-language), so every tablet that card logs in to reads in it; a login
// that is no card's (a token) changes this tablet only.
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../lib/api';
import { session, setOwnLanguage } from '../lib/session';
import { useObservable } from '../lib/store';
import { chooseLanguage, language, loadOffered, offered, t } from '../lib/i18n';
import { AUTONYMS, SHIPPED_LANGUAGES } from '../../../i18n/languages';

export function PersonLanguage() {
  const s = useObservable(session);
  const lang = useObservable(language);
  const list = useObservable(offered);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  useEffect(() => {
    if (open) void loadOffered();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const close = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('keydown', close);
    return () => window.removeEventListener('keydown', close);
  }, [open]);
  if (!s) return null;
  const languages = list?.languages.length ? list.languages : SHIPPED_LANGUAGES.map((code) => ({ code, name: AUTONYMS[code] ?? code }));
  const name = (code: string) => languages.find((l) => l.code === code)?.name ?? AUTONYMS[code] ?? code;
  const card = (s.user.subject ?? '').startsWith('PK-');

  const choose = async (code: string) => {
    setError('');
    if (code === lang) {
      setOpen(false);
      return;
    }
    setBusy(true);
    try {
      // The whole shell is drawn again in the new language, this menu closed.
      if (card) await setOwnLanguage(code);
      else await chooseLanguage(code);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="person-language">
      <button
        type="button"
        class="btn person-language-btn"
        id="person-language"
        aria-expanded={open}
        aria-controls="person-language-menu"
        aria-label={t('login.language.current', { name: name(lang) })}
        onClick={() => setOpen(!open)}
      >
        <span lang={lang}>{name(lang)}</span>
      </button>
      {open ? (
        <section id="person-language-menu" class="panel person-language-menu" aria-labelledby="person-language-h">
          <h2 id="person-language-h">{t('login.language.yours')}</h2>
          <p class="muted">{card ? t('login.language.yours_hint') : t('login.language.no_card')}</p>
          <div class="language-buttons" role="group" aria-labelledby="person-language-h">
            {languages.map((l) => (
              <button
                key={l.code}
                type="button"
                class={`btn language-btn ${l.code === lang ? 'primary' : ''}`}
                data-lang={l.code}
                lang={l.code}
                aria-pressed={l.code === lang}
                disabled={busy}
                onClick={() => void choose(l.code)}
              >
                {l.name}
              </button>
            ))}
          </div>
          {error ? (
            <p class="error" role="alert">
              {error}
            </p>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
