// The workspace that opens first: in edge-single (and for tenant users) the industry's workspace,
// for a master in cloud-multi the fleet overview. The poultry workspace uses the poultry API when
// the controller serves it; otherwise it degrades to the site's open alarms, tasks and live status.
import { ResourceView } from '../components/ResourceView';
import { LiveFeed } from '../components/LiveFeed';
import { t } from '../lib/i18n';
import { industryName, moduleName } from '../components/shell-words';
import { session, type Session } from '../lib/session';
import { useObservable } from '../lib/store';
import { Fleet } from './Fleet';
import { AlarmInbox } from './AlarmInbox';
import { IndustrySwitch } from '../components/IndustrySwitch';
import { PoultryHouses, hasPoultryApi } from './Poultry';

function has(s: Session, path: string): boolean {
  for (const list of s.resources.values()) if (list.includes(path)) return true;
  return false;
}

export function Workspace() {
  const s = useObservable(session);
  if (!s) return null;
  if (s.user.scope_type === 'master' && s.ctx.deployment_mode === 'cloud-multi') return <Fleet />;
  const industry = s.industry;
  const title = t('shell.workspace.title', { industry, name: industryName(industry) });
  if (industry === 'poultry' && hasPoultryApi(s))
    return (
      <>
        <IndustrySwitch />
        <PoultryHouses />
      </>
    );
  const module = s.modules.find((m) => m.id === industry);
  return (
    <div class="workspace" data-workspace={industry}>
      <IndustrySwitch />
      <h1 id="workspace-title">{title}</h1>
      {(s.resources.get(industry)?.length ?? 0) === 0 ? (
        <p class="notice" id="workspace-degraded">
          {module ? t('shell.workspace.notServed', { module: moduleName(module) }) : t('shell.workspace.notAvailable', { industry: industryName(industry) })} {t('shell.workspace.showing')}
        </p>
      ) : (
        (s.resources.get(industry) ?? []).map((r) => <ResourceView key={r} path={r} headingLevel={2} pageSize={12} />)
      )}
      <div class="workspace-grid">
        <AlarmInbox heading={t('shell.workspace.openAlarms')} embedded limit={10} />
        {has(s, 'tasks') ? <ResourceView path="tasks" heading={t('shell.workspace.tasks')} pageSize={10} /> : null}
        {s.ctx.feature_flags.realtime_status !== false ? <LiveFeed /> : null}
      </div>
    </div>
  );
}
