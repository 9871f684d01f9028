import type ModbusRTU from 'modbus-serial';
import { BusQueue } from './queue.js';
import { FieldFailure, isRetryable, modbusExceptionText, errorText, type FailureKind } from './errors.js';
import { registersHex } from './encoding.js';
import type { Logger } from './types.js';
import type { SerialSettings } from './config.js';
import type { ModbusTable } from './poll-types.js';

// A Modbus bus (one TCP endpoint or one serial port): its queue, its connection, and the
// attempt/timeout/retry/reconnect policy shared by the TCP and RTU transports.

export interface ModbusWrite {
  unitId: number;
  objectType: 'holding register' | 'coil';
  address: number;
  /** Registers for 'holding register'. */
  registers?: number[];
  /** States for 'coil'. */
  coils?: boolean[];
  /** 5, 6, 15 or 16, decided from the request shape. */
  functionCode: 5 | 6 | 15 | 16;
  verify: boolean;
  /** RTU line settings for this item; applied inside the job, never under another job's request. */
  serial?: SerialSettings;
}

/** One read request: FC03 holding, FC04 input registers, FC01 coils, FC02 discrete inputs. */
export interface ModbusRead {
  unitId: number;
  table: ModbusTable;
  address: number;
  /** Registers (<= 125) or bits (<= 2000). */
  count: number;
  serial?: SerialSettings;
}

export interface ModbusReadOutcome {
  /** Registers for the register tables, bits (0/1) for coils and discrete inputs; `count` long. */
  data: number[];
  attempts: number;
}

/** Whatever goes on the wire: both carry the unit, the first address and the RTU line settings. */
type Transaction = ModbusWrite | ModbusRead;
const isRead = (t: Transaction): t is ModbusRead => 'table' in t;
const isBits = (t: Transaction): boolean => (isRead(t) ? t.table === 'coil' || t.table === 'discrete input' : t.objectType === 'coil');

export interface ModbusWriteOutcome {
  attempts: number;
  verified: boolean;
}

export interface BusTiming {
  timeoutMs: number;
  retries: number;
  queueMaxLength: number;
}

export abstract class ModbusBus {
  protected client: ModbusRTU | null = null;
  /** Set by the driver's close/error events; the next job reconnects. */
  protected linkUp = false;
  /**
   * Requests in flight on the current link, failed at once when it closes instead of at their
   * deadline. A set emptied per request, not one shared promise raced by every request: a link that
   * stays up for months of polling would keep a reaction (and the answer it resolved) per request.
   */
  private readonly lostWaiters = new Set<{ t: Transaction; reject: (f: FieldFailure) => void }>();
  private readonly queue: BusQueue;

  constructor(
    readonly key: string,
    protected readonly timing: BusTiming,
    protected readonly log: Logger,
  ) {
    this.queue = new BusQueue(key, timing.queueMaxLength);
  }

  /** "<ip:port>" for TCP, "<path> unit:<u>" for RTU: the target part of every message. */
  abstract target(unitId: number): string;
  /** Opens a fresh client; rejects with a FieldFailure. */
  protected abstract open(client: ModbusRTU, unitId: number, address: number): Promise<void>;

  /** Requests put on the wire (every attempt counts), for tests and benchmarks. */
  requests = 0;

  get queueLength(): number {
    return this.queue.length;
  }

  /** A read, queued behind any waiting write; same deadlines, retries and fresh-link rules. */
  read(r: ModbusRead): Promise<ModbusReadOutcome> {
    const { timeoutMs, retries } = this.timing;
    // Bound methods, not named closures: see Slot in queue.ts (this runs for every poll request).
    return this.queue.push<ModbusReadOutcome>(
      { run: this.runRead.bind(this, r), abandon: this.abandon.bind(this, r), watchdogMs: timeoutMs * 2 * (retries + 1) + 2000 },
      this.failure.bind(this, 'queue_full', 'Queue full', r, undefined, undefined),
      'read',
    );
  }

  private async runRead(r: ModbusRead): Promise<ModbusReadOutcome> {
    this.beforeJob(r);
    const { value, attempts } = await this.transactValue(r, (c) => this.sendRead(c, r));
    return { data: value, attempts };
  }

  private abandon(t: Transaction): FieldFailure {
    this.drop('watchdog');
    return this.failure('timeout', 'Timeout', t);
  }

  private async sendRead(c: ModbusRTU, r: ModbusRead): Promise<number[]> {
    const n = r.count;
    let data: readonly (number | boolean)[];
    if (r.table === 'holding register') data = (await c.readHoldingRegisters(r.address, n)).data;
    else if (r.table === 'input register') data = (await c.readInputRegisters(r.address, n)).data;
    else if (r.table === 'coil') data = (await c.readCoils(r.address, n)).data;
    else data = (await c.readDiscreteInputs(r.address, n)).data;
    // Bits come padded to whole bytes; a short answer is a stale or foreign reply.
    if (data.length < n) throw this.failure('bad_reply', this.errorWhat(r), r, `Unexpected reply (${data.length} values for ${n})`);
    if (!isBits(r)) return data.length === n ? (data as number[]) : (data.slice(0, n) as number[]);
    return data.slice(0, n).map((x) => (x === true || x === 1 ? 1 : 0));
  }

  private errorWhat(t: Transaction): string {
    return `Error ${isRead(t) ? 'read' : 'write'} ${isBits(t) ? 'bit' : 'register'}`;
  }

  write(w: ModbusWrite): Promise<ModbusWriteOutcome> {
    const { timeoutMs, retries } = this.timing;
    const perAttempt = timeoutMs * 2; // connect + request
    const transactions = w.verify ? 2 : 1;
    return this.queue.push<ModbusWriteOutcome>(
      {
        run: () => this.runWrite(w),
        abandon: () => {
          this.drop('watchdog');
          return this.failure('timeout', 'Timeout', w);
        },
        watchdogMs: perAttempt * (retries + 1) * transactions + 2000,
      },
      () => this.failure('queue_full', 'Queue full', w),
    );
  }

  /** Runs inside the job, before its first request. */
  protected beforeJob(_t: Transaction): void {}

  private async runWrite(w: ModbusWrite): Promise<ModbusWriteOutcome> {
    this.beforeJob(w);
    let attempts = await this.transact(w, (c) => this.sendWrite(c, w));
    if (!w.verify) return { attempts, verified: false };
    const { value: readBack, attempts: readAttempts } = await this.transactValue(w, (c) => this.readBack(c, w));
    attempts += readAttempts;
    if (w.objectType === 'coil') {
      const wrote = w.coils ?? [];
      const got = readBack as boolean[];
      if (wrote.some((b, i) => got[i] !== b)) {
        const fmt = (a: readonly boolean[]) => a.map((b) => (b ? 1 : 0)).join(',');
        throw this.failure('verify', 'Verify failed', w, `wrote [${fmt(wrote)}] read [${fmt(got)}]`);
      }
    } else {
      const wrote = w.registers ?? [];
      const got = readBack as number[];
      if (wrote.some((r, i) => got[i] !== r)) {
        throw this.failure('verify', 'Verify failed', w, `wrote [${registersHex(wrote)}] read [${registersHex(got)}]`);
      }
    }
    return { attempts, verified: true };
  }

  private async transact(w: Transaction, op: (c: ModbusRTU) => Promise<unknown>): Promise<number> {
    return (await this.transactValue(w, op)).attempts;
  }

  /** One Modbus transaction with the bounded retry; every attempt has its own deadline. */
  private async transactValue<T>(w: Transaction, op: (c: ModbusRTU) => Promise<T>): Promise<{ value: T; attempts: number }> {
    const { retries } = this.timing;
    for (let attempt = 1; ; attempt++) {
      try {
        // The usual case, a link that is up, without the extra turns of an async call.
        const client = this.client && this.linkUp && this.client.isOpen ? this.client : await this.connected(w);
        client.setID(w.unitId);
        this.requests++;
        const value = await this.deadline(op(client), w, true);
        return { value, attempts: attempt };
      } catch (err) {
        const f = err instanceof FieldFailure ? err : this.classify(err, w);
        // A timed-out, corrupted or unexpected reply leaves the link in an unknown state:
        // modbus-serial reuses one transaction id, so a late answer would be taken as the reply
        // to the next request. Dropping the link discards it.
        if (f.kind !== 'exception' && f.kind !== 'verify') this.drop(f.kind);
        if (!isRetryable(f.kind) || attempt > retries) throw f;
        this.log('warn', 'modbus attempt failed, retrying', { bus: this.key, attempt, kind: f.kind, message: f.message, detail: f.detail });
      }
    }
  }

  private async connected(w: Transaction): Promise<ModbusRTU> {
    if (this.client && this.linkUp && this.client.isOpen) return this.client;
    this.drop('reconnect');
    // modbus-serial (and serialport) load at the first connection, not at start.
    const { default: ModbusClient } = await import('modbus-serial');
    const client = new ModbusClient();
    // Without a listener, a serial 'error' event (adapter unplugged) would crash the process.
    const onLost = (why: string) => {
      if (this.client !== client) return;
      this.linkUp = false;
      const waiters = [...this.lostWaiters];
      this.lostWaiters.clear();
      for (const x of waiters) x.reject(this.failure('link_lost', 'Connection lost', x.t, undefined, why));
    };
    // Without a listener, a serial 'error' event (adapter unplugged) would crash the process.
    client.on('error', (e: unknown) => {
      this.log('warn', 'modbus link error', { bus: this.key, error: errorText(e) });
      onLost(errorText(e));
    });
    this.client = client;
    await this.deadline(this.open(client, w.unitId, w.address), w);
    if (this.client !== client) throw this.failure('link_lost', 'Connection lost', w);
    client.on('close', () => onLost('link closed'));
    this.linkUp = true;
    return client;
  }

  /** Settles with p, or fails at the deadline, or (a request on the wire) when the link closes. */
  private deadline<T>(p: Promise<T>, w: Transaction, onLink = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter = { t: w, reject };
      if (onLink) this.lostWaiters.add(waiter);
      const timer = setTimeout(() => {
        this.lostWaiters.delete(waiter);
        reject(this.failure('timeout', 'Timeout', w));
      }, this.timing.timeoutMs);
      p.then(
        (v) => {
          clearTimeout(timer);
          this.lostWaiters.delete(waiter);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          this.lostWaiters.delete(waiter);
          reject(e);
        },
      );
    });
  }

  private async sendWrite(c: ModbusRTU, w: ModbusWrite): Promise<void> {
    const a = w.address;
    switch (w.functionCode) {
      case 5: {
        const state = w.coils?.[0] ?? false;
        const r = await c.writeCoil(a, state);
        if (r.address !== a || r.state !== state) throw this.badEcho(w, `FC05 echo address ${r.address} state ${r.state}`);
        return;
      }
      case 6: {
        const value = w.registers?.[0] ?? 0;
        const r = await c.writeRegister(a, value);
        if (r.address !== a || r.value !== value) throw this.badEcho(w, `FC06 echo address ${r.address} value ${r.value}`);
        return;
      }
      case 15: {
        const states = w.coils ?? [];
        const r = await c.writeCoils(a, states);
        if (r.address !== a || r.length !== states.length) throw this.badEcho(w, `FC15 echo address ${r.address} length ${r.length}`);
        return;
      }
      case 16: {
        const regs = w.registers ?? [];
        const r = await c.writeRegisters(a, regs);
        if (r.address !== a || r.length !== regs.length) throw this.badEcho(w, `FC16 echo address ${r.address} length ${r.length}`);
        return;
      }
    }
  }

  private async readBack(c: ModbusRTU, w: ModbusWrite): Promise<boolean[] | number[]> {
    if (w.objectType === 'coil') {
      const n = w.coils?.length ?? 0;
      return (await c.readCoils(w.address, n)).data.slice(0, n);
    }
    const n = w.registers?.length ?? 0;
    return (await c.readHoldingRegisters(w.address, n)).data.slice(0, n);
  }

  private badEcho(w: ModbusWrite, detail: string): FieldFailure {
    return this.failure('bad_reply', `Error write ${w.objectType === 'coil' ? 'bit' : 'register'}`, w, `Unexpected reply (${detail})`);
  }

  /** Maps a modbus-serial / serialport / socket error to the contract's message shapes. */
  protected classify(err: unknown, w: Transaction): FieldFailure {
    const e = (err ?? {}) as { modbusCode?: unknown; errno?: unknown; code?: unknown; message?: unknown };
    const message = typeof e.message === 'string' ? e.message : String(err);
    if (typeof e.modbusCode === 'number') {
      return this.failure('exception', this.errorWhat(w), w, modbusExceptionText(e.modbusCode), message);
    }
    const code = typeof e.code === 'string' ? e.code : typeof e.errno === 'string' ? e.errno : '';
    if (code === 'ETIMEDOUT' || message === 'Timed out') return this.failure('timeout', 'Timeout', w, undefined, message);
    if (message === 'CRC error') return this.failure('crc', 'CRC error', w, undefined, message);
    if (message === 'Port Not Open') return this.failure('link_lost', 'Connection lost', w, undefined, message);
    if (code === 'ECONNREFUSED') return this.failure('refused', 'Connection refused', w, undefined, message);
    if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL') {
      return this.failure('refused', 'Host unreachable', w, undefined, message);
    }
    if (code === 'ECONNRESET' || code === 'EPIPE') return this.failure('link_lost', 'Connection lost', w, undefined, message);
    if (/Data length error|Unexpected data error/.test(message)) {
      return this.failure('bad_reply', this.errorWhat(w), w, 'Unexpected reply', message);
    }
    return this.failure('link_lost', 'Connection lost', w, undefined, message);
  }

  /** "<What> <target> addr:<n>[ <suffix>]" */
  protected failure(kind: FailureKind, what: string, w: Transaction, suffix?: string, detail?: string): FieldFailure {
    const text = `${what} ${this.target(w.unitId)} addr:${w.address}${suffix ? ` ${suffix}` : ''}`;
    return new FieldFailure(kind, text, detail ?? suffix);
  }

  /** Forgets the current link; the next attempt opens a new one. */
  drop(reason: string): void {
    const c = this.client;
    this.client = null;
    this.linkUp = false;
    if (!c) return;
    this.log('debug', 'modbus link dropped', { bus: this.key, reason });
    this.closeClient(c);
  }

  protected abstract closeClient(c: ModbusRTU): void;

  async close(): Promise<void> {
    this.queue.close();
    this.drop('close');
  }
}
