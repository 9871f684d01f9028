// The shell: login, or the top bar + burger menu + the routed screen.
import { useEffect, useState } from 'preact/hooks';
import { TopBar } from './components/TopBar';
import { AlarmBanner } from './components/Annunciator';
import { startAlarms, stopAlarms } from './lib/alarms';
import { Sidebar } from './components/Sidebar';
import { StaleNote } from './components/StaleNote';
import { startLive, stopLive } from './lib/live';
import { route } from './lib/router';
import { session, staleSince } from './lib/session';
import { useObservable } from './lib/store';
import { language, t } from './lib/i18n';
import { Dashboard } from './screens/Dashboard';
import { Handoff } from './screens/Handoff';
import { Login } from './screens/Login';
import { ModuleScreen } from './screens/ModuleScreen';
import { Settings } from './screens/Settings';
import { Workspace } from './screens/Workspace';
import { ResourceView } from './components/ResourceView';
import { HouseScreen } from './screens/PoultryHouse';
import { AlarmInbox } from './screens/AlarmInbox';
import { SiteSetup } from './screens/SiteSetup';
import { RESOURCE_SCREENS } from './screens/module-screens';

function Screen() {
  const r = useObservable(route);
  switch (r.name) {
    case 'dashboard':
      return <Dashboard />;
    case 'settings':
      return <Settings />;
    case 'handoff':
      return <Handoff />;
    case 'module':
      return <ModuleScreen key={r.params.id} id={r.params.id ?? ''} />;
    case 'resource': {
      const Own = RESOURCE_SCREENS[r.params.path ?? ''];
      return Own ? <Own key={r.params.path} /> : <ResourceView key={r.params.path} path={r.params.path ?? ''} />;
    }
    case 'house':
      return <HouseScreen key={r.params.id} id={r.params.id ?? ''} />;
    case 'alarms':
      return <AlarmInbox />;
    case 'setup':
      return <SiteSetup />;
    default:
      return <Workspace />;
  }
}

/** The shell, rebuilt whole when the language changes: every text is read again in the new one. */
export function App() {
  const lang = useObservable(language);
  return <Shell key={lang} />;
}

function Shell() {
  const s = useObservable(session);
  const stale = useObservable(staleSince);
  const r = useObservable(route);
  const [menu, setMenu] = useState(false);
  const loggedIn = Boolean(s);

  useEffect(() => {
    if (!loggedIn) return;
    void startLive();
    startAlarms();
    return () => {
      stopAlarms();
      stopLive();
    };
  }, [loggedIn]);
  useEffect(() => setMenu(false), [r]);

  if (s === undefined) return <p class="loading boot">{t('shell.starting')}</p>;
  if (s === null) return <Login />;
  const full = r.params.full === '1';
  return (
    <div class={`shell ${full ? 'fullscreen' : ''}`} id="home">
      <TopBar onMenu={() => setMenu(!menu)} menuOpen={menu} />
      <AlarmBanner />
      <div class="body">
        <Sidebar open={menu} onClose={() => setMenu(false)} />
        <main class="main" id="main">
          {stale ? <StaleNote at={stale} /> : null}
          <Screen />
        </main>
      </div>
    </div>
  );
}
