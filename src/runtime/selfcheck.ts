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
//   __selfcheck chunks
//       uses each dependency the executable keeps out of its bundle (build.mjs CHUNKS): an e-mail
//       through sendEmail to an SMTP sink on 127.0.0.1, a BACnet client bound and closed, a CA
//       certificate issued, a PostgreSQL client refused by a closed port, a QR code drawn, an MQTT
//       client (the mqtt chunk) connected to an embedded broker (the aedes chunk); prints
//       {before, after, ...} as JSON, before/after being the chunks loaded then (none before:
//       nothing of the service loads them at start).
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

/** A one-message SMTP sink on 127.0.0.1: answers every command, keeps the DATA. */
async function smtpSink(): Promise<{ port: number; message: Promise<string>; close: () => void }> {
  const { createServer } = process.getBuiltinModule('node:net');
  let received: (text: string) => void = () => {};
  const message = new Promise<string>((resolve) => (received = resolve));
  const server = createServer((socket) => {
    let data: string | undefined;
    let line = '';
    socket.write('220 selfcheck ESMTP\r\n');
    socket.on('data', (chunk: Buffer) => {
      line += chunk.toString('utf8');
      if (data !== undefined) {
        const end = line.indexOf('\r\n.\r\n');
        if (end < 0) return;
        received(line.slice(0, end));
        data = undefined;
        line = line.slice(end + 5);
        socket.write('250 queued\r\n');
      }
      let nl: number;
      while (data === undefined && (nl = line.indexOf('\r\n')) >= 0) {
        const cmd = line.slice(0, nl).toUpperCase();
        line = line.slice(nl + 2);
        if (cmd.startsWith('EHLO')) socket.write('250 selfcheck\r\n');
        else if (cmd === 'DATA') {
          data = '';
          socket.write('354 go on\r\n');
        }
        else if (cmd === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, message, close: () => server.close() };
}

/** A port on 127.0.0.1 nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const { createServer } = process.getBuiltinModule('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function chunksCheck(): Promise<number> {
  const loaded = (): string[] => (globalThis as { __CABINET_CHUNKS_LOADED__?: () => string[] }).__CABINET_CHUNKS_LOADED__?.() ?? [];
  const before = loaded();

  const sink = await smtpSink();
  // nodemailer itself, as the notifications module loads it (a shared layer imports no module).
  const { createTransport } = await import('nodemailer');
  await createTransport({ host: '127.0.0.1', port: sink.port, secure: false, ignoreTLS: true })
    .sendMail({ from: 'cabinet@selfcheck.invalid', to: 'ops@selfcheck.invalid', subject: 'selfcheck', text: 'sent from the executable' });
  const mail = await sink.message;
  sink.close();

  const { default: Bacnet } = await import('node-bacnet');
  const client = new Bacnet({ port: 0, interface: '127.0.0.1', apduTimeout: 1000 });
  client.close();

  const { issueCa } = await import('./tls-issue.js');
  const ca = await issueCa('selfcheck', new Date());

  const { default: pg } = await import('pg');
  const pgClient = new pg.Client({ connectionString: `postgres://selfcheck@127.0.0.1:${await closedPort()}/selfcheck`, connectionTimeoutMillis: 5000 });
  const pgError = await pgClient.connect().then(() => 'connected', (e: NodeJS.ErrnoException) => e.code);

  const { default: qrcode } = await import('qrcode');
  const svg = await qrcode.toString('https://selfcheck.invalid/', { type: 'svg' });

  // The embedded broker (as src/modules/status/mqtt.ts makes it after ready) and the client of an
  // external broker, each from its chunk: a client connects to the broker and is acknowledged.
  const { Aedes } = await import('aedes');
  const broker = await Aedes.createBroker();
  const { createServer } = await import('node:net');
  const mqttServer = createServer((socket) => broker.handle(socket));
  await new Promise<void>((resolve) => mqttServer.listen(0, '127.0.0.1', () => resolve()));
  const { default: mqtt } = await import('mqtt');
  const mqttConnected = await new Promise<boolean>((resolve) => {
    const c = mqtt.connect(`mqtt://127.0.0.1:${(mqttServer.address() as { port: number }).port}`, { reconnectPeriod: 0, connectTimeout: 5000 });
    c.once('connect', () => { c.end(true); resolve(true); });
    c.once('error', () => { c.end(true); resolve(false); });
  });
  await new Promise<void>((resolve) => broker.close(() => resolve()));
  await new Promise<void>((resolve) => mqttServer.close(() => resolve()));

  const report = {
    before,
    smtp: /^Subject: selfcheck$/m.test(mail) && mail.includes('sent from the executable'),
    bacnet: typeof client.readProperty === 'function',
    x509: ca.certPem.startsWith('-----BEGIN CERTIFICATE-----'),
    pg: pgError === 'ECONNREFUSED',
    qrcode: svg.startsWith('<svg'),
    mqtt: mqttConnected,
    after: loaded(),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return report.smtp && report.bacnet && report.x509 && report.pg && report.qrcode && report.mqtt ? 0 : 1;
}

export async function selfcheck(args: string[]): Promise<number> {
  const [what, ...rest] = args;
  switch (what) {
    case 'native':
      return nativeCheck();
    case 'rtu':
      return rtuCheck(rest);
    case 'chunks':
      return chunksCheck();
    default:
      process.stderr.write('usage: cabinet __selfcheck native | chunks | rtu --port <tty> [--unit 1] [--register 0] [--value 1234]\n');
      return 2;
  }
}
