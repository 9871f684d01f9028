// Runs a command and waits for it without blocking the test worker's event loop. A synchronous
// spawn holds vitest's worker RPC until it ends; on a loaded 2-core machine a few of them in one
// test ran past its 60 s RPC timeout ("Timeout calling onTaskUpdate"), which fails the run.
import { spawn } from 'node:child_process';

export interface RunResult { status: number | null; stdout: string; stderr: string }

export function runCommand(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    child.once('error', (err) => { clearTimeout(timer); reject(err); });
    child.once('close', (status) => { clearTimeout(timer); resolve({ status, stdout, stderr }); });
  });
}
