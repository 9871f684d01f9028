// The dashboard: one tile per module in the shared order, and the live status feed.
import { href } from '../lib/router';
import { orderedModules, prefs, session } from '../lib/session';
import { useObservable } from '../lib/store';
import { LiveFeed } from '../components/LiveFeed';
import { moduleAbout, moduleName } from '../components/shell-words';
import { t } from '../lib/i18n';

export function Dashboard() {
  const s = useObservable(session);
  const p = useObservable(prefs);
  if (!s) return null;
  const mods = orderedModules(s, p.moduleOrder);
  return (
    <div class="dashboard">
      <h1>{t('shell.dashboard.title')}</h1>
      <ul class="tiles" id="modules">
        {mods.map((m) => (
          <li key={m.id} data-module={m.id}>
            <a class="tile" href={m.id === 'alarms' ? href('alarms') : href('module', m.id)}>
              <strong>{moduleName(m)}</strong>
              <small>{moduleAbout(m)}</small>
            </a>
          </li>
        ))}
      </ul>
      <LiveFeed />
    </div>
  );
}
