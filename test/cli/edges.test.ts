// The edges a newcomer meets first: `npm start` stops cleanly on SIGTERM, whether the signal goes
// to npm alone or to its whole process group (a terminal's Ctrl-C, CI, systemd); a taken port
// names the setting that moves it; a too-old Node.js gets one line instead of a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestEnv } from '../helpers/server.js';
import { nodeVersionProblem } from '../../src/node-version.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const started: ChildProcess[] = [];
afterAll(() => {
  for (const c of started) if (c.pid && c.exitCode === null) { try { process.kill(-c.pid, 'SIGKILL'); } catch { /* gone */ } }
});

const groupAlive = (pid: number) => {
  try { process.kill(-pid, 0); return true; } catch { return false; }
};

/** `npm start` in its own process group on a temporary data directory; resolves once it listens. */
async function npmStart(dataDir: string): Promise<{ child: ChildProcess; log: Record<string, unknown>[] }> {
  const child = spawn('npm', ['start', '--', '--data-dir', dataDir, '--http-port', '0', '--rpc-port', '0', '--mqtt-broker', 'off', '--host', '127.0.0.1'], {
    cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  const log: Record<string, unknown>[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('npm start did not listen within 90 s')), 90_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return; // npm's own "> cabinet@... start" lines
      const entry = JSON.parse(line) as Record<string, unknown>;
      log.push(entry);
      if (String(entry.msg).startsWith('cabinet listening')) { clearTimeout(timer); resolve(); }
    });
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}`)));
  });
  return { child, log };
}

/** Sends the signal, then waits until npm and everything it started are gone. */
async function stop(child: ChildProcess, target: 'npm' | 'group', signal: NodeJS.Signals): Promise<void> {
  const pid = child.pid!;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(target === 'group' ? -pid : pid, signal);
  await exited;
  for (let i = 0; i < 300 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  expect(groupAlive(pid)).toBe(false);
}

const msgs = (log: Record<string, unknown>[]) => log.map((l) => String(l.msg));

describe('npm start', () => {
  it('completes the graceful stop on SIGTERM to its process group and to npm alone, and on Ctrl-C (SIGINT to the group)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-npm-start-'));
    const stops = [['group', 'SIGTERM'], ['npm', 'SIGTERM'], ['group', 'SIGINT']] as const;
    for (const [target, signal] of stops) {
      const { child, log } = await npmStart(dir);
      // Every start after the first finds the previous stop clean.
      expect(msgs(log).some((m) => m.includes('did not stop cleanly'))).toBe(false);
      await stop(child, target, signal);
      expect(msgs(log), `${signal} to ${target}`).toContain('stopping');
      expect(msgs(log), `${signal} to ${target}`).toContain('cabinet stopped');
    }
    // The next start finds the last stop clean too.
    const { child, log } = await npmStart(dir);
    expect(msgs(log).some((m) => m.includes('did not stop cleanly'))).toBe(false);
    await stop(child, 'group', 'SIGTERM');
  }, 300_000);
});

describe('a taken HTTP port', () => {
  let blocker: Server | undefined;
  afterAll(() => blocker?.close());

  it('names the setting and flag that choose another', async () => {
    blocker = createServer();
    const port = await new Promise<number>((resolve) => blocker!.listen(0, '127.0.0.1', () => resolve((blocker!.address() as { port: number }).port)));
    const env = await createTestEnv('sqlite');
    try {
      await expect(env.start({ http_port: String(port) })).rejects.toThrow(
        `cannot listen on 127.0.0.1:${port}: EADDRINUSE (the port is taken: choose another with --http-port, CABINET_HTTP_PORT or http_port in the config file)`,
      );
    } finally {
      await env.cleanup();
    }
  });
});

describe('a Node.js below engines', () => {
  it('gets one line naming the version found, the version needed and how to get it', () => {
    const line = nodeVersionProblem('v20.20.2', '>=24');
    expect(line).toMatch(/^cabinet: Node\.js v20\.20\.2 is too old: cabinet needs Node\.js 24 or later \(package\.json engines ">=24"\)\. /);
    expect(line).toContain('npm ci installs Node.js 24');
    expect(line).not.toContain('\n');
    expect(nodeVersionProblem('v23.11.0', '>=24')).toBeDefined();
    expect(nodeVersionProblem('v24.2.0', '>=24.3')).toContain('needs Node.js 24.3 or later');
    expect(nodeVersionProblem('v24.0.0', '>=24')).toBeUndefined();
    expect(nodeVersionProblem('v26.1.0', '>=24.3')).toBeUndefined();
    expect(nodeVersionProblem(process.version, '>=24')).toBeUndefined();
  });
});
