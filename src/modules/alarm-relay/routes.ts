// alarm-relay/list (the two outputs: settings and live state), commands/configure (the box's
// admin sets an output) and commands/test (the box's admin pulses the siren). Both commands change
// the box's own equipment, so they are installation-owned: the box's admin only.
import * as v from 'valibot';
import { eq, and } from 'drizzle-orm';
import type { AnyRoute } from '../../kernel/route.js';
import { defineRoute } from '../../kernel/route.js';
import { ApiError, type ErrorDetail } from '../../kernel/errors.js';
import { need, type Services, type Caller } from '../../kernel/context.js';
import { pageItems } from '../../kernel/query.js';
import { colOf, tableOf } from '../../db/sql.js';
import { alarmRelayOutputs, OUTPUTS, RELAY_PRIORITIES, TRANSPORTS, type OutputName, type OutputRow } from './schema.js';
import { BACNET_PRIORITY, describeOutput } from './output.js';
import { checkOutput } from './check.js';
import type { AlarmRelay } from './runtime.js';
import type { BoxIdentity } from '../../runtime/first-run.js';

const TAGS = ['alarm-relay'];
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
export const DEFAULT_PERIOD_S: Record<OutputName, number> = { siren: 60, watchdog: 10 };

const nstr = { type: ['string', 'null'] };
const nint = { type: ['integer', 'null'] };
const outputItem = {
  type: 'object',
  required: ['output', 'configured', 'enabled', 'transport', 'target', 'priorities', 'period_s', 'energised', 'driving_alarms', 'healthy', 'failing', 'failing_since', 'alarm_id', 'last_write_at', 'last_ok_at', 'last_error', 'pulse_until', 'settings', 'updated_by', 'updated_at'],
  properties: {
    output: { enum: [...OUTPUTS] },
    configured: { type: 'boolean' },
    enabled: { type: 'boolean' },
    transport: { enum: [...TRANSPORTS, null] },
    target: { ...nstr, description: 'Where the output is, e.g. "Modbus 10.0.0.20:502 unit 1 coil 0".' },
    priorities: { type: 'array', items: { enum: [...RELAY_PRIORITIES] } },
    period_s: nint,
    energised: { type: ['boolean', 'null'], description: 'The state last written and read back; null before the first good write.' },
    driving_alarms: { type: 'integer', description: 'siren: annunciated alarms of its priorities with the condition active (not acknowledged, neither shelved nor out of service) at the last drive.' },
    healthy: { type: ['boolean', 'null'], description: 'watchdog: whether the last tick found the box healthy.' },
    failing: { type: 'boolean', description: 'The output does not answer; its P1 alarm is open.' },
    failing_since: { type: ['string', 'null'], format: 'date-time', description: 'While failing: when its drive-failure alarm was raised (null otherwise).' },
    alarm_id: { ...nstr, description: 'While failing: the open drive-failure alarm (an industry-alarms id; in alarm-view/list as industry-alarms:<id>).' },
    last_write_at: { type: ['string', 'null'], format: 'date-time' },
    last_ok_at: { type: ['string', 'null'], format: 'date-time' },
    last_error: nstr,
    pulse_until: { type: ['string', 'null'], format: 'date-time' },
    settings: { type: ['object', 'null'], description: 'The stored settings (null when not configured).' },
    updated_by: nstr,
    updated_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

function view(relay: AlarmRelay, output: OutputName) {
  const row = relay.config(output);
  const s = relay.state(output);
  return {
    output, configured: row !== undefined, enabled: row?.enabled ?? false, transport: row?.transport ?? null, target: row ? describeOutput(row) : null,
    priorities: output === 'siren' ? row?.priorities ?? ['P1'] : [], period_s: row?.period_s ?? null,
    energised: s.energised, driving_alarms: s.driving_alarms, healthy: s.healthy, failing: s.failing, failing_since: s.failing_since, alarm_id: s.alarm_id, last_write_at: s.last_write_at, last_ok_at: s.last_ok_at,
    last_error: s.last_error, pulse_until: s.pulse_until, settings: row ? { ...row } : null, updated_by: row?.updated_by ?? null, updated_at: row?.updated_at ?? null,
  };
}

// One shape per transport, so that the document says which fields each needs.
const common = {
  output: v.picklist(OUTPUTS),
  enabled: v.optional(v.boolean()),
  priorities: v.optional(v.pipe(v.array(v.picklist(RELAY_PRIORITIES)), v.minLength(1))),
  period_s: v.optional(int(1, 3600)),
};
const coil = { unit_id: v.optional(int(0, 255)), coil: int(0, 65535) };
const configureBody = v.variant('transport', [
  v.strictObject({ ...common, transport: v.literal('modbus-tcp'), host: v.pipe(v.string(), v.regex(IPV4, 'host must be a dotted IPv4 address')), port: v.optional(int(1, 65535)), ...coil }),
  v.strictObject({
    ...common, transport: v.literal('modbus-rtu'), serial_port: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
    baud_rate: v.optional(int(300, 4_000_000)), parity: v.optional(v.picklist(['none', 'even', 'odd'])), ...coil,
  }),
  v.strictObject({ ...common, transport: v.literal('bacnet'), device_instance: int(0, 4194302), object_instance: int(0, 4194303) }),
]);
type ConfigureBody = v.InferOutput<typeof configureBody>;

/** What the shapes cannot say: RTU unit ids, and priorities only for the siren. */
function refused(b: ConfigureBody): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (b.transport === 'modbus-rtu' && b.unit_id !== undefined && (b.unit_id < 1 || b.unit_id > 247)) details.push({ field: 'unit_id', reason: 'out_of_range', min: 1, max: 247 });
  if (b.output === 'watchdog' && b.priorities !== undefined) details.push({ field: 'priorities', reason: 'siren_only' });
  return details;
}

const actor = (caller: Caller | undefined) => caller?.subject ?? 'system';

/** The stored row a configure body makes (the check reads the output this row names). */
function rowOf(body: ConfigureBody, box: BoxIdentity, caller: Caller | undefined): OutputRow {
  const row: OutputRow = {
    id: body.output, tenant_id: box.tenant_id, site_id: box.site_id, enabled: body.enabled ?? true, transport: body.transport,
    host: null, port: null, serial_port: null, baud_rate: null, parity: null, unit_id: null, coil: null, device_instance: null, object_instance: null,
    priorities: body.output === 'siren' ? [...new Set(body.priorities ?? ['P1'])] : [],
    period_s: body.period_s ?? DEFAULT_PERIOD_S[body.output], updated_by: actor(caller), updated_at: new Date().toISOString(),
  };
  if (body.transport === 'modbus-tcp') Object.assign(row, { host: body.host, port: body.port ?? 502, unit_id: body.unit_id ?? 1, coil: body.coil });
  else if (body.transport === 'modbus-rtu') Object.assign(row, { serial_port: body.serial_port, baud_rate: body.baud_rate ?? null, parity: body.parity ?? null, unit_id: body.unit_id ?? 1, coil: body.coil });
  else Object.assign(row, { device_instance: body.device_instance, object_instance: body.object_instance });
  return row;
}

function validated(body: ConfigureBody): void {
  const details = refused(body);
  if (details.length) throw new ApiError('validation_error', `invalid body: ${details.map((d) => `${d.field} (${d.reason})`).join(', ')}`, details);
}

function relayOf(services: Services): { relay: AlarmRelay; box: BoxIdentity } {
  const relay = need(services, 'alarmRelay');
  const box = relay.box();
  if (!box) throw new ApiError('lifecycle_conflict', 'the alarm relay belongs to an edge box (mode edge-single); this installation runs cloud-multi', [{ field: 'mode', reason: 'not_edge_single' }]);
  return { relay, box };
}

/** The list's items as the shell's fields, so that the menu offers the module (its own screen shows them). */
const SCHEME_FIELDS = [
  { name: 'output', type: 'string', label: 'Output', enum: [...OUTPUTS] },
  { name: 'configured', type: 'boolean', label: 'Set up' },
  { name: 'enabled', type: 'boolean', label: 'Driven' },
  { name: 'target', type: 'string', label: 'Where', nullable: true },
  { name: 'priorities', type: 'array', label: 'Sounds for' },
  { name: 'period_s', type: 'integer', label: 'Period', nullable: true, unit: 's' },
  { name: 'energised', type: 'boolean', label: 'Energised', nullable: true },
  { name: 'failing', type: 'boolean', label: 'Failing' },
  { name: 'failing_since', type: 'datetime', label: 'Failing since', nullable: true },
  { name: 'last_error', type: 'string', label: 'Last error', nullable: true },
  { name: 'last_ok_at', type: 'datetime', label: 'Last answered', nullable: true },
].map((f) => ({ read_only: true, required: false, nullable: false, sortable: false, searchable: false, ...f }));

export const alarmRelayRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/alarm-relay/scheme', module: 'alarm-relay', tags: TAGS,
    summary: 'UI metadata of the alarm relay outputs (the fields of alarm-relay/list; no generic operations or commands).',
    access: { resource: 'alarm-relay', action: 'read' },
    response: { kind: 'single', item: { type: 'object' } },
    handler: async () => ({
      resource: 'alarm-relay', title: 'Alarm relay and watchdog', module: 'alarm-relay', fields: SCHEME_FIELDS, filters: [], sortable: [],
      search_fields: [], page: { default_limit: 10, max_limit: 10 }, operations: { create: false, patch: false, delete: false }, commands: [],
    }),
  }),
  defineRoute({
    method: 'get', path: '/api/v1/alarm-relay/list', module: 'alarm-relay', tags: TAGS,
    summary: 'The box\'s alarm siren relay and watchdog output: their settings and live state.',
    description: 'Always both outputs, configured or not. siren: energised while an annunciated industry alarm of its priorities (default P1) with its condition active exists on the box\'s tenant (not acknowledged, neither shelved nor out of service), following every alarm event at once; energised and driving_alarms are as of the last drive. watchdog: toggled every period_s while the box is healthy. failing: the last write did not answer or did not read back; a P1 alarm (rule alarm-relay:<output>) is open until a write succeeds. A tenant session of another tenant sees no outputs.',
    access: { resource: 'alarm-relay', action: 'read' },
    query: { limit: { type: 'integer', min: 1, max: 10, default: 10 }, offset: { type: 'integer', min: 0, default: 0 } },
    response: { kind: 'list', item: outputItem },
    handler: async ({ services, caller, query }) => {
      const relay = need(services, 'alarmRelay');
      const box = relay.box();
      const visible = box !== undefined && (caller?.scope_type !== 'tenant' || caller.tenant_id === box.tenant_id);
      return pageItems(visible ? OUTPUTS.map((o) => view(relay, o)) : [], query);
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/alarm-relay/commands/configure', module: 'alarm-relay', tags: TAGS,
    summary: 'Set the siren relay or the watchdog output (the box\'s admin).',
    description: `Saves the output (replacing its settings) and drives it at once. transport modbus-tcp needs host (IPv4) and coil (port 502, unit_id 1 by default); modbus-rtu needs serial_port and coil (unit_id 1-247, baud_rate and parity default to the field settings); bacnet needs device_instance and object_instance of a binary output (present value written at priority ${BACNET_PRIORITY}: 1 active, 0 inactive). A missing field is 400 validation_error naming it. priorities (siren only, default ["P1"]): the alarm priorities that energise the siren. period_s: siren, how often the state is re-asserted (default ${DEFAULT_PERIOD_S.siren}); watchdog, the toggle period (default ${DEFAULT_PERIOD_S.watchdog}). enabled false stops driving the output (its last state stays on the module). Every write is a field-service write (queued, read back, audited with a correlation id); a write that fails raises a P1 alarm. The change itself is an audit record (alarm-relay.configure). 409 lifecycle_conflict in cloud-multi (the relay is an edge box's).`,
    access: { resource: 'alarm-relay', action: 'update', owner: 'installation' }, body: configureBody,
    errors: ['lifecycle_conflict'], response: { kind: 'single', item: outputItem },
    handler: async ({ services, caller, body, requestId }) => {
      const { relay, box } = relayOf(services);
      validated(body);
      const row = rowOf(body, box, caller);
      const { db } = services;
      const t = tableOf(alarmRelayOutputs, db);
      const c = (n: string) => colOf(alarmRelayOutputs, db, n);
      await db.transaction(async () => {
        await db.orm.delete(t).where(and(eq(c('tenant_id'), row.tenant_id), eq(c('id'), row.id)));
        await db.orm.insert(t).values(row as never);
      });
      await services.audit.record({ actor: actor(caller), action: 'alarm-relay.configure', resource: `alarm-relay/${row.id}`, result: 'success', correlation_id: requestId, tenant_id: row.tenant_id, details: { ...row } });
      await relay.reload();
      return view(relay, body.output);
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/alarm-relay/commands/check', module: 'alarm-relay', tags: TAGS,
    summary: 'Read an output before saving it: does the I/O module answer at that address (the box\'s admin).',
    description: 'Takes the body of commands/configure (validated the same way) and reads the output it names once, writing nothing and saving nothing: a Modbus coil with FC01 on the field service\'s bus queue, a BACnet binary output\'s present value. Answers `ok`, `energised` (what the output holds now; null when it did not answer) and, when it did not answer, `message` (the field service\'s words); a failed check raises no alarm. Audited (alarm-relay.check) with the request id as correlation id. 409 lifecycle_conflict in cloud-multi.',
    access: { resource: 'alarm-relay', action: 'update', owner: 'installation' }, body: configureBody,
    errors: ['lifecycle_conflict'],
    response: { kind: 'single', item: { type: 'object', required: ['ok', 'energised', 'message', 'target', 'read_at'], properties: { ok: { type: 'boolean' }, energised: { type: ['boolean', 'null'] }, message: nstr, target: { type: 'string' }, read_at: { type: 'string', format: 'date-time' } } } },
    handler: async ({ services, caller, body, requestId }) => {
      const { box } = relayOf(services);
      validated(body);
      const row = rowOf(body, box, caller);
      const out = await checkOutput(services.field, row);
      const target = describeOutput(row);
      await services.audit.record({ actor: actor(caller), action: 'alarm-relay.check', resource: `alarm-relay/${row.id}`, result: out.ok ? 'success' : 'error', correlation_id: requestId, tenant_id: box.tenant_id, details: { target, ...out } });
      return { ...out, target, read_at: new Date().toISOString() };
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/alarm-relay/commands/test', module: 'alarm-relay', tags: TAGS,
    summary: 'Pulse the siren relay for a few seconds to test the wiring (the box\'s admin).',
    description: 'Energises the siren for `seconds` (1-30, default 3) whatever the alarms, then returns it to the state the alarms ask for. Answers after the first write: `ok` and, when it failed, `message` (the field service\'s words); a failed pulse raises the same P1 alarm as any failed drive. Audited (alarm-relay.test) with the request id as correlation id, which the field write\'s audit record carries too. 409 lifecycle_conflict when the siren is not configured or disabled, or in cloud-multi.',
    access: { resource: 'alarm-relay', action: 'execute', owner: 'installation' },
    body: v.strictObject({ seconds: v.optional(int(1, 30)) }),
    errors: ['lifecycle_conflict'],
    response: { kind: 'single', item: { type: 'object', required: ['ok', 'message', 'pulse_until', 'correlation_id'], properties: { ok: { type: 'boolean' }, message: nstr, pulse_until: { type: 'string', format: 'date-time' }, correlation_id: { type: 'string' } } } },
    handler: async ({ services, caller, body, requestId }) => {
      const { relay, box } = relayOf(services);
      if (!relay.config('siren')?.enabled) throw new ApiError('lifecycle_conflict', 'the siren output is not configured (alarm-relay/commands/configure) or is disabled', [{ field: 'output', reason: 'not_configured' }]);
      const seconds = body.seconds ?? 3;
      const out = await relay.pulse(seconds, requestId);
      await services.audit.record({ actor: actor(caller), action: 'alarm-relay.test', resource: 'alarm-relay/siren', result: out.ok ? 'success' : 'error', correlation_id: requestId, tenant_id: box.tenant_id, details: { seconds, message: out.message } });
      return { ok: out.ok, message: out.message, pulse_until: relay.state('siren').pulse_until ?? new Date().toISOString(), correlation_id: requestId };
    },
  }),
];
