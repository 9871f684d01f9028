// cloud-multi, master scope: the fleet (every site, those that need attention first; open alarms;
// each farm's sync mode) and the industry switch where switch_industry allows it.
import { ResourceView } from '../components/ResourceView';
import { LiveFeed } from '../components/LiveFeed';
import { AlarmInbox } from './AlarmInbox';
import { FleetSites } from './FleetSites';
import { session } from '../lib/session';
import { IndustrySwitch } from '../components/IndustrySwitch';
import { useObservable } from '../lib/store';

export function Fleet() {
  const s = useObservable(session);
  if (!s) return null;
  const has = (p: string) => [...s.resources.values()].some((l) => l.includes(p));
  return (
    <div class="fleet">
      <h1 id="workspace-title">Fleet overview</h1>
      <IndustrySwitch />
      <div class="workspace-grid">
        {/* the sites first, those that need the fleet team at the top */}
        {has('sync-sites') ? <FleetSites /> : <p class="notice">Site synchronisation is not served by this controller yet.</p>}
        {/* every alarm resource (site alarms and the industries' alarms), not only the site alarms */}
        <AlarmInbox heading="Open alarms in the fleet" embedded limit={10} />
        {/* per farm: the sync mode to set and a sync to force */}
        {has('tenant-master-sync') ? <ResourceView path="tenant-master-sync" heading="Farms and their sync" pageSize={10} /> : null}
        <LiveFeed />
      </div>
    </div>
  );
}
