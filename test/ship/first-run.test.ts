// First run: a fresh box has no admin passkey, so nobody can log in. The service says so in its log
// and in GET /api/v1/auth/passkey/status (setup_required, setup_hint) with the one command that
// issues the first admin card; that command, run as printed, ends the first-run state.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/run.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let server: ChildProcess | undefined;
afterAll(() => server?.kill('SIGKILL'));

async function serve(dataDir: string): Promise<{ url: string; log: string[] }> {
  server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', '--data-dir', dataDir, '--http-port', '0', '--rpc-port', '0', '--mqtt-broker', 'off', '--host', '127.0.0.1'], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('cabinet serve did not listen within 60 s')), 60_000);
    createInterface({ input: server!.stdout! }).on('line', (line) => {
      log.push(line);
      const msg = JSON.parse(line) as { msg?: string; url?: string };
      if (msg.msg?.startsWith('cabinet listening') && msg.url) { clearTimeout(timer); resolve(msg.url); }
    });
    server!.once('exit', () => reject(new Error('cabinet serve exited')));
  });
  return { url, log };
}

/** GET auth/passkey/status. A pooled keep-alive socket the server closed while the CLI ran (its idle
 * timeout is 5 s, and the CLI can take longer on a loaded machine) is retried once on a new
 * connection, provided the server is still running: a crashed server still fails the test. */
async function status(url: string): Promise<Record<string, unknown>> {
  const get = async () => ((await (await fetch(`${url}/api/v1/auth/passkey/status`)).json()) as { item: Record<string, unknown> }).item;
  try {
    return await get();
  } catch (err) {
    expect(server?.exitCode, `cabinet serve exited (${String(err)})`).toBeNull();
    return get();
  }
}

/** Runs a printed `npx tsx src/main.ts ...` command line (words, "double-quoted words"). */
function runPrinted(command: string) {
  const words = [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]) as string[];
  expect(words.slice(0, 3)).toEqual(['npx', 'tsx', 'src/main.ts']);
  return runCommand(join(ROOT, 'node_modules/.bin/tsx'), words.slice(2), { cwd: ROOT });
}

describe('first run', () => {
  it('tells, in the log and in auth/passkey/status, the command that issues the first admin card', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-first-run-'));
    const { url, log } = await serve(dir);
    const expected = `npx tsx src/main.ts passkey issue --data-dir ${dir} --type rfid --holder "Site admin" --role admin --scope-type master --card-uid <card UID>`;
    // Logged right after "listening", once the database is checked.
    const find = () => log.map((l) => JSON.parse(l) as { level: string; msg: string }).find((l) => l.msg.startsWith('no admin passkey yet'));
    for (let i = 0; i < 100 && !find(); i++) await new Promise((r) => setTimeout(r, 100));
    const line = find();
    expect(line).toMatchObject({ level: 'warn', msg: `no admin passkey yet: create the first admin card with: ${expected}` });

    const fresh = await status(url);
    expect(fresh).toMatchObject({ authenticated: false, setup_required: true, setup_hint: expected });

    // An operator card is not an admin: still first run.
    const operator = await runPrinted(expected.replace('--role admin', '--role operator').replace('<card UID>', '0A0B0C0D'));
    expect(operator.status, operator.stderr).toBe(0);
    expect((await status(url)).setup_required).toBe(true);

    const admin = await runPrinted(expected.replace('<card UID>', '04A1B2C3D4'));
    expect(admin.status, admin.stderr).toBe(0);
    expect(admin.stdout).toMatch(/^passkey PK-\S+ \(rfid, admin, /);
    const after = await status(url);
    expect(after.setup_required).toBe(false);
    expect(after).not.toHaveProperty('setup_hint');
  }, 180_000);
});
