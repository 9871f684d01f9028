// Last known answers of GET requests, in local storage, for the one person logged in on this
// browser. It is a fallback only (the backend is the source of truth): used when the API does not
// answer, cleared at logout, and never shared between users, so a tablet handed to another
// tenant's operator cannot show the previous tenant's data.
const OWNER = 'cabinet.owner';
const PREFIX = 'cabinet.c.';
const INDEX = 'cabinet.index';
const MAX_ENTRIES = 120;

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

export function cacheOwner(): string | null {
  return storage()?.getItem(OWNER) ?? null;
}

/** Sets who the cache belongs to; a different person first clears everything kept so far. */
export function setCacheOwner(owner: string): void {
  const s = storage();
  if (!s) return;
  if (s.getItem(OWNER) !== owner) clearCache();
  s.setItem(OWNER, owner);
}

export function clearCache(): void {
  const s = storage();
  if (!s) return;
  for (const key of Object.keys(s)) if (key.startsWith('cabinet.')) s.removeItem(key);
}

function readIndex(s: Storage): string[] {
  try {
    return JSON.parse(s.getItem(INDEX) ?? '[]') as string[];
  } catch {
    return [];
  }
}

export function cachePut(path: string, data: unknown): void {
  const s = storage();
  if (!s || !s.getItem(OWNER)) return;
  const key = PREFIX + path;
  const index = readIndex(s).filter((k) => k !== key);
  index.push(key);
  while (index.length > MAX_ENTRIES) s.removeItem(index.shift() as string);
  try {
    s.setItem(key, JSON.stringify({ at: new Date().toISOString(), data }));
    s.setItem(INDEX, JSON.stringify(index));
  } catch {
    // storage full: drop the oldest half and carry on without caching this answer
    for (const k of index.splice(0, Math.ceil(index.length / 2))) s.removeItem(k);
    s.setItem(INDEX, JSON.stringify(index));
  }
}

export function cacheGet<T>(path: string): { at: string; data: T } | undefined {
  const s = storage();
  if (!s || !s.getItem(OWNER)) return undefined;
  try {
    const raw = s.getItem(PREFIX + path);
    return raw ? (JSON.parse(raw) as { at: string; data: T }) : undefined;
  } catch {
    return undefined;
  }
}

/** Small settings kept locally when the backend cannot store them (offline). */
export function localSetting<T>(name: string, value?: T): T | undefined {
  const s = storage();
  if (!s) return undefined;
  if (value !== undefined) s.setItem(`cabinet.s.${name}`, JSON.stringify(value));
  try {
    const raw = s.getItem(`cabinet.s.${name}`);
    return raw ? (JSON.parse(raw) as T) : undefined;
  } catch {
    return undefined;
  }
}
