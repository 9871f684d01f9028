// The service worker: the shell (page and assets) is precached, so a reload during an outage
// shows the shell (which then shows the last known data, marked stale) instead of a browser error.
// Navigations and shell files: network first, cache as the fallback (a new build replaces them);
// the API is never cached here (the page keeps its own last-known answers per user).
// __CABINET_PRECACHE__ and __CABINET_VERSION__ are filled in by src/ui/build-ui.mjs.

interface ExtendableEventLike extends Event { waitUntil(p: Promise<unknown>): void }
interface FetchEventLike extends ExtendableEventLike { request: Request; respondWith(r: Promise<Response> | Response): void }
interface SwScope {
  addEventListener(type: 'install' | 'activate', fn: (e: ExtendableEventLike) => void): void;
  addEventListener(type: 'fetch', fn: (e: FetchEventLike) => void): void;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  location: Location;
}

const sw = self as unknown as SwScope;
const VERSION = '__CABINET_VERSION__';
const PRECACHE: string[] = '__CABINET_PRECACHE__' as unknown as string[];
const CACHE = `cabinet-shell-${VERSION}`;

sw.addEventListener('install', (e) => {
  e.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(PRECACHE))
      .then(() => sw.skipWaiting()),
  );
});

sw.addEventListener('activate', (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('cabinet-shell-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => sw.clients.claim()),
  );
});

sw.addEventListener('fetch', (e) => {
  const req = e.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== sw.location.origin) return;
  if (url.pathname !== '/' && !url.pathname.startsWith('/app/')) return;
  const key = url.pathname;
  e.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok) {
          const copy = res.clone();
          void caches.open(CACHE).then((c) => c.put(key, copy));
        }
        return res;
      })
      // i18n-ok: the service worker has no catalogue; a browser answer for a page never cached, no screen of ours
      .catch(async () => (await caches.match(key)) ?? new Response('cabinet: offline and this page is not cached yet', { status: 503, headers: { 'content-type': 'text/plain' } })),
  );
});
