// Entry: phone hand-off links (#/login?challenge=..&secret=..), the session, the service worker.
import { render } from 'preact';
import { App } from './app';
import { ApiError, post } from './lib/api';
import { applyTheme, endedReason, loadSession, prefs, session } from './lib/session';
import { localSetting } from './lib/cache';
import type { ShellPrefs } from './lib/session';
import { loadOffered, setLanguage, tabletLanguage } from './lib/i18n';
import './styles.css';

async function boot(): Promise<void> {
  // The tablet's language first (the one chosen on it, else the site's default, which the box's list
  // of languages tells; offline, as kept on the tablet), so nothing shows in another one.
  await loadOffered();
  await setLanguage(tabletLanguage());
  const local = localSetting<ShellPrefs>('prefs');
  applyTheme(local?.theme ?? prefs.get().theme);
  const m = /^#\/login\?(.*)$/.exec(location.hash);
  if (m) {
    const q = new URLSearchParams(m[1]);
    history.replaceState(null, '', '/');
    const challenge = q.get('challenge');
    const secret = q.get('secret');
    if (challenge && secret) {
      try {
        await post('/api/v1/auth/passkey/commands/complete', { challenge_id: challenge, credential: secret });
      } catch (err) {
        endedReason.set(err instanceof ApiError && err.code === 'login_refused' ? 'login.ended.link_spent' : 'login.ended.link_failed');
      }
    }
  }
  try {
    await loadSession();
  } catch {
    session.set(null);
  }
}

render(<App />, document.getElementById('root')!);
void boot();

if ('serviceWorker' in navigator && location.protocol !== 'file:') {
  navigator.serviceWorker.register('/app/sw.js', { scope: '/' }).catch(() => undefined);
}
