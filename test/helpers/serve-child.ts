// `cabinet serve` as a child process (the bundle of cabinet-main.ts), resolved with the URL it
// says it listens on: the tests that kill, stop or restart a whole box (durability, backup under
// load, the log index's mount, the relay watchdog) start it the same way.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cabinetArgs, ROOT } from './cabinet-main.js';

export interface ServeChild {
  proc: ChildProcess;
  url: string;
  /** Settles when the process has exited. */
  exited: Promise<void>;
}

/** Spawns `cabinet serve <args>`; rejects with the end of its stderr when it exits or does not listen within `timeoutMs`. */
export async function spawnServe(args: readonly string[], opts: { env?: Record<string, string>; timeoutMs?: number; onLine?: (line: string) => void } = {}): Promise<ServeChild> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const proc = spawn(process.execPath, await cabinetArgs('serve', ...args), {
    cwd: ROOT,
    ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cabinet serve did not listen within ${timeoutMs / 1000} s: ${stderr}`)), timeoutMs);
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      opts.onLine?.(line);
      try {
        const msg = JSON.parse(line) as { msg?: string; url?: string };
        if (msg.msg?.startsWith('cabinet listening') && msg.url) { clearTimeout(timer); resolve(msg.url); }
      } catch { /* not a log line */ }
    });
    void exited.then(() => { clearTimeout(timer); reject(new Error(`cabinet serve exited: ${stderr}`)); });
  });
  return { proc, url, exited };
}
