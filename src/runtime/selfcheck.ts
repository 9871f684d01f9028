// Hidden shipping self-checks of the single executable (`cabinet __selfcheck <what>`), used by
// build.mjs (smoke test) and .ci/ship.sh. They prove from inside the binary what the bundle could
// silently lose: the embedded native addons, and modbus-serial's RTU port class.
//
//   __selfcheck native
//       loads both addons; prints {node, arch, sqlite, serialport, rtu, codeCache} as JSON; exit 1
//       when the RTU port class is missing. codeCache says whether V8 accepted the bundle's code
//       cache (src/runtime/sea-loader.cjs): accepted, rejected, or none (built without one).
//   __selfcheck rtu --port /dev/pts/N [--unit 1] [--register 0] [--value 1234] [--baud 9600]
//       writes one holding register over Modbus RTU (function 06) and reads it back (function 03).
import { parseArgs } from 'node:util';
import { addonCacheDir } from './addon-cache.js';
import { betterSqlite3Binding, serialportBinding } from './native.js';
import { seaManifest } from './sea.js';

async function nativeCheck(): Promise<number> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(':memory:', { nativeBinding: betterSqlite3Binding() } as Record<string, unknown>);
  const sqlite = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  db.close();
  const serial = serialportBinding();
  const { default: ModbusRTU } = await import('modbus-serial');
  const rtu = typeof (ModbusRTU as unknown as Record<string, unknown>).RTUBufferedPort === 'function';
  const report = {
    cabinet: seaManifest()?.cabinetVersion ?? null,
    node: process.versions.node,
    arch: process.arch,
    sqlite,
    serialport: serial ? Object.keys(serial).sort() : null,
    rtu,
    cacheDir: addonCacheDir(),
    codeCache: (globalThis as { __CABINET_CODE_CACHE__?: string }).__CABINET_CODE_CACHE__ ?? null,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return rtu && serial ? 0 : 1;
}

async function rtuCheck(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      unit: { type: 'string', default: '1' },
      register: { type: 'string', default: '0' },
      value: { type: 'string', default: '1234' },
      baud: { type: 'string', default: '9600' },
      timeout: { type: 'string', default: '2000' },
    },
  });
  if (!values.port) throw new Error('--port is required');
  const { default: ModbusRTU } = await import('modbus-serial');
  if (typeof (ModbusRTU as unknown as Record<string, unknown>).RTUBufferedPort !== 'function') {
    throw new Error('modbus-serial has no RTU port class: serialport bindings failed to load');
  }
  const client = new ModbusRTU();
  const register = Number(values.register);
  const value = Number(values.value);
  await client.connectRTUBuffered(values.port, { baudRate: Number(values.baud) });
  try {
    client.setID(Number(values.unit));
    client.setTimeout(Number(values.timeout));
    await client.writeRegister(register, value);
    const read = await client.readHoldingRegisters(register, 1);
    const ok = read.data[0] === value;
    process.stdout.write(`${JSON.stringify({ port: values.port, unit: Number(values.unit), register, wrote: value, read: read.data[0], ok })}\n`);
    return ok ? 0 : 1;
  } finally {
    await new Promise<void>((resolve) => client.close(() => resolve()));
  }
}

export async function selfcheck(args: string[]): Promise<number> {
  const [what, ...rest] = args;
  switch (what) {
    case 'native':
      return nativeCheck();
    case 'rtu':
      return rtuCheck(rest);
    default:
      process.stderr.write('usage: cabinet __selfcheck native | rtu --port <tty> [--unit 1] [--register 0] [--value 1234]\n');
      return 2;
  }
}
