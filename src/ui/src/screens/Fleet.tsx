// cloud-multi, master scope: the fleet (every site, those that need attention first; open alarms;
// each farm's sync mode) and the industry switch where switch_industry allows it.
import { ResourceView } from '../components/ResourceView';
import { LiveFeed } from '../components/LiveFeed';
import { AlarmInbox } from './AlarmInbox';
import { FleetSites } from './FleetSites';
import { session } from '../lib/session';
import { IndustrySwitch } from '../components/IndustrySwitch';
import { useObservable } from '../lib/store';
import { t } from '../lib/i18n';

export function Fleet() {
  const s = useObservable(session);
  if (!s) return null;
  const has = (p: string) => [...s.resources.values()].some((l) => l.includes(p));
  return (
    <div class="fleet">
      <h1 id="workspace-title">{t('fleet.title')}</h1>
      <IndustrySwitch />
      <div class="workspace-grid">
        {/* the sites first, those that need the fleet team at the top */}
        {has('sync-sites') ? <FleetSites /> : <p class="notice">{t('fleet.sync_missing')}</p>}
        {/* every alarm resource (site alarms and the industries' alarms), not only the site alarms */}
        <AlarmInbox heading={t('fleet.alarms')} embedded limit={10} />
        {/* per farm: the sync mode to set and a sync to force */}
        {has('tenant-master-sync') ? <ResourceView path="tenant-master-sync" heading={t('fleet.farms')} pageSize={10} /> : null}
        <LiveFeed />
      </div>
    </div>
  );
}
