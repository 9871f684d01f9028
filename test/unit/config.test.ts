import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseFlags } from '../../src/config.js';

const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'cabinet-cfg-')), 'cabinet.yaml');
  writeFileSync(path, text);
  return path;
};

describe('configuration', () => {
  it('defaults serve a newcomer: edge-single, poultry, SQLite in ./data, HTTP 8080', () => {
    const c = loadConfig({}, {});
    expect(c).toMatchObject({ mode: 'edge-single', industry: 'poultry', http_port: 8080, data_dir: './data', database_url: '' });
  });

  it('layers defaults < config file < environment < flags', () => {
    const path = file('http_port: 9000\nindustry: swine\nlog_level: warn\nmode: cloud-multi\n');
    const env = { CABINET_HTTP_PORT: '9100', CABINET_INDUSTRY: 'melioration' };
    const c = loadConfig({ config: path, http_port: '9200' }, env);
    expect(c.http_port).toBe(9200);
    expect(c.industry).toBe('melioration');
    expect(c.log_level).toBe('warn');
    expect(c.mode).toBe('cloud-multi');
    expect(loadConfig({}, { CABINET_CONFIG: path }).http_port).toBe(9000);
  });

  it('names the setting, the value and what is allowed in one line', () => {
    const attempt = (fn: () => unknown) => {
      try { fn(); } catch (err) { return err as Error; }
      throw new Error('expected a ConfigError');
    };
    const bad = attempt(() => loadConfig({ http_port: '70000' }, {}));
    expect(bad).toBeInstanceOf(ConfigError);
    expect(bad.message).toBe('setting http_port = "70000" (from option --http-port) is not allowed: expected an integer from 0 to 65535 (0 = any free port)');
    expect(attempt(() => loadConfig({}, { CABINET_MODE: 'edge' })).message).toContain('environment CABINET_MODE');
    expect(attempt(() => loadConfig({ config: file('colour: blue\n') }, {})).message).toContain('unknown setting colour');
    expect(attempt(() => loadConfig({ config: file('- a\n- b\n') }, {})).message).toContain('must hold a mapping');
    expect(attempt(() => loadConfig({ config: '/nonexistent/cabinet.yaml' }, {})).message).toContain('cannot be read');
    expect(attempt(() => loadConfig({ database_url: 42 as unknown as string }, {})).message).toContain('(hidden)');
  });

  it('parses --flag value and --flag=value, refusing unknown options', () => {
    expect(parseFlags(['--http-port', '0', '--host=127.0.0.1', 'extra']).values).toEqual({ http_port: '0', host: '127.0.0.1' });
    expect(() => parseFlags(['--htp-port', '1'])).toThrow(/unknown option --htp-port/);
    expect(() => parseFlags(['--http-port'])).toThrow(/needs a value/);
  });
});
