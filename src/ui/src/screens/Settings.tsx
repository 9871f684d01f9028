// Shell settings: theme (every user), and the menu (order shared by the dashboard and the burger
// menu, pinned modules = quick fullscreen buttons) for callers with sidebar_menu_update.
import { useState } from 'preact/hooks';
import { describeError } from '../lib/api';
import { can, orderedModules, prefs, savePrefs, session, type ShellPrefs } from '../lib/session';
import { useObservable } from '../lib/store';
import type { ThemeChoice } from '../lib/types';
import { ProfileHistory } from '../components/ProfileHistory';
import { RolePins } from '../components/RolePins';
import { formatClock, formatDate, humanise } from '../lib/format';

const THEMES: { id: ThemeChoice; label: string; note: string }[] = [
  { id: 'light', label: 'Light', note: 'for offices' },
  { id: 'dark', label: 'Dark', note: 'for night shifts' },
  { id: 'high-contrast', label: 'High contrast', note: 'readable in a bright barn' },
  { id: 'system', label: 'Like the device', note: 'follows the tablet' },
];

export function Settings() {
  const s = useObservable(session);
  const p = useObservable(prefs);
  const [msg, setMsg] = useState('');
  const [error, setError] = useState('');
  if (!s) return null;
  const mayEdit = can(s, 'sidebar_menu_update');
  const mods = orderedModules(s, p.moduleOrder);

  const save = async (next: ShellPrefs, what: string) => {
    setError('');
    setMsg('');
    try {
      const where = await savePrefs(next);
      setMsg(where === 'backend' ? `${what} saved.` : `${what} kept on this tablet; it is saved to the controller when it answers again.`);
    } catch (err) {
      setError(describeError(err));
    }
  };
  const move = (i: number, d: -1 | 1) => {
    const ids = mods.map((m) => m.id);
    const j = i + d;
    if (j < 0 || j >= ids.length) return;
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    void save({ ...p, moduleOrder: ids }, 'Menu order');
  };
  const pin = (id: string, on: boolean) => void save({ ...p, pinned: on ? [...p.pinned.filter((x) => x !== id), id] : p.pinned.filter((x) => x !== id) }, 'Quick buttons');

  return (
    <div class="settings">
      <h1>Settings</h1>
      <p class="status-line" role="status">
        {msg}
      </p>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <section class="panel" aria-labelledby="theme-h">
        <h2 id="theme-h">Theme</h2>
        <div class="theme-choices" role="radiogroup" aria-labelledby="theme-h">
          {THEMES.map((t) => (
            <label key={t.id} class={`choice ${p.theme === t.id ? 'chosen' : ''}`}>
              <input type="radio" name="theme" value={t.id} checked={p.theme === t.id} onChange={() => void save({ ...p, theme: t.id }, 'Theme')} />
              <span>
                {t.label} <small>{t.note}</small>
              </span>
            </label>
          ))}
        </div>
      </section>
      <section class="panel" aria-labelledby="menu-h" id="menu-settings">
        <h2 id="menu-h">Menu and dashboard order</h2>
        {mayEdit ? null : (
          <p class="notice" id="menu-locked">
            Your role may not change the menu (ask an administrator). The order below is the site's.
          </p>
        )}
        <ol class="order-list" id="menu-order">
          {mods.map((m, i) => (
            <li key={m.id} data-module={m.id}>
              <span class="order-name">{m.name}</span>
              {mayEdit ? (
                <span class="order-actions">
                  <button type="button" class="btn icon" aria-label={`Move ${m.name} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                    ▲
                  </button>
                  <button type="button" class="btn icon" aria-label={`Move ${m.name} down`} disabled={i === mods.length - 1} onClick={() => move(i, 1)}>
                    ▼
                  </button>
                  <label class="check pin">
                    <input type="checkbox" checked={p.pinned.includes(m.id)} onChange={(e) => pin(m.id, (e.target as HTMLInputElement).checked)} />
                    Quick button
                  </label>
                </span>
              ) : p.pinned.includes(m.id) ? (
                <span class="muted">quick button</span>
              ) : null}
            </li>
          ))}
        </ol>
      </section>
      {s.ctx.policy.permissions.api['api:POST /api/v1/auth/ui-role-preferences/commands/set'] === true ? <RolePins s={s} /> : null}
      <ProfileHistory key={`${p.theme}-${p.moduleOrder.join()}-${p.pinned.join()}`} />
      <section class="panel" aria-labelledby="about-h">
        <h2 id="about-h">This tablet</h2>
        <p>
          Logged in as {humanise(s.user.role).toLowerCase()}, {humanise(s.industry).toLowerCase()} site. Dates read like {formatDate(new Date())}, times like{' '}
          {formatClock(new Date())} ({s.ctx.display?.clock === '12h' ? '12-hour' : '24-hour'} clock, set for the site by the administrator). Settings are stored on the controller
          {p.origin === 'local' ? ' (right now only on this tablet: the controller does not answer)' : ''}.
        </p>
      </section>
    </div>
  );
}
