// How the tablets write dates and times: settings site_locale (default en-GB: "24 Nov 2026") and
// site_clock (default 24h), handed to the shell in app/context; a bad value stops the start-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import type { RunningServer } from '../../src/server.js';

describe('site display settings', () => {
  let env: TestEnv;
  let server: RunningServer;

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off' });
  });
  afterAll(async () => env.cleanup());

  it('defaults to en-GB and a 24-hour clock, for an operator too', async () => {
    const operator = await clientAs(env, server, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1', subject: 'op-1' });
    const ctx = await operator.get('/api/v1/app/context');
    expect(ctx.status).toBe(200);
    expect(ctx.body.item.display).toEqual({ locale: 'en-GB', clock: '24h', language: 'en' });
  });

  it('takes the site\'s locale and clock from the settings', async () => {
    await server.close();
    server = await env.start({ mqtt_broker: 'off', site_locale: 'de-DE', site_clock: '12h' });
    const admin = await clientAs(env, server);
    expect((await admin.get('/api/v1/app/context')).body.item.display).toEqual({ locale: 'de-DE', clock: '12h', language: 'en' });
  });

  it('refuses a clock or a locale it does not know, naming the setting', () => {
    expect(() => loadConfig({ site_clock: '25h' }, {})).toThrow(ConfigError);
    expect(() => loadConfig({ site_clock: '25h' }, {})).toThrow(/site_clock/);
    expect(() => loadConfig({}, { CABINET_SITE_LOCALE: 'not a locale!' })).toThrow(/site_locale/);
    expect(loadConfig({}, {}).site_clock).toBe('24h');
  });
});
