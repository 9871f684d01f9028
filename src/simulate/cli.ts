// `cabinet simulate`: simulated poultry house controllers on Modbus TCP (and RTU), for
// demonstrations, development and tests. docs/simulator.md is the user's guide.
import { parseArgs } from 'node:util';
import { ConfigError } from '../config.js';
import { adapterProfile } from './profile.js';
import { registerMapMarkdown } from './register-map.js';
import { startSerialServer, startTcpServer, type RunningServer } from './server.js';
import { Simulation } from './simulation.js';

export const USAGE = `usage: cabinet simulate [--host 127.0.0.1] [--port 5020] [--houses N] [--serial /dev/PATH [--baud 9600]]
                        [--seed S] [--speed X] [--age-days D] [--birds B] [--noise 0..5] [--print-profile] [--print-map]`;

function number(name: string, raw: string | undefined, fallback: number, min: number, max: number, integer = false): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new ConfigError(`--${name} must be ${integer ? 'an integer' : 'a number'} in ${min}..${max}, got ${JSON.stringify(raw)}\n${USAGE}`);
  }
  return n;
}

export interface SimulateSettings {
  host: string;
  port: number;
  houses: number;
  serial?: string;
  baud: number;
  seed: number;
  speed: number;
  age_days: number;
  birds: number;
  noise: number;
  print_profile: boolean;
  print_map: boolean;
}

export function parseSimulateArgs(args: string[]): SimulateSettings {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' }, port: { type: 'string' }, houses: { type: 'string' }, serial: { type: 'string' },
        baud: { type: 'string' }, seed: { type: 'string' }, speed: { type: 'string' }, 'age-days': { type: 'string' },
        birds: { type: 'string' }, noise: { type: 'string' }, 'print-profile': { type: 'boolean' }, 'print-map': { type: 'boolean' },
      },
    }));
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}\n${USAGE}`);
  }
  return {
    host: values.host ?? '127.0.0.1',
    port: number('port', values.port, 5020, 0, 65535, true),
    houses: number('houses', values.houses, 1, 1, 247, true),
    ...(values.serial !== undefined ? { serial: values.serial } : {}),
    baud: number('baud', values.baud, 9600, 1200, 921600, true),
    seed: number('seed', values.seed, 1, 0, 2 ** 31, true),
    speed: number('speed', values.speed, 1, 0.001, 100_000),
    age_days: number('age-days', values['age-days'], 1, 0, 70),
    birds: number('birds', values.birds, 20_000, 1, 200_000, true),
    noise: number('noise', values.noise, 1, 0, 5),
    print_profile: values['print-profile'] ?? false,
    print_map: values['print-map'] ?? false,
  };
}

export async function simulateCommand(args: string[]): Promise<number> {
  const s = parseSimulateArgs(args);
  if (s.print_map) {
    process.stdout.write(`${registerMapMarkdown()}\n`);
    return 0;
  }
  if (s.print_profile) {
    if (s.serial === undefined && s.port === 0) throw new ConfigError('--print-profile needs the port the simulator listens on, not 0');
    // One create body per line: each line is what POST /api/v1/poultry-adapters takes.
    for (let k = 1; k <= s.houses; k++) {
      const link = s.serial !== undefined ? { serial_path: s.serial } : { host: s.host, port: s.port };
      process.stdout.write(`${JSON.stringify(adapterProfile({ house: k, ...link }))}\n`);
    }
    return 0;
  }
  // Taken before listening: a stop that arrives during start-up still closes what was opened.
  let stop: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGTERM', () => stop!());
  process.once('SIGINT', () => stop!());

  const sim = new Simulation({ houses: s.houses, age_days: s.age_days, birds: s.birds, speed: s.speed, seed: s.seed, noise: s.noise });
  const servers: RunningServer[] = [];
  try {
    let tcp: RunningServer;
    try {
      tcp = await startTcpServer(sim, s.host, s.port);
      servers.push(tcp);
      if (s.serial !== undefined) servers.push(await startSerialServer(sim, s.serial, s.baud));
    } catch (err) {
      // A port in use or a serial device that cannot be opened: the user's to fix, one line.
      process.stderr.write(`cabinet simulate: ${(err as Error).message}\n`);
      return 1;
    }
    const ready = {
      ready: true, host: s.host, port: tcp.where, houses: s.houses,
      unit_ids: Array.from({ length: s.houses }, (_, i) => i + 1),
      ...(s.serial !== undefined ? { serial: s.serial, baud: s.baud } : {}),
      speed: s.speed, age_days: s.age_days, seed: s.seed,
    };
    process.stdout.write(`${JSON.stringify(ready)}\n`);
    await stopped;
  } finally {
    await Promise.all(servers.map((x) => x.close()));
  }
  return 0;
}
