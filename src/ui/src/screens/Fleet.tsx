// cloud-multi, master scope: the fleet (sites and their sync state, open alarms) and the industry
// switch where switch_industry allows it.
import { ResourceView } from '../components/ResourceView';
import { LiveFeed } from '../components/LiveFeed';
import { AlarmInbox } from './AlarmInbox';
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
        {has('tenant-master-sync') ? <ResourceView path="tenant-master-sync" heading="Sites and sync state" pageSize={10} /> : (
          <p class="notice">Site synchronisation is not served by this controller yet.</p>
        )}
        {/* every alarm resource (site alarms and the industries' alarms), not only the site alarms */}
        <AlarmInbox heading="Open alarms in the fleet" embedded limit={10} />
        <LiveFeed />
      </div>
    </div>
  );
}
