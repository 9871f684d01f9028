// Real peers for notification tests: an SMTP server on loopback (Debian's python3-aiosmtpd,
// test/peers/smtp_sink.py, requiring AUTH) and an HTTP receiver that records every request, and
// the receiver's check of a webhook signature as docs/notifications.md specifies it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function freePort(): Promise<number> {
  const s = netServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

export interface Mail { mail_from: string; rcpt_tos: string[]; auth_user: string | null; data: string; subject: string; text: string }

export class SmtpSink {
  proc: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'cabinet-smtp-'));
  constructor(readonly port: number, readonly user: string, readonly password: string) {}
  async start(): Promise<void> {
    const proc = spawn('/usr/bin/python3', [join(import.meta.dirname, '../peers/smtp_sink.py'), String(this.port), this.dir, this.user, this.password], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc = proc;
    await new Promise<void>((resolve, reject) => {
      let err = '';
      proc.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
      proc.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(); });
      proc.on('exit', (code) => reject(new Error(`smtp_sink exited ${code}: ${err}`)));
    });
  }
  /** Stops the peer and keeps what it received: start() again brings it back on the same port. */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (proc && proc.exitCode === null) {
      const gone = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await gone;
    }
    this.proc = undefined;
  }
  /** Stops it for good and removes what it received. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
  messages(): Mail[] {
    return readdirSync(this.dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(this.dir, f), 'utf8')) as Mail);
  }
}

export interface Hook { headers: IncomingHttpHeaders; body: string; path: string }

/** Records every request; answers `answer` (204 unless set). */
export class Receiver {
  readonly got: Hook[] = [];
  answer = 204;
  server: Server | undefined;
  url = '';
  async start(path = '/hooks/cabinet'): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => { body += d.toString(); });
      req.on('end', () => {
        this.got.push({ headers: req.headers, body, path: req.url ?? '' });
        res.writeHead(this.answer).end();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}${path}`;
  }
  async stop(): Promise<void> {
    await new Promise((r) => this.server?.close(r));
  }
}

/** What a receiver does (docs/notifications.md): HMAC-SHA256 over "<timestamp>.<raw body>", compared in constant time, refusing a timestamp over 5 minutes off. */
export function verifySignature(hook: Hook, key: string, now = Date.now()): boolean {
  const ts = String(hook.headers['x-cabinet-timestamp'] ?? '');
  const sig = String(hook.headers['x-cabinet-signature'] ?? '');
  const want = `sha256=${createHmac('sha256', key).update(`${ts}.${hook.body}`).digest('hex')}`;
  const fresh = Math.abs(now / 1000 - Number(ts)) <= 300;
  return fresh && sig.length === want.length && timingSafeEqual(Buffer.from(sig), Buffer.from(want));
}

export async function until<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
