import type ModbusRTU from 'modbus-serial';
import { ModbusBus, type BusTiming, type ModbusRead, type ModbusWrite } from './modbus-bus.js';
import type { SerialSettings } from './config.js';
import type { Logger } from './types.js';
import { FieldFailure } from './errors.js';

/**
 * One serial port (a USB-RS485 adapter): every unit id on the wire shares one queue, because RS485
 * is half duplex and a second request before the first answer corrupts both.
 */
export class ModbusRtuBus extends ModbusBus {
  private settings: SerialSettings;

  constructor(settings: SerialSettings, timing: BusTiming, log: Logger) {
    super(settings.path, timing, log);
    this.settings = settings;
  }

  target(unitId: number): string {
    return `${this.settings.path} unit:${unitId}`;
  }

  /** Line settings come per item; a change reopens the port. Called inside the job (queue-serialised). */
  protected override beforeJob(w: ModbusWrite | ModbusRead): void {
    const s = w.serial;
    if (!s) return;
    const cur = this.settings;
    if (cur.baud_rate === s.baud_rate && cur.parity === s.parity && cur.stop_bits === s.stop_bits && cur.data_bits === s.data_bits) {
      return;
    }
    this.settings = s;
    this.drop('line settings changed');
  }

  protected async open(client: ModbusRTU, unitId: number, address: number): Promise<void> {
    const s = this.settings;
    try {
      await client.connectRTUBuffered(s.path, {
        baudRate: s.baud_rate,
        parity: s.parity,
        stopBits: s.stop_bits,
        dataBits: s.data_bits,
      });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new FieldFailure('refused', `Port unavailable ${this.target(unitId)} addr:${address}`, why);
    }
  }

  protected closeClient(c: ModbusRTU): void {
    try {
      if (c.isOpen) c.close(() => {});
    } catch {
      /* port already gone (unplugged) */
    }
  }
}
