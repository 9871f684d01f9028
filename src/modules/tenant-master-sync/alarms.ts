// sync-alarms/scheme|list|{id}: the farms' alarms as the master holds them from the sync, one
// read-only record per alarm (its id is alarm@tenant, as a site's is site@tenant), master scope
// only. The master shows them and never acknowledges them: an acknowledgement is a person at the
// farm taking the alarm in hand, made on the box and synced up (decisions.ts, "Farm alarms on the
// master"). id, open, p1 and the order's key are stored by the sync (engine/alarms.ts).
import { defineResource } from '../../kernel/resource.js';
import { alarmRecord, type SyncAlarmRow } from './schema.js';

export const ALARM_RULE = 'One record per alarm a site box synced, id alarm@tenant: which farm (site_id, tenant_id, site_label in words, site: the sync-sites id), which alarm (title, severity, priority), since when (raised_at) and its state at the farm, with who acknowledged it there. Read-only: an alarm is acknowledged at the farm, on the box that raised it (its own alarms or industry-alarms commands/ack); the acknowledgement reaches the master with the next sync, and the master has no command to acknowledge a farm\'s alarm. open: state open or active (neither acknowledged nor cleared). p1: priority P1, or severity critical where the alarm has no priority, as a site card counts open_p1. The default order: open first, then P1, then newest first (raised_at).';

export const alarmsResource = defineResource<SyncAlarmRow>({
  name: 'sync-alarms',
  module: 'tenant-master-sync',
  title: 'Alarms of the farms',
  record: alarmRecord,
  access: { resource: 'sync-alarms', scope: 'master' },
  // sort_key is '1' (open) '1' (P1) raised_at: descending, it is the order the rule above says.
  defaultSort: { field: 'sort_key', order: 'desc' },
  toItem: ({ sort_key: _order, ...row }) => ({
    ...row,
    id: row.id ?? `${row.alarm_id}@${row.tenant_id}`,
    site: `${row.site_id}@${row.tenant_id}`,
    site_label: `${row.site_id} · ${row.tenant_id}`,
    open: Boolean(row.open),
    p1: Boolean(row.p1),
  }),
});

for (const r of alarmsResource.routes) if (r.path.endsWith('/list') || r.path.endsWith('/{id}')) r.description = ALARM_RULE;
