// The tablet shell as an installable app: a web app manifest and an icon served from the binary,
// and every text asset precompressed at build (brotli and gzip), chosen by Accept-Encoding.
// Raw node:http, because fetch would decode the body and hide which coding was sent.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';

interface Raw { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

describe('web shell assets', () => {
  let env: TestEnv;
  let server: RunningServer;
  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off' });
  });
  afterAll(async () => env.cleanup());

  it('links a manifest and an icon that the server serves with their types', async () => {
    const page = (await get(`${server.url}/`)).body.toString('utf8');
    expect(page).toContain('<link rel="manifest" href="/app/manifest.webmanifest">');
    expect(page).toContain('<link rel="icon" href="/app/icon.svg" type="image/svg+xml">');
    const manifest = await get(`${server.url}/app/manifest.webmanifest`);
    expect(manifest.status).toBe(200);
    expect(manifest.headers['content-type']).toBe('application/manifest+json');
    const m = JSON.parse(manifest.body.toString('utf8')) as { display: string; start_url: string; icons: { src: string; type: string }[] };
    expect(m).toMatchObject({ display: 'fullscreen', start_url: '/' });
    for (const icon of m.icons) {
      const r = await get(`${server.url}${icon.src}`);
      expect(r.status, icon.src).toBe(200);
      expect(r.headers['content-type']).toBe(icon.type);
      expect(r.body.toString('utf8')).toContain('<svg');
    }
  });

  it('sends the brotli or gzip copy the client accepts, the same bytes once decoded, and the file itself otherwise', async () => {
    const page = (await get(`${server.url}/`)).body.toString('utf8');
    const script = /src="(\/app\/index-[\w-]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    for (const path of ['/', script!, '/app/sw.js', '/app/manifest.webmanifest']) {
      const plain = await get(`${server.url}${path}`, { 'accept-encoding': 'identity' });
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.headers.vary).toBe('accept-encoding');
      const br = await get(`${server.url}${path}`, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers['content-encoding'], path).toBe('br');
      expect(br.body.length).toBeLessThan(plain.body.length);
      expect(brotliDecompressSync(br.body).equals(plain.body), path).toBe(true);
      // A client that refuses brotli (q=0) gets gzip.
      const gz = await get(`${server.url}${path}`, { 'accept-encoding': 'br;q=0, gzip' });
      expect(gz.headers['content-encoding'], path).toBe('gzip');
      expect(gunzipSync(gz.body).equals(plain.body), path).toBe(true);
    }
    // The shell's script, as a tablet downloads it: at most a third of its size.
    const js = await get(`${server.url}${script!}`, { 'accept-encoding': 'br' });
    const raw = await get(`${server.url}${script!}`);
    expect(js.body.length).toBeLessThan(raw.body.length / 3);
  });
});
