// The update state file shared by the service and the installer: steps with their history, a
// missing file, a file that is not a state, and atomic writes: a writer killed with SIGKILL at any
// moment leaves the previous state or the next one, whole, never a part.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { changeStep, HISTORY_MAX, patchState, readRequest, readState, removeRequest, requestPath, statePath, writeRequest, type UpdateRequest } from '../../src/modules/updates/state.js';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'cabinet-upd-state-'));
  dirs.push(d);
  return d;
};
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

describe('update state file', () => {
  it('moves through steps with one history entry each, patches without one, and keeps the history bounded', () => {
    const dir = tmp();
    expect(readState(dir)).toBeNull();
    const a = changeStep(dir, { step: 'downloading', by: 'service', running_version: '0.1.0', patch: { target_version: '0.2.0', previous_version: '0.1.0', arch: 'amd64', progress: 0 } });
    expect(a).toMatchObject({ schema: 1, step: 'downloading', target_version: '0.2.0', arch: 'amd64', progress: 0 });
    expect(a.history).toHaveLength(1);
    patchState(dir, { progress: 0.5 });
    const b = changeStep(dir, { step: 'proving', by: 'installer', running_version: '0.1.0', patch: { deadline_at: '2026-01-01T00:10:00.000Z' } });
    expect(b).toMatchObject({ step: 'proving', target_version: '0.2.0', progress: 0.5, deadline_at: '2026-01-01T00:10:00.000Z' });
    expect(b.history.map((h) => [h.step, h.by])).toEqual([['downloading', 'service'], ['proving', 'installer']]);
    expect(new Set(b.history.map((h) => h.id)).size).toBe(2);
    expect(readState(dir)).toEqual(b);
    for (let i = 0; i < HISTORY_MAX + 5; i++) changeStep(dir, { step: i % 2 ? 'idle' : 'downloading', by: 'service', running_version: '0.1.0' });
    expect(readState(dir)!.history).toHaveLength(HISTORY_MAX);
  });

  it('a file that is not a state is an error, not idle', () => {
    const dir = tmp();
    changeStep(dir, { step: 'idle', by: 'service', running_version: '0.1.0' });
    writeFileSync(statePath(dir), '{"schema": 2, "step": "idle"}');
    expect(() => readState(dir)).toThrow(/schema 1/);
    writeFileSync(statePath(dir), '{"schema": 1, "step": "flying"}');
    expect(() => readState(dir)).toThrow();
  });

  it('request.json: written whole, read, removed', () => {
    const dir = tmp();
    const req: UpdateRequest = {
      package: '/x/cabinet_0.2.0_amd64.deb', signature: '/x/cabinet_0.2.0_amd64.sig.json', version: '0.2.0', arch: 'amd64',
      previous_package: '/x/cabinet_0.1.0_amd64.deb', previous_signature: '/x/cabinet_0.1.0_amd64.sig.json', previous_version: '0.1.0',
      proof_timeout_s: 600, answering_controllers_before: 2, rollout_id: 'r1', requested_at: '2026-01-01T00:00:00.000Z',
    };
    expect(readRequest(dir)).toBeNull();
    writeRequest(dir, req);
    expect(readRequest(dir)).toEqual(req);
    removeRequest(dir);
    expect(readRequest(dir)).toBeNull();
    expect(requestPath(dir)).toBe(join(dir, 'updates', 'request.json'));
  });

  it('stays readable when its writer is killed with SIGKILL mid-write, again and again', async () => {
    const dir = tmp();
    // A writer that changes steps as fast as it can, each state large (long reasons, a full
    // history), so a kill lands inside a write most of the time.
    const script = `
      import { changeStep } from ${JSON.stringify(join(process.cwd(), 'src/modules/updates/state.ts'))};
      const reason = 'x'.repeat(4000);
      let i = 0;
      process.stdout.write('go\\n');
      for (;;) changeStep(${JSON.stringify(dir)}, { step: i++ % 2 ? 'downloading' : 'verified', by: 'service', running_version: '0.1.0', reason, patch: { progress: (i % 100) / 100, target_version: 'v' + i } });
    `;
    const file = join(dir, 'writer.mts');
    writeFileSync(file, script);
    let seen = 0;
    for (let round = 0; round < 6; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      // Let it write for a while (tens to hundreds of writes), then kill it without warning.
      await new Promise((r) => setTimeout(r, 150 + round * 37));
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      const s = readState(dir);
      expect(s, `round ${round}`).not.toBeNull();
      expect(['downloading', 'verified']).toContain(s!.step);
      expect(s!.reason).toHaveLength(4000);
      expect(s!.history.length).toBeGreaterThan(0);
      seen = Math.max(seen, s!.history.length);
    }
    expect(seen).toBeGreaterThan(10);
    // Only the state (and perhaps temporary files of a killed write) is there; no state.json part.
    const names = readdirSync(join(dir, 'updates'));
    expect(names.filter((n) => !/^\..+\.tmp$/.test(n))).toEqual(['state.json']);
  }, 60_000);
});
