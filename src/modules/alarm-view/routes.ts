// alarm-view/list and alarm-view/summary: the alarm view (view.ts) as the API serves it.
import type { AnyRoute } from '../../kernel/route.js';
import { defineRoute } from '../../kernel/route.js';
import { pageItems } from '../../kernel/query.js';
import { INDUSTRY_CODES } from '../../industry/alarm-schema.js';
import { ALARM_ACTIONS, VIEW_STATES } from '../../industry/alarm-view-item.js';
import { ApiError } from '../../kernel/errors.js';
import { summarise, viewItem, viewItems, SOURCE_CAP } from './view.js';

const TAGS = ['alarm-view'];
const nstr = { type: ['string', 'null'] };
const ntime = { type: ['string', 'null'], format: 'date-time' };
const nnum = { type: ['number', 'null'] };

const ITEM_FIELDS: Record<string, Record<string, unknown>> = {
  key: { type: 'string', description: '<resource>:<id>, unique across the alarm resources.' },
  resource: { enum: ['industry-alarms', 'alarms', 'sync-alarms'], description: 'Where the alarm\'s commands are (POST /api/v1/<resource>/commands/<action>); sync-alarms (a farm\'s alarm on a master) has none.' },
  id: { type: 'string' }, tenant_id: nstr, site_id: nstr, industry: nstr, unit_id: nstr,
  where: { ...nstr, description: 'The unit in farm words ("House 2", "Room 4"), or the farm on a master.' },
  farm: { ...nstr, description: 'A farm\'s alarm on a master: the farm in words; null for the box\'s own.' },
  title: { type: 'string' },
  cause: { ...nstr, description: 'The cause in words, with the value against its limit ("Temperature 38 °C, above the limit of 31 °C"); else the alarm\'s own message.' },
  metric: nstr, value: nnum, threshold: nnum, comparator: nstr,
  priority: { enum: ['P1', 'P2', null] }, severity: { type: 'string' },
  condition: { enum: ['active', 'cleared'] },
  alarm_state: { enum: ['unacknowledged_active', 'acknowledged_active', 'unacknowledged_cleared', 'normal'] },
  state: { enum: [...VIEW_STATES], description: 'What a screen shows: out_of_service and shelved before the rest, latched for a latched alarm whose readings returned (an admin resets it), else alarm_state.' },
  annunciated: { type: 'boolean', description: 'Counted in the annunciator: not acknowledged, neither shelved nor out of service (active, or back to normal and waiting for an acknowledgement).' },
  urgent: { type: 'boolean', description: 'Sounds on the tablets (tone, banner): annunciated, condition active, P1 (or critical/high without a priority). A farm\'s alarm on a master: open and P1.' },
  tone: { enum: ['alarm', 'warn', 'muted'], description: 'Its colour: alarm (red) only for an active P1 or critical, acknowledged or not; warn (amber) for other active alarms and for one back to normal not yet acknowledged; muted for shelved, out of service and past alarms.' },
  comm_loss: { type: 'boolean', description: 'A controller, serial bus or MQTT feed stopped answering (metric comm_loss).' },
  latched: { type: 'boolean' }, resettable: { type: 'boolean' }, raise_count: { type: 'integer' },
  raised_at: { type: 'string', format: 'date-time' }, last_raised_at: { type: 'string', format: 'date-time' },
  returned_at: ntime, cleared_at: ntime, reset_at: ntime, reset_by: nstr, acked_at: ntime, acked_by: nstr,
  shelved_until: { ...ntime, description: 'While shelved: when it comes back by itself.' },
  shelved_at: { ...ntime, description: 'The last shelve (kept after it ended, with shelved_by and shelve_reason): when.' }, shelved_by: nstr, shelve_reason: nstr, sla_deadline_at: ntime,
  comments: { type: 'array', items: { type: 'object', required: ['text', 'by', 'at'], properties: { text: { type: 'string' }, by: { type: 'string' }, at: { type: 'string', format: 'date-time' } } } },
  applicable: { type: 'array', items: { enum: [...ALARM_ACTIONS] }, description: 'The commands that apply to the alarm in its state; whether the caller\'s role may run each is the policy\'s (auth/me permissions), checked again by the command.' },
};
export const alarmItemSchema = { type: 'object', required: Object.keys(ITEM_FIELDS), properties: ITEM_FIELDS };

const counts = { type: 'object', required: ['listed', 'annunciated', 'urgent'], properties: { listed: { type: 'integer' }, annunciated: { type: 'integer' }, urgent: { type: 'integer' } } };
const summarySchema = {
  type: 'object',
  required: ['listed', 'annunciated', 'urgent', 'by_state', 'by_priority', 'revision', 'at'],
  properties: {
    ...counts.properties,
    by_state: { type: 'object', required: VIEW_STATES.filter((s) => s !== 'normal'), properties: Object.fromEntries(VIEW_STATES.filter((s) => s !== 'normal').map((s) => [s, { type: 'integer' }])) },
    by_priority: { type: 'object', required: ['P1', 'P2', 'other'], properties: { P1: counts, P2: counts, other: counts } },
    revision: { type: 'string', description: 'Changes whenever any listed alarm changes (state, acknowledgement, shelving, comments, a new raise): a screen that holds the list of the same revision is in step.' },
    at: { type: 'string', format: 'date-time' },
  },
};

const RULE = 'Every alarm the caller may see, of every alarm resource the policy lets it list: the industry alarms (poultry, swine, melioration, communication loss, the siren relay\'s failures), the site alarms and, on a master (cloud-multi), the farms\' alarms as their boxes synced them. Scoped as each resource is: a tenant session sees its tenant, a site-bound one its site. Every state change of any of these alarms is also one status event, alarm_changed, with details {kind, item} (the item as listed here), on the status stream and status/list.';

const filters = {
  unit_id: { type: 'string' as const, description: 'Only this house, room or field (industry alarms).' },
  industry_code: { type: 'string' as const, enum: INDUSTRY_CODES, description: 'Only this industry\'s alarms.' },
};

export const alarmViewRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/alarm-view/list', module: 'alarm-view', tags: TAGS,
    summary: 'The alarms on the operator\'s list, of every alarm resource, with what the box announces.',
    description: `${RULE} Without history: every listed alarm (every state but normal), urgent first, then annunciated, then by state, priority, severity and newest raise. history=true: past alarms (state normal: cleared and acknowledged), newest first, paged. At most ${SOURCE_CAP} alarms of each resource.`,
    access: { resource: 'alarm-view', action: 'read', scope: 'any' },
    query: {
      history: { type: 'boolean', default: false, description: 'Past alarms (state normal) instead of the listed ones.' },
      ...filters,
      limit: { type: 'integer', min: 1, max: 500, default: 500, description: 'Page size, 1-500.' },
      offset: { type: 'integer', min: 0, default: 0, description: 'Rows to skip.' },
    },
    response: { kind: 'list', item: alarmItemSchema },
    handler: async ({ services, caller, query }) => {
      const history = query.history === true;
      const upto = history ? Math.min(SOURCE_CAP, Number(query.offset ?? 0) + Number(query.limit ?? 500)) : undefined;
      const items = await viewItems(services, caller!, { history, unit_id: query.unit_id as string | undefined, industry_code: query.industry_code as string | undefined, upto });
      return pageItems(items, query);
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/alarm-view/summary', module: 'alarm-view', tags: TAGS,
    summary: 'How many alarms are listed, annunciated and urgent, by priority and state; the list\'s revision.',
    description: `${RULE} The counts of alarm-view/list, read cheaply on every change and on a timer: a screen compares revision with the list it holds and reads the list again only when they differ.`,
    access: { resource: 'alarm-view', action: 'read', scope: 'any' },
    query: filters,
    response: { kind: 'single', item: summarySchema },
    handler: async ({ services, caller, query }) => summarise(await viewItems(services, caller!, { history: false, unit_id: query.unit_id as string | undefined, industry_code: query.industry_code as string | undefined })),
  }),
  defineRoute({
    method: 'get', path: '/api/v1/alarm-view/{key}', module: 'alarm-view', tags: TAGS,
    summary: 'One alarm by its key (<resource>:<id>), in any state, as the alarm view shows it.',
    description: `${RULE} For a screen that opens an alarm the list does not hold (a past one, or one listed by a resource's own list). 404 alarm_not_found when the caller may not see it or it does not exist.`,
    access: { resource: 'alarm-view', action: 'read', scope: 'any' },
    errors: ['alarm_not_found'],
    response: { kind: 'single', item: alarmItemSchema },
    handler: async ({ services, caller, params }) => {
      const item = await viewItem(services, caller!, params.key!);
      if (!item) throw new ApiError('alarm_not_found', `alarm ${params.key} not found`, [{ field: 'key', reason: 'not_found' }]);
      return item;
    },
  }),
];
