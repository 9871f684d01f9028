// A read worker's close keeps the process alive until the worker's connection is closed, even when
// a read asked before close() is answered after it (src/db/read-worker.ts). The answer used to
// unreference the worker, so a process with nothing else to do ended with close() unsettled and the
// connection open: 1 in 3 runs of bench/soak-reads.ts ended that way (exit code 13). Run in a
// child process, which has nothing else keeping it alive, as a stopping server has not.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'cabinet-read-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the read worker at close', () => {
  it('a read answered after close() was called does not let the process end before the worker has closed', () => {
    const file = join(dir, 'db.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('create table t (a); insert into t values (1), (2), (3)');
    db.close();
    const module = fileURLToPath(new URL('../../src/db/read-worker.ts', import.meta.url));
    const script = join(dir, 'close.mts');
    writeFileSync(script, [
      `import { readWorker } from ${JSON.stringify(module)};`,
      `const w = readWorker(${JSON.stringify(file)}, { cacheKiB: 64 });`,
      `if (!w) throw new Error('no read worker');`,
      // A few reads in flight, answered while close() waits for the worker's exit.
      `const reads = [1, 2, 3].map(() => w.all('select count(*) as n from t', []).catch(() => []));`,
      `await w.close();`,
      `process.stdout.write('closed ' + (await Promise.all(reads)).length + '\\n');`,
    ].join('\n'));
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    for (let i = 0; i < 5; i++) {
      const run = spawnSync(process.execPath, [tsx, script], { encoding: 'utf8', timeout: 30_000 });
      expect({ status: run.status, out: run.stdout, err: run.stderr.split('\n').find((l) => /unsettled|Error/.test(l)) ?? '' }).toEqual({ status: 0, out: 'closed 3\n', err: '' });
    }
  }, 120_000);
});
