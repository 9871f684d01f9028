// The app's router against Hono's TrieRouter (the router Hono fell back to for this route set):
// for every route of every module, on its own path, a sibling literal and a miss, the same
// handlers in the same order with the same parameters.
import { describe, expect, it } from 'vitest';
import { TrieRouter } from 'hono/router/trie-router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import type { Result } from 'hono/router';
import { StaticFirstRouter } from '../../src/kernel/router.js';
import { allRoutes } from '../../src/app.js';
import { honoPath } from '../../src/kernel/route.js';
import { MODULES } from '../../src/modules/index.js';

/** A match as handler ids with their parameters, whichever format the router answers in. */
function resolved(r: Result<string>): [string, Record<string, string>][] {
  const [entries, stash] = r as [[string, Record<string, string | number>][], string[] | undefined];
  return entries.map(([h, map]) => [h, Object.fromEntries(Object.entries(map).map(([k, v]) => [k, stash ? (stash[v as number] as string) : (v as string)]))]);
}

const routes = allRoutes(MODULES).map((r) => ({ method: r.method.toUpperCase(), path: honoPath(r.path) }));
// The app's own middleware first, a literal route registered after a parameter route it also
// matches, and a route for every method, as registration order decides the winner.
const table = [
  { method: 'ALL', path: '*' },
  ...routes,
  { method: 'GET', path: '/api/v1/late/:id' },
  { method: 'GET', path: '/api/v1/late/list' },
  { method: 'ALL', path: '/api/v1/any' },
];

function build<R extends { add(m: string, p: string, h: string): void }>(router: R): R {
  table.forEach((r, i) => router.add(r.method, r.path, `${i} ${r.method} ${r.path}`));
  return router;
}

describe('StaticFirstRouter', () => {
  it('is needed: RegExpRouter alone refuses this route set', () => {
    expect(() => build(new RegExpRouter<string>()).match('GET', '/x')).toThrow(/UnsupportedPath|\/api\/|\/app\//);
  });

  it('matches exactly what TrieRouter matches, in the same order', () => {
    const ours = build(new StaticFirstRouter<string>());
    const trie = build(new TrieRouter<string>());
    const paths = new Set<string>(['/', '/health', '/nowhere', '/api/v1/late/list', '/api/v1/late/7', '/api/v1/any']);
    // (A literal `*` in a request path is left out: TrieRouter answers it with the `*` route twice.)
    for (const r of table.filter((t) => !t.path.includes('*'))) {
      const concrete = r.path.replace(/:(\w+)/g, 'v-$1');
      paths.add(concrete);
      paths.add(concrete.replace(/\/[^/]*$/, '/list'));
      paths.add(`${concrete}/extra`);
    }
    let compared = 0;
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT']) {
      for (const path of paths) {
        expect(resolved(ours.match(method, path)), `${method} ${path}`).toEqual(resolved(trie.match(method, path)));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1000);
    // A literal route registered after a parameter route that matches it does not win.
    expect(resolved(ours.match('GET', '/api/v1/late/list')).map(([h]) => h.split(' ')[2])).toEqual(['*', '/api/v1/late/:id', '/api/v1/late/list']);
    expect(resolved(ours.match('GET', '/api/v1/tables/7'))[1]).toEqual([expect.stringContaining('/api/v1/tables/:id'), { id: '7' }]);
  });

  it('answers a static path without building the parameter routes\' matcher', () => {
    const ours = build(new StaticFirstRouter<string>());
    const dynamic = (ours as unknown as { dynamic: { match: (m: string, p: string) => unknown } }).dynamic;
    let built = 0;
    const match = dynamic.match.bind(dynamic);
    dynamic.match = (m, p) => { built++; return match(m, p); };
    expect(resolved(ours.match('GET', '/ready')).map(([h]) => h.split(' ')[2])).toEqual(['*', '/ready']);
    expect(resolved(ours.match('GET', '/api/v1/late/list')).map(([h]) => h.split(' ')[2])).toEqual(['*', '/api/v1/late/:id', '/api/v1/late/list']);
    expect(built).toBe(0);
    expect(resolved(ours.match('GET', '/api/v1/late/7'))).toEqual([[expect.stringContaining('*'), {}], [expect.stringContaining('/api/v1/late/:id'), { id: '7' }]]);
    expect(built).toBe(1);
  });

  it('with a route of another form, matches static paths through Hono\'s router, as TrieRouter does', () => {
    const extra = [{ method: 'GET', path: '/files/:name{.+\\.png}' }, { method: 'GET', path: '/files/list' }, { method: 'GET', path: '/files/a.png' }];
    const make = <R extends { add(m: string, p: string, h: string): void }>(router: R): R => {
      build(router);
      extra.forEach((r, i) => router.add(r.method, r.path, `x${i} ${r.method} ${r.path}`));
      return router;
    };
    const ours = make(new StaticFirstRouter<string>());
    const trie = make(new TrieRouter<string>());
    for (const path of ['/files/list', '/files/a.png', '/ready', '/api/v1/late/list']) {
      expect(resolved(ours.match('GET', path)), path).toEqual(resolved(trie.match('GET', path)));
    }
    expect(resolved(ours.match('GET', '/files/a.png')).map(([h]) => h.split(' ')[2])).toEqual(['*', '/files/:name{.+\\.png}', '/files/a.png']);
  });

  it('refuses routes added after the first match, like Hono routers', () => {
    const ours = build(new StaticFirstRouter<string>());
    ours.match('GET', '/health');
    expect(() => ours.add('GET', '/later', 'x')).toThrow(/already built/);
  });
});
