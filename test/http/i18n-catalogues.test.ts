// The shell's language catalogues as the box serves them: public (the login screen needs them
// before anyone logs in), revalidated by ETag, with a site's own file in data_dir/i18n picked up
// while the box runs (a new language, or a site's words over a shipped one).
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';
import { BUILT_IN } from '../../src/i18n/built-in.js';

describe('language catalogues served to the shell', () => {
  let env: TestEnv;
  let server: RunningServer;

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', site_language: 'es' });
  });
  afterAll(async () => env.cleanup());

  it('languages.json offers the shipped languages by their own names and the site default, without a session', async () => {
    const res = await fetch(`${server.url}/app/i18n/languages.json`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { default: string; languages: { code: string; name: string; shipped: boolean; coverage: number }[] };
    expect(body.default).toBe('es');
    expect(body.languages).toEqual([
      { code: 'en', name: 'English', shipped: true, coverage: 1 },
      { code: 'ru', name: 'Русский', shipped: true, coverage: 1 },
      { code: 'es', name: 'Español', shipped: true, coverage: 1 },
    ]);
  });

  it('a catalogue is the shipped one, revalidated by its ETag', async () => {
    const res = await fetch(`${server.url}/app/i18n/ru.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.json()).toEqual(BUILT_IN.ru);
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await fetch(`${server.url}/app/i18n/ru.json`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
  });

  it('an unknown language or a name that is not one answers 404 in the error envelope', async () => {
    for (const name of ['xx.json', 'RU.json', '..%2Fsite.json', 'ru.js']) {
      const res = await fetch(`${server.url}/app/i18n/${name}`);
      expect(res.status, name).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('a site file adds a language and changes a shipped one while the box runs, and the ETag changes with it', async () => {
    const dir = join(env.dataDir, 'i18n');
    mkdirSync(dir, { recursive: true });
    const before = (await fetch(`${server.url}/app/i18n/ru.json`)).headers.get('etag');
    writeFileSync(join(dir, 'pl.json'), JSON.stringify({ 'common.action.save': 'Zapisz', 'common.none': '{broken' }));
    writeFileSync(join(dir, 'ru.json'), JSON.stringify({ 'common.action.save': 'Записать' }));
    const future = Date.now() / 1000 + 10;
    utimesSync(join(dir, 'ru.json'), future, future);
    const langs = async () => ((await (await fetch(`${server.url}/app/i18n/languages.json`)).json()) as { languages: { code: string; shipped: boolean; coverage: number }[] }).languages;
    // A file's stat is trusted for 2 s: wait for the box to look again.
    await expect.poll(async () => (await langs()).map((l) => l.code), { timeout: 10_000, interval: 300 }).toEqual(['en', 'ru', 'es', 'pl']);
    const pl = (await langs()).find((l) => l.code === 'pl')!;
    expect(pl.shipped).toBe(false);
    expect(pl.coverage).toBeGreaterThan(0);
    expect(pl.coverage).toBeLessThan(0.5);
    const plCat = (await (await fetch(`${server.url}/app/i18n/pl.json`)).json()) as Record<string, string>;
    expect(plCat).toEqual({ 'common.action.save': 'Zapisz' }); // the message that does not parse is left out
    await expect.poll(async () => ((await (await fetch(`${server.url}/app/i18n/ru.json`)).json()) as Record<string, string>)['common.action.save'], { timeout: 10_000, interval: 300 }).toBe('Записать');
    const ru = await fetch(`${server.url}/app/i18n/ru.json`);
    expect(ru.headers.get('etag')).not.toBe(before);
    expect(((await ru.json()) as Record<string, string>)['common.action.cancel']).toBe('Отмена');
  });

  it('refuses a site_language that is not a language code, naming the setting', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(() => loadConfig({ site_language: 'Russian' }, {})).toThrow(/site_language/);
    expect(loadConfig({}, {}).site_language).toBe('en');
  });
});
