// src/runtime/systemd.ts takes node:child_process at its first message (not at start): with
// $NOTIFY_SOCKET set, notifyReady and notifyStopping still run `systemd-notify` with their
// arguments; without it nothing runs. A real program on PATH stands in for systemd-notify.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyReady, notifyStopping } from '../../src/runtime/systemd.js';

describe('systemd notifications', () => {
  let dir: string;
  let log: string;
  const saved = { PATH: process.env.PATH, NOTIFY_SOCKET: process.env.NOTIFY_SOCKET };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cabinet-notify-'));
    log = join(dir, 'calls.txt');
    const fake = join(dir, 'systemd-notify');
    writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\n`);
    chmodSync(fake, 0o755);
    process.env.PATH = `${dir}:${saved.PATH ?? ''}`;
  });
  afterAll(() => {
    process.env.PATH = saved.PATH;
    if (saved.NOTIFY_SOCKET === undefined) delete process.env.NOTIFY_SOCKET;
    else process.env.NOTIFY_SOCKET = saved.NOTIFY_SOCKET;
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends nothing outside systemd (no NOTIFY_SOCKET)', async () => {
    delete process.env.NOTIFY_SOCKET;
    await notifyReady('ready: test');
    expect(existsSync(log)).toBe(false);
  });

  it('runs systemd-notify with READY and then STOPPING under systemd', async () => {
    process.env.NOTIFY_SOCKET = join(dir, 'notify.sock');
    await notifyReady('ready: http://127.0.0.1:1');
    await notifyStopping();
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['--ready --status=ready: http://127.0.0.1:1', '--status=stopping STOPPING=1']);
  });
});
