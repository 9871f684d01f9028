// The app's router: static paths answered from a table, every other path by Hono's RegExpRouter.
// Hono's default (SmartRouter) tries RegExpRouter and falls back to the slower TrieRouter for the
// whole app when any two routes share a segment as literal and as parameter, which every
// resource does (`/x/list` and `/x/{id}`). Here the parameter routes alone go to RegExpRouter,
// which accepts them, and each static path's answer is built once from the static routes of that
// path and the parameter routes that also match it. A match is the same list of handlers, in
// the same (registration) order, that Hono's own routers give. The parameter routes matching a
// static path are found by comparing segments (every parameter route here is literal segments,
// `:name` segments or the `*` middleware), so answering a static path (`/ready`, a list) does not
// build RegExpRouter's matcher for every parameter route: the first request to a parameter path
// does. A route of any other form sends static paths to RegExpRouter too.
import { SmartRouter } from 'hono/router/smart-router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { TrieRouter } from 'hono/router/trie-router';
import type { ParamIndexMap, Params, Result, Router } from 'hono/router';

type Entry<T> = [T, ParamIndexMap | Params];

const isStatic = (path: string) => !/[*:?{]/.test(path);

/** A parameter route as segments (`:name` a parameter), `true` for the whole-path wildcard, undefined for any other form. */
function simplePattern(path: string): string[] | true | undefined {
  if (path === '*' || path === '/*') return true;
  const segments = path.split('/');
  return segments.every((s) => !/[*:?{}()]/.test(s) || /^:\w+$/.test(s)) ? segments : undefined;
}

/** The parameters of a static path matched by a pattern's segments, or undefined when it does not match. */
function matchSegments(pattern: readonly string[], segments: readonly string[]): Params | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Params = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const s = segments[i] as string;
    if (p.charCodeAt(0) === 58 /* : */) {
      if (s === '') return undefined;
      params[p.slice(1)] = s;
    } else if (p !== s) return undefined;
  }
  return params;
}

export class StaticFirstRouter<T> implements Router<T> {
  name = 'StaticFirstRouter';
  private readonly dynamic = new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
  private readonly order = new Map<T, number>();
  private readonly statics = new Map<string, { method: string; handler: T }[]>();
  private readonly resolved = new Map<string, Map<string, Result<T>>>();
  /** The parameter routes by segments while all are of the simple form, else undefined. */
  private patterns: { method: string; handler: T; pattern: string[] | true }[] | undefined = [];
  private built = false;

  add(method: string, path: string, handler: T): void {
    if (this.built) throw new Error('Can not add a route since the matcher is already built.');
    this.order.set(handler, this.order.size);
    if (!isStatic(path)) {
      const pattern = simplePattern(path);
      if (pattern) this.patterns?.push({ method, handler, pattern });
      else this.patterns = undefined;
      return this.dynamic.add(method, path, handler);
    }
    let list = this.statics.get(path);
    if (!list) this.statics.set(path, (list = []));
    list.push({ method, handler });
  }

  match(method: string, path: string): Result<T> {
    this.built = true;
    const own = this.statics.get(path);
    if (!own) return this.dynamic.match(method, path);
    let byPath = this.resolved.get(method);
    if (!byPath) this.resolved.set(method, (byPath = new Map()));
    let result = byPath.get(path);
    if (!result) byPath.set(path, (result = this.merge(method, path, own)));
    return result;
  }

  /** The static routes of `path` for `method` and the parameter routes matching it, in registration order. */
  private merge(method: string, path: string, own: { method: string; handler: T }[]): Result<T> {
    const dyn = this.patterns ? [this.matchPatterns(this.patterns, method, path)] as Result<T> : this.dynamic.match(method, path);
    const entries: Entry<T>[] = [
      ...own.filter((r) => r.method === method || r.method === 'ALL').map((r): Entry<T> => [r.handler, {}]),
      ...(dyn[0] as Entry<T>[]),
    ];
    entries.sort((a, b) => (this.order.get(a[0]) as number) - (this.order.get(b[0]) as number));
    return (dyn.length > 1 && dyn[1] ? [entries as [T, ParamIndexMap][], dyn[1]] : [entries as [T, Params][]]) as Result<T>;
  }

  /** The parameter routes matching a static path, compared segment by segment (as RegExpRouter would match them). */
  private matchPatterns(patterns: NonNullable<typeof this.patterns>, method: string, path: string): [T, Params][] {
    const segments = path.split('/');
    const out: [T, Params][] = [];
    for (const r of patterns) {
      if (r.method !== method && r.method !== 'ALL') continue;
      const params = r.pattern === true ? {} : matchSegments(r.pattern, segments);
      if (params) out.push([r.handler, params]);
    }
    return out;
  }
}
