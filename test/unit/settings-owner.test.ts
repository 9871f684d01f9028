// Walks every module's tables and route declarations so a write of installation-wide state cannot
// forget its owner: a table without a tenant key must be classified here, and every write route of
// a module that holds installation-wide state must declare whose state it changes. The guard reads
// the same declarations (src/kernel/scope.ts), so what this test sees is what is enforced.
import { describe, expect, it } from 'vitest';
import { MODULES } from '../../src/modules/index.js';
import { ownerOf, ownerStatement, requiredScope } from '../../src/kernel/scope.js';
import { buildOpenApi } from '../../src/kernel/openapi.js';
import type { AnyRoute } from '../../src/kernel/route.js';

/** Tables every tenant shares: only the installation's owner may change them. */
const INSTALLATION_WIDE: Record<string, string> = {
  module_installs: 'which modules are installed, for every tenant',
  permission_overrides: 'the role rules of a module, for every tenant',
  registry_imports: 'the one-time legacy import (written at start-up only, no route)',
  sla_profiles: 'SLA profiles of the fleet (a master group)',
  releases: 'the fleet\'s software releases (master scope only)',
  release_packages: 'the packages of the fleet\'s releases (master scope only)',
  release_chunks: 'the bytes of those packages (master scope only)',
  release_rollouts: 'the rollouts of the fleet\'s releases (master scope only)',
};

/** Tables without a tenant_id column that are keyed by something narrower than the installation. */
const KEYED_OTHERWISE: Record<string, string> = {
  idempotency_keys: 'per caller (principal)',
  auth_revoked_sessions: 'per session id',
  auth_challenges: 'per login challenge',
  status_sequence: 'a counter that numbers status events; carries no setting',
  telemetry_points: 'per series; telemetry_series carries the tenant',
  telemetry_points_recent: 'per series, the points waiting to be settled into telemetry_points (no route writes it)',
  telemetry_rollups: 'per series; telemetry_series carries the tenant',
  sync_outbox: 'the box\'s own outbox, written by the sync engine only (no route)',
  sync_state: 'the box\'s own sync position, written by the sync engine only (no route)',
};

const writes = (routes: readonly AnyRoute[]) => routes.filter((r) => r.method !== 'get' && !('public' in r.access));
const name = (r: AnyRoute) => `${r.method.toUpperCase()} ${r.path}`;

describe('settings have an owner', () => {
  it('classifies every table without a tenant key', () => {
    const unclassified = MODULES.flatMap((m) => m.tables)
      .filter((t) => !('tenant_id' in t.columns))
      .map((t) => t.name)
      .filter((n) => !(n in INSTALLATION_WIDE) && !(n in KEYED_OTHERWISE));
    // A new table without tenant_id: decide whether every tenant shares it, and say so above.
    expect(unclassified).toEqual([]);
    const known = new Set(MODULES.flatMap((m) => m.tables.map((t) => t.name)));
    expect([...Object.keys(INSTALLATION_WIDE), ...Object.keys(KEYED_OTHERWISE)].filter((n) => !known.has(n))).toEqual([]);
  });

  it('every write route of a module holding installation-wide state declares its owner or needs the master scope', () => {
    const holders = MODULES.filter((m) => m.tables.some((t) => t.name in INSTALLATION_WIDE));
    expect(holders.map((m) => m.id).sort()).toEqual(['core', 'releases', 'sla-profiles']);
    const undeclared = holders.flatMap((m) => writes(m.routes)).filter((r) => ownerOf(r) === undefined && requiredScope(r) !== 'master').map(name);
    expect(undeclared).toEqual([]);
  });

  it('declares the contract\'s installation-wide operations as owned by the installation', () => {
    const all = MODULES.flatMap((m) => m.routes);
    const find = (method: string, path: string) => all.find((r) => r.method === method && r.path === path) as AnyRoute;
    for (const path of ['/api/v1/modules/commands/install', '/api/v1/modules/commands/uninstall', '/api/v1/modules/permissions/commands/update']) {
      expect(ownerOf(find('post', path)), path).toBe('installation');
      expect(requiredScope(find('post', path)), path).toBe('master');
    }
    // Per-tenant settings: a tenant changes its own records, so they stay open to tenant sessions.
    for (const path of ['/api/v1/modules/site-policy/commands/set', '/api/v1/auth/ui-access/commands/update']) {
      expect(ownerOf(find('post', path)), path).toBe('tenant');
      expect(requiredScope(find('post', path)), path).toBe('any');
    }
  });

  it('never asks for an owner the scope groups contradict, and never on a read', () => {
    for (const r of MODULES.flatMap((m) => m.routes).filter((x) => ownerOf(x) !== undefined)) {
      expect(r.method, name(r)).not.toBe('get');
      // A tenant group (poultry-*, swine-*, ...) needs a tenant session: an installation owner there could never be met.
      if (ownerOf(r) === 'installation') expect(r.path, name(r)).not.toMatch(/^\/api\/v1\/(industry-|melioration-|poultry-|swine-)/);
    }
  });

  it('states who may call each owned operation in the OpenAPI document', () => {
    const routes = MODULES.flatMap((m) => m.routes);
    const doc = buildOpenApi(routes, { version: 'test' }) as { paths: Record<string, Record<string, { description?: string; 'x-permission'?: { owner?: string }; responses: Record<string, { content?: { 'application/json': { schema: { allOf: [unknown, { properties: { error: { properties: { code: { enum: string[] } } } } }] } } } }> }>> };
    const owned = routes.filter((r) => ownerOf(r) !== undefined);
    expect(owned.length).toBeGreaterThanOrEqual(5);
    for (const r of owned) {
      const op = doc.paths[r.path]![r.method]!;
      expect(op.description, name(r)).toContain(ownerStatement(r) as string);
      expect(op['x-permission']?.owner, name(r)).toBe(ownerOf(r));
      if (ownerOf(r) === 'installation') {
        const codes = op.responses['403']!.content!['application/json'].schema.allOf[1].properties.error.properties.code.enum;
        expect(codes, name(r)).toContain('scope_boundary_denied');
      }
    }
  });
});
