// Pieces of the module registry that need no server: the legacy state file reader and the
// bounded, newest-first access audit.
import { describe, expect, it } from 'vitest';
import { LegacyStateError, parseLegacyState } from '../../src/modules/core/registry/legacy.js';
import { AccessAudit } from '../../src/modules/core/registry/access-audit.js';
import { moduleRecord, routePaths } from '../../src/modules/core/registry/records.js';
import { MODULES } from '../../src/modules/index.js';

describe('legacy module state file', () => {
  it('reads the complete-list shape', () => {
    const s = parseLegacyState('{"installed": ["tables", "poultry"]}', 'f.json');
    expect(s.complete).toBe(true);
    expect([...s.states]).toEqual([['tables', true], ['poultry', true]]);
    expect(s.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads the per-module shape with versions; modules entries win over the list', () => {
    const s = parseLegacyState('{"installed": ["forms"], "modules": {"forms": {"installed": false}, "swine": {"installed": true, "version": "2.1.0"}}}', 'f.json');
    expect(s.complete).toBe(true);
    expect(s.states.get('forms')).toBe(false);
    expect(s.versions.get('swine')).toBe('2.1.0');
    expect(parseLegacyState('{"modules": {}}', 'f.json').complete).toBe(false);
  });

  it.each([
    ['not json', /is not valid JSON/],
    ['[]', /is not a JSON object/],
    ['{}', /has neither "installed" nor "modules"/],
    ['{"installed": [1]}', /"installed" that is not an array/],
    ['{"modules": {"x": true}}', /modules\.x without a boolean "installed"/],
    ['{"modules": {"x": {"installed": true, "version": "2"}}}', /modules\.x\.version/],
  ])('refuses %s with a clear message', (text, message) => {
    expect(() => parseLegacyState(text, 'state.json')).toThrow(LegacyStateError);
    expect(() => parseLegacyState(text, 'state.json')).toThrow(message);
  });
});

describe('access audit', () => {
  it('keeps the newest 200, newest first, and filters exactly', () => {
    const audit = new AccessAudit();
    for (let i = 0; i < 250; i++) {
      audit.record({ operation: 'install', decision: i % 2 ? 'allow' : 'deny', reason: 'x', module_id: `m${i}`, requested_industry_code: null, module_industry_code: i % 5 ? null : 'swine', actor: 'a', tenant_id: null });
    }
    const all = audit.list();
    expect(all).toHaveLength(200);
    expect(all[0]?.module_id).toBe('m249');
    expect(all[199]?.module_id).toBe('m50');
    expect(audit.list({ decision: 'allow' }).every((e) => e.decision === 'allow')).toBe(true);
    expect(audit.list({ module_industry_code: 'swine' })).toHaveLength(40);
    expect(audit.list({ module_id: 'm3' })).toEqual([]);
  });
});

describe('module records', () => {
  it('derive routes and tables from the manifests, never typed twice', () => {
    for (const m of MODULES) {
      const r = moduleRecord(m, { installed: true, rules: m.permissions, migrations: [] });
      expect(r.backend.routes).toEqual(routePaths(m));
      expect(r.database.tables.map((t) => t.name)).toEqual(m.tables.map((t) => t.name));
      expect(r.version).toMatch(/^\d+\.\d+\.\d+$/);
      for (const d of m.dependencies) expect(d).not.toBe(m.id);
    }
  });
});
