// The single executable's trailer (scripts/trailer.mjs, read by src/runtime/sea-loader.cjs):
// `version` and `--help` are printed by the loader without running the bundle, and are the texts
// the bundle itself prints; the dependencies kept out of the bundle (build.mjs CHUNKS) load, and
// work, when used. Copies of dist/cabinet with a rewritten trailer show what runs: a bundle
// replaced by a throw fails every other command but not these two.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/run.js';
import { ensureExecutable } from './executable.js';
// @ts-expect-error scripts/trailer.mjs is plain JavaScript without declarations
import { appendTrailer, readTrailer } from '../../scripts/trailer.mjs';

interface Trailer {
  sections: Record<string, [number, number]>;
  fast?: { version: string; help: string };
  bytes: Record<string, Buffer>;
}

const FAST = ['version', '--version', 'help', '--help', '-h'];
let binary: string;
let dir: string;
let trailer: Trailer;
let env: NodeJS.ProcessEnv;

/** A copy of the executable with another trailer: `main.cjs` and `fast` replaced as given. */
function copyWith(name: string, main: Buffer, fast: Trailer['fast']): string {
  const file = join(dir, name);
  copyFileSync(binary, file);
  truncateSync(file, Math.min(...Object.values(trailer.sections).map(([offset]) => offset)));
  const sections = Object.entries(trailer.bytes).filter(([n]) => n !== 'main.cache').map(([n, b]) => [n, n === 'main.cjs' ? main : b]);
  (appendTrailer as (file: string, t: { sections: [string, Buffer][]; fast?: Trailer['fast'] }) => void)(file, { sections: sections as [string, Buffer][], fast });
  chmodSync(file, 0o755);
  return file;
}

beforeAll(async () => {
  binary = await ensureExecutable();
  dir = mkdtempSync(join(tmpdir(), 'cabinet-trailer-'));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CABINET_') && k !== 'NODE_OPTIONS'));
  env = { ...clean, CABINET_CACHE_DIR: join(dir, 'cache') };
  trailer = (readTrailer as (file: string) => Trailer | undefined)(binary)!;
}, 900_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the trailer of the single executable', () => {
  it('holds the bundle, its code cache, the chunks and the texts of version and --help', () => {
    expect(Object.keys(trailer.sections).sort()).toEqual(['chunk/aedes', 'chunk/bacnet', 'chunk/mqtt', 'chunk/nodemailer', 'chunk/pg', 'chunk/qrcode', 'chunk/x509', 'main.cache', 'main.cjs']);
    expect(trailer.fast?.version).toMatch(/^cabinet \d+\.\d+\.\d+\nnode v[\d.]+\nsqlite 3\.\d+\.\d+\n$/);
    expect(trailer.fast?.help).toMatch(/^cabinet \d+\.\d+\.\d+: the site controller service\n[\s\S]*--http-port\s+CABINET_HTTP_PORT/);
  });

  it('answers version and --help without running the bundle', async () => {
    const broken = copyWith('cabinet-no-bundle', Buffer.from('throw new Error("the bundle ran");'), trailer.fast);
    for (const command of [...FAST, undefined]) {
      const r = await runCommand(broken, command ? [command] : [], { env });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(command?.includes('version') ? trailer.fast!.version : trailer.fast!.help);
    }
    // ...while any other command runs the bundle, here the throw.
    const other = await runCommand(broken, ['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', join(dir, 'data')], { env });
    expect(other.status).not.toBe(0);
    expect(other.stderr).toContain('the bundle ran');
  }, 120_000);

  it('prints the texts the bundle prints', async () => {
    const plain = copyWith('cabinet-no-texts', trailer.bytes['main.cjs']!, undefined);
    expect((await runCommand(plain, ['version'], { env })).stdout).toBe(trailer.fast!.version);
    expect((await runCommand(plain, ['--help'], { env })).stdout).toBe(trailer.fast!.help);
  }, 120_000);

  it('loads each chunk when it is used, and none before (SMTP e-mail, BACnet, x509 CA, PostgreSQL, QR code, MQTT broker and client)', async () => {
    const r = await runCommand(binary, ['__selfcheck', 'chunks'], { env });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(report).toEqual({ before: [], smtp: true, bacnet: true, x509: true, pg: true, qrcode: true, mqtt: true, after: ['nodemailer', 'bacnet', 'x509', 'pg', 'qrcode', 'aedes', 'mqtt'] });
  }, 120_000);

  it('loads no chunk on a restart before /ready; the MQTT broker\'s after it', async () => {
    const data = join(dir, 'serve-data');
    /** One serve until /ready answers 200, then SIGTERM (after `waitMs`); the chunks it had loaded. */
    const serveOnce = async (run: number, waitMs = 0): Promise<string[]> => {
      const out = join(dir, `chunks-${run}.json`);
      const args = ['serve', '--http-port', '0', '--https-port', '0', '--rpc-port', '0', '--mqtt-port', '0', '--host', '127.0.0.1', '--data-dir', data, '--log-level', 'info'];
      const child = spawn(binary, args, { env: { ...env, CABINET_CHUNKS_OUT: out }, stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          output += d;
          const m = /"msg":"cabinet listening on (http:\/\/[^"]+)"/.exec(output);
          if (m) resolve(m[1]!);
        });
        child.stderr.setEncoding('utf8').on('data', (d: string) => { output += d; });
        void exited.then((code) => reject(new Error(`serve exited with ${String(code)}:\n${output.slice(-2000)}`)));
      });
      expect((await fetch(`${url}/ready`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, waitMs));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      return JSON.parse(readFileSync(out, 'utf8')) as string[];
    };
    // The first start issues the box's certificates (the x509 chunk); a restart reads them.
    // The broker is made BROKER_AFTER_READY_MS (200 ms) after ready: a stop right after /ready may
    // come before or after it, and nothing else may have loaded; a second later it has.
    expect((await serveOnce(1)).filter((c) => c !== 'aedes')).toEqual(['x509']);
    expect((await serveOnce(2)).filter((c) => c !== 'aedes')).toEqual([]);
    expect(await serveOnce(3, 1000)).toEqual(['aedes']);
  }, 120_000);
});
