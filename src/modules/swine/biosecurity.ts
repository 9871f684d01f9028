// swine-biosecurity: the events that keep disease out of the barn (entries, shower-in and out,
// visitors, vehicles, deliveries, dead-stock pick-ups) with the downtime since the person's last
// contact with other pigs. An entry or visit with less downtime than the site requires (48 h by
// default; a published swine-biosecurity profile "default" may change it) or with no shower-in
// is a violation: a high/P1 industry alarm on the room (or the site gate). Every event can be
// acknowledged once by a person who reviewed it (ack); acknowledging a violation also
// acknowledges its alarm.
import * as v from 'valibot';
import { ApiError } from '../../kernel/errors.js';
import { need } from '../../kernel/context.js';
import { command, defineResource } from '../../kernel/resource.js';
import { defineRecord } from '../../kernel/record.js';
import { timeId } from '../../kernel/ids.js';
import { boundSite, ownerSite as writeSite } from '../../kernel/tenancy.js';
import { requiredDowntimeHours } from './climate-targets.js';
import { SLA_SEC } from './norms.js';

export const BIOSECURITY_KINDS = ['entry', 'shower_in', 'shower_out', 'visitor', 'vehicle', 'delivery', 'dead_stock_pickup'] as const;
/** Kinds that bring a person into the barn: they need the downtime and a shower-in. */
const PERSON_ENTRY = new Set(['entry', 'visitor']);
const STATUSES = ['ok', 'review', 'violation'] as const;

export const biosecurityRecord = defineRecord('swine_biosecurity_events', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  kind: { type: 'string', label: 'Event', enum: BIOSECURITY_KINDS, filter: true, sortable: true, ui: { badge: true } },
  person: { type: 'string', label: 'Person', nullable: true, searchable: true, ui: { primary: true } },
  company: { type: 'string', label: 'Company', nullable: true, searchable: true },
  vehicle_id: { type: 'string', label: 'Vehicle', nullable: true, searchable: true, description: 'Number plate of a vehicle, delivery or pick-up.' },
  room_id: { type: 'string', label: 'Room', nullable: true, filter: true, description: 'Room entered; empty for the site gate.' },
  downtime_hours: { type: 'number', label: 'Downtime since contact with other pigs', nullable: true, ui: { unit: 'h' } },
  required_downtime_hours: { type: 'number', label: 'Downtime required', readOnly: true, ui: { unit: 'h' } },
  shower_in: { type: 'boolean', label: 'Showered in', nullable: true },
  occurred_at: { type: 'datetime', label: 'When', sortable: true },
  notes: { type: 'string', label: 'Notes', nullable: true, searchable: true, ui: { multiline: true } },
  status: { type: 'string', label: 'Status', enum: STATUSES, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'ok; review (downtime not declared); violation (downtime short or no shower-in).' },
  flags: { type: 'array', items: 'string', label: 'Findings', readOnly: true, ui: { chips: true }, description: 'downtime_short, downtime_unknown, no_shower_in' },
  alarm_id: { type: 'string', label: 'Alarm', nullable: true, readOnly: true },
  correlation_id: { type: 'string', label: 'Correlation id', readOnly: true, filter: true },
  acked: { type: 'boolean', label: 'Reviewed', readOnly: true, filter: true },
  acked_by: { type: 'string', label: 'Reviewed by', nullable: true, readOnly: true },
  acked_at: { type: 'datetime', label: 'Reviewed at', nullable: true, readOnly: true },
  ack_comment: { type: 'string', label: 'Review comment', nullable: true, readOnly: true },
  recorded_by: { type: 'string', label: 'Recorded by', readOnly: true },
}, { indexes: [{ name: 'swine_biosecurity_site_time', columns: ['tenant_id', 'site_id', 'occurred_at'] }] });
export type BiosecurityRow = typeof biosecurityRecord.row;

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const ingestBody = v.strictObject({
  kind: v.picklist(BIOSECURITY_KINDS),
  person: v.optional(key), company: v.optional(key), vehicle_id: v.optional(key), room_id: v.optional(key), site_id: v.optional(key), tenant_id: v.optional(key),
  downtime_hours: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(100_000))),
  shower_in: v.optional(v.boolean()),
  occurred_at: v.optional(v.pipe(v.string(), v.isoTimestamp())),
  notes: v.optional(v.pipe(v.string(), v.maxLength(4000))),
});
const ackBody = v.strictObject({ id: key, comment: v.optional(v.pipe(v.string(), v.maxLength(2000))) });

export const biosecurityResource = defineResource<BiosecurityRow>({
  name: 'swine-biosecurity',
  module: 'swine',
  title: 'Swine biosecurity',
  record: biosecurityRecord,
  access: { resource: 'swine-biosecurity', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'occurred_at', order: 'desc' },
  commands: {
    ingest: command({
      summary: 'A biosecurity event. For an entry or visitor: downtime_hours below the required downtime (48 h unless the site publishes a swine-biosecurity profile) or shower_in=false is a violation raising a high/P1 industry alarm; undeclared downtime is status review. A person entering needs person; a vehicle, delivery or pick-up needs vehicle_id.',
      action: 'execute',
      body: ingestBody,
      status: 201,
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        if ((PERSON_ENTRY.has(b.kind) || b.kind === 'shower_in' || b.kind === 'shower_out') && !b.person) throw new ApiError('validation_error', `a ${b.kind} names the person`, [{ field: 'person', reason: 'missing' }]);
        if (['vehicle', 'delivery', 'dead_stock_pickup'].includes(b.kind) && !b.vehicle_id) throw new ApiError('validation_error', `a ${b.kind} names the vehicle`, [{ field: 'vehicle_id', reason: 'missing' }]);
        const site = writeSite(caller, b.site_id);
        const required = await requiredDowntimeHours(ctx.services.db, caller.tenant_id!, site);
        const flags: string[] = [];
        if (PERSON_ENTRY.has(b.kind)) {
          if (b.downtime_hours === undefined) flags.push('downtime_unknown');
          else if (b.downtime_hours < required) flags.push('downtime_short');
          if (b.shower_in === false) flags.push('no_shower_in');
        }
        const violation = flags.includes('downtime_short') || flags.includes('no_shower_in');
        const id = timeId();
        let alarmId: string | null = null;
        if (violation) {
          const { event } = await need(ctx.services, 'industryAlarms').raise({
            tenant_id: caller.tenant_id!, site_id: site, industry_code: 'swine', unit_id: b.room_id ?? 'site-gate', rule_id: `swine-biosecurity:${id}`,
            metric: 'downtime_hours', value: b.downtime_hours ?? null, severity: 'high', priority: 'P1', source: 'swine-biosecurity',
            // Who entered and the hours as data; what a person noted stays as the message, as typed.
            text: { title_key: 'box.swine.biosecurity.title', params: { who: b.person ?? b.vehicle_id ?? null, short: flags.includes('downtime_short'), hours: b.downtime_hours ?? null, required } },
            message: b.notes ?? null, correlation_id: ctx.requestId, sla_target_sec: SLA_SEC.P1, details: { biosecurity_event_id: id, flags }, actor: caller.subject,
          });
          alarmId = event.id;
        }
        const row: BiosecurityRow = {
          id, tenant_id: caller.tenant_id!, site_id: site, kind: b.kind, person: b.person ?? null, company: b.company ?? null, vehicle_id: b.vehicle_id ?? null,
          room_id: b.room_id ?? null, downtime_hours: b.downtime_hours ?? null, required_downtime_hours: required, shower_in: b.shower_in ?? null,
          occurred_at: b.occurred_at ? new Date(b.occurred_at).toISOString() : new Date().toISOString(), notes: b.notes ?? null,
          status: violation ? 'violation' : flags.length ? 'review' : 'ok', flags, alarm_id: alarmId, correlation_id: ctx.requestId,
          acked: false, acked_by: null, acked_at: null, ack_comment: null, recorded_by: caller.subject,
        };
        return kit.toItem((await kit.store(ctx.services.db).insert(row as never))!);
      },
    }),
    ack: command({
      summary: 'Acknowledge (review) a biosecurity event once: acked_by, acked_at, comment; a violation\'s alarm is acknowledged with it (assignee = the reviewer). A second ack is 409 lifecycle_conflict naming the first.',
      action: 'execute',
      body: ackBody,
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx, kit) => {
        const caller = ctx.caller!;
        const current = (await kit.load(ctx, ctx.body.id)) as unknown as BiosecurityRow;
        const site = boundSite(caller);
        if (site !== undefined && current.site_id !== site) throw new ApiError('not_found', `swine biosecurity ${ctx.body.id} not found`);
        if (current.acked) throw new ApiError('lifecycle_conflict', `event ${current.id} was already reviewed by ${current.acked_by} at ${current.acked_at}`, [{ field: 'id', reason: 'already_acknowledged' }]);
        const now = new Date().toISOString();
        // Conditional on acked = false, so two reviewers at once cannot both win.
        const saved = await kit.store(ctx.services.db).update({ ...kit.scope(caller), id: current.id, acked: false }, { acked: true, acked_by: caller.subject, acked_at: now, ack_comment: ctx.body.comment ?? null } as never);
        if (!saved) throw new ApiError('lifecycle_conflict', `event ${current.id} was already reviewed`, [{ field: 'id', reason: 'already_acknowledged' }]);
        if (current.alarm_id) {
          const alarms = need(ctx.services, 'industryAlarms');
          const [open] = await alarms.open({ tenant_id: current.tenant_id, industry_code: 'swine', rule_id: `swine-biosecurity:${current.id}` });
          if (open?.status === 'active') await alarms.ack({ id: open.id, tenant_id: current.tenant_id, assignee: caller.subject, actor: caller.subject });
        }
        await ctx.services.audit.record({ actor: caller.subject, action: 'biosecurity.ack', resource: 'swine-biosecurity', result: 'success', correlation_id: current.correlation_id, tenant_id: current.tenant_id, details: { id: current.id, flags: current.flags, comment: ctx.body.comment ?? null } });
        return kit.toItem(saved);
      },
    }),
  },
});

export const biosecurityRoutes = biosecurityResource.routes;
