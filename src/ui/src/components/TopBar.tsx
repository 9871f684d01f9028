// The top bar: menu, the workspace (one tap from anywhere), quick fullscreen buttons for the pinned
// modules, the live state, the current user and logout (outside the burger menu, contract 1).
import { alarmStore, pillState } from '../lib/alarms';
import { liveState } from '../lib/live';
import { href } from '../lib/router';
import { logout, prefs, session, staleSince } from '../lib/session';
import { useObservable } from '../lib/store';
import { t, type MessageKey } from '../lib/i18n';
import { AlarmCount, AudioPrompt } from './Annunciator';
import { PersonLanguage } from './PersonLanguage';
import { industryName, moduleName, roleName } from './shell-words';

const LIVE_WORDS: Record<string, MessageKey | undefined> = { live: 'shell.live.live', polling: 'shell.live.polling', connecting: 'shell.live.connecting', offline: 'shell.live.offline', degraded: 'shell.live.degraded' };

const liveWords = (state: string): string => {
  const key = LIVE_WORDS[state];
  return key ? t(key) : '';
};

export function TopBar({ onMenu, menuOpen }: { onMenu: () => void; menuOpen: boolean }) {
  const s = useObservable(session);
  const p = useObservable(prefs);
  const live = useObservable(liveState);
  const stale = useObservable(staleSince);
  const alarms = useObservable(alarmStore);
  if (!s) return null;
  const pinned = p.pinned.map((id) => s.modules.find((m) => m.id === id)).filter((m) => m && (s.resources.get(m.id)?.length ?? 0) > 0);
  const state = pillState(live, Boolean(stale), alarms);
  return (
    <header class="top">
      {/* First of all after a reload: a tablet that cannot sound must say so before anything else. */}
      <AudioPrompt />
      <button type="button" class="btn icon menu-btn" aria-expanded={menuOpen} aria-controls="sidebar" onClick={onMenu}>
        <span aria-hidden="true">☰</span>
        <span class="sr-only">{t('shell.top.menu')}</span>
      </button>
      <a class="btn home-btn" href={href('home')} id="workspace-link">
        {s.ctx.deployment_mode === 'cloud-multi' && s.user.scope_type === 'master' ? t('shell.top.fleet') : industryName(s.industry)}
      </a>
      <nav class="quick" aria-label={t('shell.top.pinned')}>
        {pinned.map((m) => (
          // The Alarms button opens the one alarm inbox, not the site alarms' own list.
          <a key={m!.id} class="btn quick-btn" data-quick={m!.id} href={m!.id === 'alarms' ? href('alarms', undefined, { full: '1' }) : href('module', m!.id, { full: '1' })}>
            {moduleName(m!)}
          </a>
        ))}
      </nav>
      <AlarmCount />
      <span class={`live-state state-${state}`} id="live-state" role="status" aria-live="polite" data-state={state}>
        {stale ? t('shell.live.stale') : liveWords(state)}
      </span>
      <span class="who" id="who">
        {/* the role in words; the tenant and scope are the box's business, not the operator's */}
        <span class="who-role">{roleName(s.user.role)}</span>
      </span>
      <PersonLanguage />
      <button type="button" class="btn logout" id="logout" onClick={() => void logout()}>
        {t('shell.top.logout')}
      </button>
    </header>
  );
}
