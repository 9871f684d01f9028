// The registry as the manifests declare it: every module installed, permission rules as
// written. Replaced by the persistent registry (install state and rule updates in SQL).
import type { ModuleManifest } from '../../../kernel/module.js';
import type { ModuleRegistry } from '../../../kernel/context.js';

export function staticRegistry(modules: readonly ModuleManifest[]): ModuleRegistry {
  const grants = new Set(modules.flatMap((m) => m.permissions.flatMap((r) => r.actions.map((a) => `${r.role}\n${r.resource}\n${a}`))));
  return {
    states: () => modules.map((m) => ({ id: m.id, version: m.version, core: m.core, installed: true })),
    isInstalled: (id) => modules.some((m) => m.id === id),
    manifests: () => modules,
    allows: (role, resource, action) => grants.has(`${role}\n${resource}\n${action}`) || grants.has(`${role}\n${resource}\n*`),
  };
}
