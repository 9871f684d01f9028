// The parent side of bench/lib/server-child.ts, and a keep-alive JSON POST for load clients.
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';

export interface Child {
  url: string;
  rpcUrl: string;
  tokens: string[];
  process: ChildProcess;
  rss(): Promise<number>;
  stop(): Promise<void>;
}

export async function startChild(spec: Record<string, unknown>, execArgv: string[] = []): Promise<Child> {
  const proc = fork(join(import.meta.dirname, 'server-child.ts'), [JSON.stringify(spec)], { execArgv: ['--import', 'tsx', ...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<{ url: string; rpcUrl: string; tokens: string[] }>((resolve, reject) => {
    proc.once('message', (m) => resolve(m as { url: string; rpcUrl: string; tokens: string[] }));
    proc.once('exit', (code) => reject(new Error(`benchmark server exited with ${code}`)));
  });
  return {
    ...ready,
    process: proc,
    rss: () => new Promise((resolve) => {
      proc.once('message', (m) => resolve((m as { rss: number }).rss));
      proc.send('rss');
    }),
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.send('stop');
    }),
  };
}

/** POSTs JSON and reads the answer; anything but 200 throws. */
export function post(agent: http.Agent, url: string, body: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode === 200) resolve(text);
        else reject(new Error(`HTTP ${res.statusCode}: ${text}`));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
