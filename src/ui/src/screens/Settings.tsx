// Shell settings: theme (every user), and the menu (order shared by the dashboard and the burger
// menu, pinned modules = quick fullscreen buttons) for callers with sidebar_menu_update.
import { useState } from 'preact/hooks';
import { describeError } from '../lib/api';
import { can, orderedModules, prefs, savePrefs, session, type ShellPrefs } from '../lib/session';
import { useObservable } from '../lib/store';
import type { ThemeChoice } from '../lib/types';
import { ProfileHistory } from '../components/ProfileHistory';
import { RolePins } from '../components/RolePins';
import { formatClock, formatDate } from '../lib/format';
import { t, type MessageKey } from '../lib/i18n';
import { industryName, moduleName, roleName } from '../components/shell-words';

// Keys, not words: read at render time in the reader's language.
const THEMES: { id: ThemeChoice; label: MessageKey; note: MessageKey }[] = [
  { id: 'light', label: 'settings.theme.light', note: 'settings.theme.light.note' },
  { id: 'dark', label: 'settings.theme.dark', note: 'settings.theme.dark.note' },
  { id: 'high-contrast', label: 'settings.theme.high_contrast', note: 'settings.theme.high_contrast.note' },
  { id: 'system', label: 'settings.theme.system', note: 'settings.theme.system.note' },
];

/** What a save was about: the messages select on it ("Menu order saved."). */
type Saved = 'theme' | 'order' | 'pins';

export function Settings() {
  const s = useObservable(session);
  const p = useObservable(prefs);
  const [msg, setMsg] = useState('');
  const [error, setError] = useState('');
  if (!s) return null;
  const mayEdit = can(s, 'sidebar_menu_update');
  const mods = orderedModules(s, p.moduleOrder);

  const save = async (next: ShellPrefs, what: Saved) => {
    setError('');
    setMsg('');
    try {
      const where = await savePrefs(next);
      setMsg(t(where === 'backend' ? 'settings.saved' : 'settings.kept', { what }));
    } catch (err) {
      setError(describeError(err));
    }
  };
  const move = (i: number, d: -1 | 1) => {
    const ids = mods.map((m) => m.id);
    const j = i + d;
    if (j < 0 || j >= ids.length) return;
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    void save({ ...p, moduleOrder: ids }, 'order');
  };
  const pin = (id: string, on: boolean) => void save({ ...p, pinned: on ? [...p.pinned.filter((x) => x !== id), id] : p.pinned.filter((x) => x !== id) }, 'pins');

  return (
    <div class="settings">
      <h1>{t('settings.title')}</h1>
      <p class="status-line" role="status">
        {msg}
      </p>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <section class="panel" aria-labelledby="theme-h">
        <h2 id="theme-h">{t('settings.theme.title')}</h2>
        <div class="theme-choices" role="radiogroup" aria-labelledby="theme-h">
          {THEMES.map((th) => (
            <label key={th.id} class={`choice ${p.theme === th.id ? 'chosen' : ''}`}>
              <input type="radio" name="theme" value={th.id} checked={p.theme === th.id} onChange={() => void save({ ...p, theme: th.id }, 'theme')} />
              <span>
                {t(th.label)} <small>{t(th.note)}</small>
              </span>
            </label>
          ))}
        </div>
      </section>
      <section class="panel" aria-labelledby="menu-h" id="menu-settings">
        <h2 id="menu-h">{t('settings.menu.title')}</h2>
        {mayEdit ? null : (
          <p class="notice" id="menu-locked">
            {t('settings.menu.locked')}
          </p>
        )}
        <ol class="order-list" id="menu-order">
          {mods.map((m, i) => (
            <li key={m.id} data-module={m.id}>
              <span class="order-name">{moduleName(m)}</span>
              {mayEdit ? (
                <span class="order-actions">
                  <button type="button" class="btn icon" aria-label={t('settings.menu.up', { name: moduleName(m) })} disabled={i === 0} onClick={() => move(i, -1)}>
                    ▲
                  </button>
                  <button type="button" class="btn icon" aria-label={t('settings.menu.down', { name: moduleName(m) })} disabled={i === mods.length - 1} onClick={() => move(i, 1)}>
                    ▼
                  </button>
                  <label class="check pin">
                    <input type="checkbox" checked={p.pinned.includes(m.id)} onChange={(e) => pin(m.id, (e.target as HTMLInputElement).checked)} />
                    {t('settings.menu.pin')}
                  </label>
                </span>
              ) : p.pinned.includes(m.id) ? (
                <span class="muted">{t('settings.menu.pinned')}</span>
              ) : null}
            </li>
          ))}
        </ol>
      </section>
      {s.ctx.policy.permissions.api['api:POST /api/v1/auth/ui-role-preferences/commands/set'] === true ? <RolePins s={s} /> : null}
      <ProfileHistory key={`${p.theme}-${p.moduleOrder.join()}-${p.pinned.join()}`} />
      <section class="panel" aria-labelledby="about-h">
        <h2 id="about-h">{t('settings.about.title')}</h2>
        <p>
          {t('settings.about.text', {
            role: roleName(s.user.role).toLowerCase(),
            industry: industryName(s.industry).toLowerCase(),
            date: formatDate(new Date()),
            time: formatClock(new Date()),
            clock: s.ctx.display?.clock === '12h' ? 'h12' : 'h24',
            local: p.origin === 'local' ? 'yes' : 'no',
          })}
        </p>
      </section>
    </div>
  );
}
