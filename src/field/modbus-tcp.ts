import type ModbusRTU from 'modbus-serial';
import { ModbusBus, type BusTiming } from './modbus-bus.js';
import type { Logger } from './types.js';

/** One Modbus TCP endpoint (ip:port); all unit ids behind it (a gateway) share its queue. */
export class ModbusTcpBus extends ModbusBus {
  constructor(
    readonly host: string,
    readonly port: number,
    timing: BusTiming,
    log: Logger,
  ) {
    super(`${host}:${port}`, timing, log);
  }

  target(): string {
    return `${this.host}:${this.port}`;
  }

  protected async open(client: ModbusRTU): Promise<void> {
    try {
      await client.connectTCP(this.host, { port: this.port });
    } catch (err) {
      // connectTCP rejects with the socket error (ECONNREFUSED...) or a bare boolean; classify in the caller.
      throw err instanceof Error ? err : Object.assign(new Error('TCP connect failed'), { code: 'ECONNREFUSED' });
    }
  }

  protected closeClient(c: ModbusRTU): void {
    // destroy, not close: close() waits for the peer's FIN, which a hung device never sends.
    try {
      c.destroy(() => {});
    } catch {
      /* already gone */
    }
  }
}
