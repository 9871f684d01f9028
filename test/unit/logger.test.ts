// The JSON log on stdout (src/kernel/logger.ts) is written once per turn of the event loop, not a
// write per line: every line still reaches stdout whole, in order, also when the process exits
// right after logging, or exits on an uncaught error, and lines past the 64 KiB batch go out too.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/kernel/logger.js';

const logger = join(import.meta.dirname, '..', '..', 'src', 'kernel', 'logger.ts');

/** Runs a script that has `log` (a logger at info on stdout) and answers its stdout's lines. */
function run(body: string): { lines: Record<string, unknown>[]; status: number | null } {
  const script = `import { createLogger } from ${JSON.stringify(logger)}; const log = createLogger('info'); ${body}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return { lines: r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>), status: r.status };
}

describe('logger', () => {
  it('writes every line, in order, when the process exits in the same turn', () => {
    const { lines, status } = run(`for (let i = 0; i < 5; i++) log.info('line', { i }); log.debug('not written'); process.exit(3);`);
    expect(status).toBe(3);
    expect(lines.map((l) => [l.msg, l.i])).toEqual([0, 1, 2, 3, 4].map((i) => ['line', i]));
  });

  it('writes the lines logged before an uncaught error', () => {
    const { lines, status } = run(`log.warn('before the error', { code: 'x' }); throw new Error('boom');`);
    expect(status).not.toBe(0);
    expect(lines).toEqual([expect.objectContaining({ level: 'warn', msg: 'before the error', code: 'x' })]);
  });

  it('writes batches past 64 KiB and what follows them, across turns', () => {
    const { lines } = run(`for (let i = 0; i < 3000; i++) log.info('bulk', { i, pad: 'x'.repeat(40) }); setTimeout(() => log.info('later'), 10);`);
    expect(lines).toHaveLength(3001);
    expect(lines.slice(0, 3000).every((l, i) => l.i === i)).toBe(true);
    expect(lines[3000]!.msg).toBe('later');
  });

  it('builds the same line as a JSON object of time, level, message and fields', () => {
    const out: string[] = [];
    const log = createLogger('debug', (l) => out.push(l));
    log.info('quoted "msg"', { a: 1, skipped: undefined, nested: { b: [1, 2] } });
    log.error('shadowing', { msg: 'the field wins, as with a spread', z: 2 });
    log.debug('bare');
    const parsed = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed[0]).toEqual({ time: expect.any(String), level: 'info', msg: 'quoted "msg"', a: 1, nested: { b: [1, 2] } });
    expect(parsed[1]).toEqual({ time: expect.any(String), level: 'error', msg: 'the field wins, as with a spread', z: 2 });
    expect(Object.keys(parsed[2]!)).toEqual(['time', 'level', 'msg']);
  });
});
