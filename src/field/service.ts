import * as v from 'valibot';
import type { FieldConfig } from './config.js';
import { FieldFailure, errorText } from './errors.js';
import { ModbusTcpBus } from './modbus-tcp.js';
import { ModbusRtuBus } from './modbus-rtu.js';
import type { ModbusBus, BusTiming } from './modbus-bus.js';
import { planModbus, type ModbusBusSpec, type ModbusPlan } from './modbus-plan.js';
import { planBacnet, describeWrite, type BacnetPlan } from './bacnet-plan.js';
import type { BacnetGateway } from './bacnet.js';
import { registersHex } from './encoding.js';
import {
  bacnetItemSchema,
  bacnetMultipleItemSchema,
  envelopeSchema,
  issueMessages,
  modbusRtuItemSchema,
  modbusTcpItemSchema,
} from './request.js';
import type { Actor, FieldWriteAudit, Logger, Protocol } from './types.js';
import { isoNow } from '../kernel/clock.js';

// The write service: validates a whole request, plans every item (nothing is sent if any item is
// refused), then executes items in order on their bus queues, stopping at the first failure.

export interface ItemResult {
  index: number;
  target: string;
  address: string;
  /** Modbus function code used (5, 6, 15, 16); absent for BACnet. */
  function?: number;
  /** Registers as 4-digit hex words, or coil states, as written. */
  wire?: string | number[];
  attempts: number;
  verified: boolean;
}

export type ExecuteResult =
  | { ok: true; results: ItemResult[] }
  | {
      ok: false;
      /** 400 refused before sending, 502 a device/bus failure, 503 a bus queue was full. */
      status: 400 | 502 | 503;
      messages: string[];
      /** Items that were executed before the failure. */
      results: ItemResult[];
    };

export interface FieldServiceDeps {
  audit: (entry: FieldWriteAudit) => void | Promise<void>;
  log?: Logger;
}

export interface ExecuteOptions {
  /**
   * 'failures': a verified write is not audited, a refused or failed one is. For routine writes
   * that change nothing (a watchdog toggle every few seconds, a relay re-asserting its state),
   * whose audit records would only wear the box's storage; their caller audits state changes.
   */
  audit?: 'always' | 'failures';
}

export interface FieldService {
  execute(request: unknown, actor: Actor, correlationId: string, options?: ExecuteOptions): Promise<ExecuteResult>;
  /**
   * The bus of a Modbus endpoint or serial port, shared with writes (one queue, writes first);
   * the poller reads through it. Throws a FieldFailure once the service is closing.
   */
  modbusBus(spec: ModbusBusSpec): ModbusBus;
  /** The BACnet gateway writes use (node-bacnet loads on first use). */
  bacnet(): Promise<BacnetGateway>;
  readonly config: FieldConfig;
  close(): Promise<void>;
  /**
   * Writes running now (execute() calls not finished), routine ones (audit 'failures': watchdog
   * toggles, relay re-assertions) left out: the box's updater installs only while it is 0.
   * Optional: a wrapper that writes nothing (the master's) need not say.
   */
  writesInFlight?(): number;
}

/** "tcp:<host>:<port>" or "rtu:<path>": one queue per key, the `bus` of poll events. */
export function busKey(spec: ModbusBusSpec): string {
  return spec.kind === 'tcp' ? `tcp:${spec.host}:${spec.port}` : `rtu:${spec.serial.path}`;
}

type Planned =
  | { kind: 'modbus'; index: number; plan: ModbusPlan; input: unknown; address: string }
  | { kind: 'bacnet'; index: number; plan: BacnetPlan; input: unknown; target: string; address: string };

export function createFieldService(config: FieldConfig, deps: FieldServiceDeps): FieldService {
  const log: Logger = deps.log ?? (() => {});
  const timing: BusTiming = { timeoutMs: config.request_timeout_ms, retries: config.retries, queueMaxLength: config.queue_max_length };
  const buses = new Map<string, ModbusBus>();
  let bacnet: BacnetGateway | null = null;
  let closed = false;
  let inFlight = 0;

  const busFor = (plan: ModbusPlan): ModbusBus => busOf(plan.bus);
  const busOf = (spec: ModbusBusSpec): ModbusBus => {
    const key = busKey(spec);
    let bus = buses.get(key);
    if (!bus) {
      bus = spec.kind === 'tcp' ? new ModbusTcpBus(spec.host, spec.port, timing, log) : new ModbusRtuBus(spec.serial, timing, log);
      buses.set(key, bus);
    }
    return bus;
  };

  const audit = async (entry: FieldWriteAudit): Promise<void> => {
    try {
      await deps.audit(entry);
    } catch (err) {
      // The write has happened (or not) regardless; failing the response would invite a retry.
      log('error', 'field write audit failed', { error: errorText(err), correlation_id: entry.correlation_id });
    }
  };

  function plan(protocol: Protocol, params: unknown[]): { planned: Planned[]; messages: string[]; perItem: string[][] } {
    const planned: Planned[] = [];
    const messages: string[] = [];
    const perItem: string[][] = params.map(() => []);
    params.forEach((raw, index) => {
      const prefix = `params[${index}]`;
      const fail = (m: string[]) => {
        messages.push(...m);
        perItem[index] = m;
      };
      if (protocol === 'modbus' || protocol === 'modbus-rtu') {
        const r = v.safeParse(protocol === 'modbus' ? modbusTcpItemSchema : modbusRtuItemSchema, raw);
        if (!r.success) return fail(issueMessages(r.issues, prefix));
        const p = planModbus(r.output, protocol === 'modbus-rtu', config);
        if (!p.ok) return fail([p.message]);
        planned.push({ kind: 'modbus', index, plan: p.plan, input: raw, address: String(r.output.object_address) });
      } else {
        const multiple = protocol === 'bacnet_m';
        const r = v.safeParse(multiple ? bacnetMultipleItemSchema : bacnetItemSchema, raw);
        if (!r.success) return fail(issueMessages(r.issues, prefix));
        const p = planBacnet(r.output, multiple);
        if (!p.ok) return fail(p.messages);
        const first = p.plan.writes[0];
        const address = p.plan.writes.map((w) => describeWrite(p.plan.deviceInstance, w).replace(/^device:\d+ /, '')).join(', ');
        planned.push({ kind: 'bacnet', index, plan: p.plan, input: raw, target: first ? `device:${p.plan.deviceInstance}` : '', address });
      }
    });
    return { planned, messages, perItem };
  }

  async function execute(request: unknown, actor: Actor, correlationId: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const counted = options.audit !== 'failures';
    if (counted) inFlight++;
    try {
      return await executeNow(request, actor, correlationId, options);
    } finally {
      if (counted) inFlight--;
    }
  }

  async function executeNow(request: unknown, actor: Actor, correlationId: string, options: ExecuteOptions): Promise<ExecuteResult> {
    const started = Date.now();
    const auditOk = options.audit !== 'failures';
    const base = (protocol: Protocol, index: number) => ({
      at: isoNow(),
      correlation_id: correlationId,
      actor,
      protocol,
      index,
    });
    const env = v.safeParse(envelopeSchema, request);
    if (!env.success) {
      const messages = issueMessages(env.issues, '');
      const protocol = (request as { protocol?: unknown } | null)?.protocol;
      await audit({
        ...base(typeof protocol === 'string' ? (protocol as Protocol) : 'modbus', -1),
        target: '-',
        address: '-',
        values: request ?? null,
        outcome: 'failed',
        message: messages.join('; '),
        failure_kind: 'invalid',
        attempts: 0,
        verified: false,
        duration_ms: Date.now() - started,
      });
      return { ok: false, status: 400, messages, results: [] };
    }
    const { protocol, params } = env.output;
    if (closed) return { ok: false, status: 503, messages: ['Service closing'], results: [] };
    if (params.length > config.max_items) {
      const messages = [`Invalid request: params: at most ${config.max_items} items per request, got ${params.length}`];
      return { ok: false, status: 400, messages, results: [] };
    }

    const { planned, messages, perItem } = plan(protocol, params);
    if (messages.length) {
      for (let index = 0; index < params.length; index++) {
        const own = perItem[index] ?? [];
        await audit({
          ...base(protocol, index),
          target: '-',
          address: '-',
          values: params[index] ?? null,
          outcome: own.length ? 'failed' : 'skipped',
          message: own.length ? own.join('; ') : 'Not executed: another item of the request was refused',
          failure_kind: 'invalid',
          attempts: 0,
          verified: false,
          duration_ms: 0,
        });
      }
      return { ok: false, status: 400, messages, results: [] };
    }

    const results: ItemResult[] = [];
    let failure: FieldFailure | null = null;
    const failMessages: string[] = [];
    for (const item of planned) {
      const t0 = Date.now();
      const target = item.kind === 'modbus' ? busTarget(item.plan) : item.target;
      const wire = item.kind === 'modbus' ? wireOf(item.plan) : undefined;
      if (failure) {
        const m = `Not executed ${item.kind === 'modbus' ? `${item.plan.target} addr:${item.address}` : `${target} ${item.address}`} (an earlier item failed)`;
        failMessages.push(m);
        await audit({ ...base(protocol, item.index), target, address: item.address, values: item.input, outcome: 'skipped', message: m, failure_kind: 'skipped', attempts: 0, verified: false, duration_ms: 0 });
        continue;
      }
      try {
        let r: ItemResult;
        if (item.kind === 'modbus') {
          const out = await busFor(item.plan).write(item.plan.write);
          r = { index: item.index, target, address: item.address, function: item.plan.write.functionCode, ...(wire === undefined ? {} : { wire }), attempts: out.attempts, verified: out.verified };
        } else {
          const gateway = await bacnetGateway();
          const first = item.plan.writes[0];
          const out = await gateway.write(item.plan, first ? describeWrite(item.plan.deviceInstance, first) : target);
          r = { index: item.index, target: `${target}@${out.address}`, address: item.address, attempts: out.attempts, verified: out.verified };
        }
        results.push(r);
        if (auditOk) await audit({ ...base(protocol, item.index), target: r.target, address: item.address, values: item.input, ...(wire === undefined ? {} : { wire }), outcome: 'ok', attempts: r.attempts, verified: r.verified, duration_ms: Date.now() - t0 });
      } catch (err) {
        failure = err instanceof FieldFailure ? err : new FieldFailure('link_lost', `Error ${target} ${item.address} ${errorText(err)}`);
        if (!(err instanceof FieldFailure)) log('error', 'unexpected field write error', { error: errorText(err) });
        failMessages.push(failure.message);
        await audit({ ...base(protocol, item.index), target, address: item.address, values: item.input, ...(wire === undefined ? {} : { wire }), outcome: 'failed', message: failure.message, failure_kind: failure.kind, attempts: 0, verified: false, duration_ms: Date.now() - t0 });
      }
    }
    if (!failure) return { ok: true, results };
    log('warn', 'field write failed', { correlation_id: correlationId, kind: failure.kind, message: failure.message, detail: failure.detail });
    return { ok: false, status: failure.kind === 'queue_full' ? 503 : 502, messages: failMessages, results };
  }

  // node-bacnet (and its encoding tables) load at the first BACnet use, not at start.
  let loading: Promise<BacnetGateway> | null = null;
  const bacnetGateway = (): Promise<BacnetGateway> =>
    (loading ??= import('./bacnet.js').then((m) => (bacnet = new m.BacnetGateway(config, log))));

  return {
    execute,
    config,
    writesInFlight: () => inFlight,
    modbusBus(spec) {
      if (closed) throw new FieldFailure('link_lost', `Service closing ${busKey(spec)}`);
      return busOf(spec);
    },
    bacnet: bacnetGateway,
    async close() {
      closed = true;
      await Promise.all([...buses.values()].map((b) => b.close()));
      await bacnet?.close();
    },
  };
}

function busTarget(plan: ModbusPlan): string {
  return plan.bus.kind === 'tcp' ? `${plan.target} unit:${plan.write.unitId}` : plan.target;
}

function wireOf(plan: ModbusPlan): string | number[] | undefined {
  if (plan.write.registers) return registersHex(plan.write.registers);
  if (plan.write.coils) return plan.write.coils.map((b) => (b ? 1 : 0));
  return undefined;
}
