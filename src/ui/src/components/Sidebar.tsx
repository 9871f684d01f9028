// The burger menu: the modules in the order shared with the dashboard, then the shell's own screens.
// Alarms is the one alarm inbox (every alarm resource merged), wherever the alarms module sits.
import { alarmResources } from '../lib/inbox';
import { href, route } from '../lib/router';
import { orderedModules, prefs, session } from '../lib/session';
import { useObservable } from '../lib/store';
import { t } from '../lib/i18n';
import { moduleName } from './shell-words';

export function Sidebar({ open, onClose }: { open: boolean; onClose: () => void }) {
  const s = useObservable(session);
  const p = useObservable(prefs);
  const r = useObservable(route);
  if (!s) return null;
  const mods = orderedModules(s, p.moduleOrder);
  const current = r.name === 'module' ? r.params.id : r.name === 'alarms' ? 'alarms' : undefined;
  const inbox = alarmResources(s).length > 0;
  const inboxEntry = (
    <li key="alarms" data-module="alarms">
      <a href={href('alarms')} onClick={onClose} aria-current={current === 'alarms' ? 'page' : undefined}>
        {t('shell.menu.alarms')}
      </a>
    </li>
  );
  return (
    <nav id="sidebar" class={`sidebar ${open ? 'open' : ''}`} aria-label={t('shell.menu.label')} hidden={!open}>
      <ul class="menu" id="menu">
        <li>
          <a href={href('home')} onClick={onClose} aria-current={r.name === 'home' ? 'page' : undefined}>
            {t('shell.menu.workspace')}
          </a>
        </li>
        <li>
          <a href={href('dashboard')} onClick={onClose} aria-current={r.name === 'dashboard' ? 'page' : undefined}>
            {t('shell.menu.dashboard')}
          </a>
        </li>
        {inbox && !mods.some((m) => m.id === 'alarms') ? inboxEntry : null}
        {mods.map((m) =>
          m.id === 'alarms' ? (
            inbox ? inboxEntry : null
          ) : (
          <li key={m.id} data-module={m.id}>
            <a href={href('module', m.id)} onClick={onClose} aria-current={current === m.id ? 'page' : undefined}>
              {moduleName(m)}
            </a>
          </li>
          ),
        )}
        {s.ctx.policy.permissions.api['api:GET /api/v1/site-setup/list'] === true ? (
          <li data-screen="setup">
            <a href={href('setup')} onClick={onClose} aria-current={r.name === 'setup' ? 'page' : undefined}>
              {t('shell.menu.setup')}
            </a>
          </li>
        ) : null}
        <li>
          <a href={href('handoff')} onClick={onClose}>
            {t('shell.menu.handoff')}
          </a>
        </li>
        <li>
          <a href={href('settings')} onClick={onClose} aria-current={r.name === 'settings' ? 'page' : undefined}>
            {t('shell.menu.settings')}
          </a>
        </li>
      </ul>
    </nav>
  );
}
