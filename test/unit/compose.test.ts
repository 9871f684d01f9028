// The composition root (src/compose.ts) with fake manifests through the same functions the
// server uses: start order follows the declared dependencies and services, stop order is the
// reverse, a failing runtime does not stop the others unless it is required, a runtime gets
// exactly what it declared, and the shared services are on the bag before the first runtime.
import { describe, expect, it } from 'vitest';
import { composeServices, Runtimes, StartupError, startOrder } from '../../src/compose.js';
import { defineModule, defineRuntime, type NeedName, type RuntimeDeclaration, type ServiceName } from '../../src/kernel/module.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/kernel/logger.js';
import { EventBus } from '../../src/realtime/bus.js';
import type { Services } from '../../src/kernel/context.js';
import type { StatusService } from '../../src/modules/status/service.js';
import { MODULES } from '../../src/modules/index.js';

type Line = Record<string, unknown>;

function fake(id: string, dependencies: string[], runtime?: RuntimeDeclaration) {
  return defineModule({
    id, name: id, description: id, version: '1.0.0', core: false, dependencies, industry_code: null, industry_scope: 'global',
    key_entity: null, provides_enrichment_for: [], routes: [], tables: [], permissions: [], ...(runtime ? { runtime } : {}),
  });
}

/** A runtime that writes `start:<id>` / `stop:<id>` to the journal and may fail or provide. */
function recorded<N extends NeedName>(journal: string[], id: string, opts: { needs?: readonly N[]; fail?: boolean; required?: boolean; provides?: readonly ServiceName[]; value?: Partial<Services> } = {}): RuntimeDeclaration {
  return defineRuntime({
    needs: opts.needs ?? [],
    provides: opts.provides ?? [],
    required: opts.required ?? false,
    create() {
      return {
        async start() {
          journal.push(`start:${id}`);
          if (opts.fail) throw new Error(`${id} is broken`);
          return (opts.value ?? {}) as never;
        },
        async stop() {
          journal.push(`stop:${id}`);
        },
      };
    },
  });
}

function compose(catalogue: ReturnType<typeof fake>[]) {
  const logs: Line[] = [];
  const log = createLogger('debug', (line) => logs.push(JSON.parse(line) as Line));
  const config = loadConfig({ data_dir: '/nonexistent', mqtt_broker: 'off' }, {});
  const { services } = composeServices({ config, log, lifecycle: { state: 'starting' }, catalogue, openapiYaml: () => '' });
  return { services, logs, runtimes: new Runtimes(services, catalogue) };
}

const status = (tag: string): StatusService => ({ tag } as unknown as StatusService);

describe('composition root', () => {
  it('starts runtimes after their module dependencies and the providers of what they need; stops in reverse', async () => {
    const journal: string[] = [];
    // Catalogue order puts every consumer before its provider.
    const catalogue = [
      fake('consumer', [], recorded(journal, 'consumer', { needs: ['status'] })),
      fake('child', ['parent'], recorded(journal, 'child')),
      fake('plain', []),
      fake('parent', ['provider'], recorded(journal, 'parent')),
      fake('provider', [], recorded(journal, 'provider', { provides: ['status'], value: { status: status('from provider') } })),
    ];
    expect(startOrder(catalogue).map((e) => e.id)).toEqual(['provider', 'consumer', 'parent', 'child']);
    const { runtimes, services } = compose(catalogue);
    await runtimes.start();
    expect(journal).toEqual(['start:provider', 'start:consumer', 'start:parent', 'start:child']);
    expect(services.status).toEqual({ tag: 'from provider' });
    journal.length = 0;
    await runtimes.stop();
    expect(journal).toEqual(['stop:child', 'stop:parent', 'stop:consumer', 'stop:provider']);
  });

  it('a runtime receives exactly the services it declared, the provided ones included', async () => {
    let seen: Record<string, unknown> | undefined;
    const catalogue = [
      fake('reader', [], defineRuntime({
        needs: ['bus', 'status'],
        create(deps) {
          seen = { ...deps };
          return {};
        },
      })),
      fake('provider', [], recorded([], 'provider', { provides: ['status'], value: { status: status('s') } })),
    ];
    const { runtimes, services } = compose(catalogue);
    await runtimes.start();
    expect(Object.keys(seen ?? {}).sort()).toEqual(['bus', 'status']);
    expect(seen?.bus).toBe(services.bus);
    expect(seen?.status).toEqual({ tag: 's' });
  });

  it('the shared services are built before the first runtime starts', async () => {
    let bag: Record<string, unknown> | undefined;
    const catalogue = [fake('first', [], defineRuntime({
      needs: ['services'],
      create({ services }) {
        return {
          async start() {
            bag = { bus: services.bus, audit: services.audit, alarms: services.alarms, field: services.field, modules: services.modules };
          },
        };
      },
    }))];
    const { runtimes } = compose(catalogue);
    await runtimes.start();
    expect(bag?.bus).toBeInstanceOf(EventBus);
    for (const name of ['audit', 'alarms', 'field', 'modules']) expect(bag?.[name], name).toBeTypeOf('object');
    expect(bag?.field).toHaveProperty('execute');
    expect(bag?.alarms).toHaveProperty('raise');
    await runtimes.stop();
  });

  it('a runtime that fails to start is logged and the rest go on; what needed its service is not started', async () => {
    const journal: string[] = [];
    const catalogue = [
      fake('broken', [], recorded(journal, 'broken', { fail: true, provides: ['status'] })),
      fake('dependent', [], recorded(journal, 'dependent', { needs: ['status'] })),
      fake('fine', [], recorded(journal, 'fine')),
    ];
    const { runtimes, logs } = compose(catalogue);
    await runtimes.start();
    expect(journal).toEqual(['start:broken', 'start:fine']);
    const failed = logs.filter((l) => l.msg === 'module failed to start; the others go on').map((l) => `${String(l.module)}: ${String(l.error)}`);
    expect(failed).toEqual(['broken: broken is broken', 'dependent: needs the status service, which is not running']);
    journal.length = 0;
    await runtimes.stop();
    expect(journal).toEqual(['stop:fine']);
  });

  it('a required runtime that fails stops start-up; the started ones can still be stopped', async () => {
    const journal: string[] = [];
    const catalogue = [
      fake('early', [], recorded(journal, 'early')),
      fake('vital', [], recorded(journal, 'vital', { fail: true, required: true })),
      fake('late', [], recorded(journal, 'late')),
    ];
    const { runtimes } = compose(catalogue);
    await expect(runtimes.start()).rejects.toThrow(StartupError);
    expect(journal).toEqual(['start:early', 'start:vital']);
    await runtimes.stop();
    expect(journal.at(-1)).toBe('stop:early');
  });

  it('a dependency cycle stops start-up with the modules named', () => {
    const catalogue = [fake('a', ['b'], recorded([], 'a')), fake('b', ['a'], recorded([], 'b'))];
    expect(() => startOrder(catalogue)).toThrow(/cycle: a \(after b\); b \(after a\)/);
  });

  it('the real catalogue: no cycle, each service provided once, providers before consumers', () => {
    const order = startOrder(MODULES).map((e) => e.id);
    const at = (id: string) => order.indexOf(id);
    const providers = MODULES.flatMap((m) => m.runtime?.provides ?? []);
    expect(new Set(providers).size).toBe(providers.length);
    expect(at('core')).toBe(0);
    for (const m of MODULES) {
      if (!m.runtime) continue;
      for (const need of m.runtime.needs) {
        const provider = MODULES.find((p) => p.runtime?.provides.includes(need as ServiceName));
        if (provider) expect(at(provider.id), `${m.id} needs ${need}`).toBeLessThan(at(m.id));
      }
      for (const dep of m.dependencies) if (order.includes(dep)) expect(at(dep), `${m.id} after ${dep}`).toBeLessThan(at(m.id));
    }
    // Nothing waits for a service to appear: the bus and the audit are the root's, not a runtime's.
    expect(providers).not.toContain('bus');
    expect(providers).not.toContain('audit');
    expect(providers).not.toContain('alarms');
    expect(providers).not.toContain('field');
  });

  it('rpc_port takes off (no listener) besides a port number; anything else is refused', () => {
    expect(loadConfig({ rpc_port: 'off' }, {}).rpc_port).toBe('off');
    expect(loadConfig({ rpc_port: '8082' }, {}).rpc_port).toBe(8082);
    expect(() => loadConfig({ rpc_port: 'of' }, {})).toThrow(ConfigError);
    expect(() => loadConfig({ rpc_port: '70000' }, {})).toThrow(/or off/);
  });
});
