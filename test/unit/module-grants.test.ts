import { describe, expect, it } from 'vitest';
import { grant, managed } from '../../src/kernel/module.js';
import { MODULES } from '../../src/modules/index.js';

describe('module grants', () => {
  it('managed: admins manage, operators read (and execute when they operate), security reads', () => {
    expect(managed(['a', 'b'], 'operate')).toEqual([
      { role: 'admin', resource: 'a', actions: ['read', 'create', 'update', 'delete', 'execute'] },
      { role: 'operator', resource: 'a', actions: ['read', 'execute'] },
      { role: 'security', resource: 'a', actions: ['read'] },
      { role: 'admin', resource: 'b', actions: ['read', 'create', 'update', 'delete', 'execute'] },
      { role: 'operator', resource: 'b', actions: ['read', 'execute'] },
      { role: 'security', resource: 'b', actions: ['read'] },
    ]);
    expect(managed('c', 'read').find((r) => r.role === 'operator')?.actions).toEqual(['read']);
  });

  it('grant: one rule per resource and role, in the order given, with copies of the actions', () => {
    const actions = ['read'] as const;
    const rules = grant('x', { security: actions, admin: ['read', 'update'] });
    expect(rules).toEqual([
      { role: 'security', resource: 'x', actions: ['read'] },
      { role: 'admin', resource: 'x', actions: ['read', 'update'] },
    ]);
    rules[0]!.actions.push('delete');
    expect(actions).toEqual(['read']);
  });

  it('no module grants a role twice on one resource, and every workspace resource is granted to all three roles', () => {
    for (const m of MODULES) {
      const seen = new Set<string>();
      for (const r of m.permissions) {
        const key = `${r.role}:${r.resource}`;
        expect(seen.has(key), `${m.id} grants ${key} twice`).toBe(false);
        seen.add(key);
      }
    }
    const poultry = MODULES.find((m) => m.id === 'poultry')!;
    const climate = poultry.permissions.filter((r) => r.resource === 'poultry-climate').map((r) => r.role).sort();
    expect(climate).toEqual(['admin', 'operator', 'security']);
  });
});
