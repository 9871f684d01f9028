// Hash routes: #/ (the workspace), #/dashboard, #/m/<module>, #/r/<resource path>[?id=..],
// #/settings, #/house/<id>, #/alarms. Hash routing works from the service worker's cached page.
import { observable } from './observable';

export interface Route { name: string; params: Record<string, string> }

export function parse(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const [path = '/', q = ''] = raw.split('?');
  const params = Object.fromEntries(new URLSearchParams(q));
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [head, ...rest] = parts;
  if (!head) return { name: 'home', params };
  if (head === 'r') return { name: 'resource', params: { ...params, path: rest.join('/') } };
  if (head === 'm') return { name: 'module', params: { ...params, id: rest[0] ?? '' } };
  if (head === 'house') return { name: 'house', params: { ...params, id: rest[0] ?? '' } };
  return { name: head, params };
}

export const route = observable<Route>(parse(location.hash));
window.addEventListener('hashchange', () => route.set(parse(location.hash)));

export function href(name: string, arg?: string, params?: Record<string, string>): string {
  const q = params && Object.keys(params).length ? `?${new URLSearchParams(params).toString()}` : '';
  if (name === 'home') return `#/${q}`;
  if (name === 'resource') return `#/r/${(arg ?? '').split('/').map(encodeURIComponent).join('/')}${q}`;
  if (name === 'module') return `#/m/${encodeURIComponent(arg ?? '')}${q}`;
  if (name === 'house') return `#/house/${encodeURIComponent(arg ?? '')}${q}`;
  return `#/${name}${q}`;
}

export function navigate(to: string): void {
  if (location.hash === to) route.set(parse(to));
  else location.hash = to;
}
