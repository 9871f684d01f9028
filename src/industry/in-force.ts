// What is in force for a reading (a flock, its published phases, a room's climate bands, the
// alarm rules of a site) changes a few times a day but is needed by every reading, so the
// reading pipeline keeps it in memory instead of asking SQL again each time.
//
// Invalidation: every write that can change what is in force bumps the database's generation
// (inForceChanged): the versioning helper does it for every versioned table (climate phases,
// industry profiles, setpoints), the flock commands for flocks. An entry loaded under an older
// generation is not used. A write this process does not see (another cloud instance, a sync
// apply that writes rows directly) is picked up at the latest IN_FORCE_TTL_MS later: the
// bounded staleness is decision `in-force-cache` (src/kernel/decisions.ts).
//
// Concurrent readings of the same key share one load (the promise is cached), and a failed
// load is not kept. The map is bounded (a site has tens of houses and rooms, not thousands):
// past MAX_ENTRIES it is cleared, which only costs reloads.
import type { Database } from '../db/client.js';

export const IN_FORCE_TTL_MS = 5_000;
const MAX_ENTRIES = 5_000;

interface Entry { gen: number; at: number; value: Promise<unknown> }
interface Cache { gen: number; entries: Map<string, Entry> }

const caches = new WeakMap<Database, Cache>();
const cacheOf = (db: Database): Cache => {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = { gen: 0, entries: new Map() }));
  return c;
};

/** Something in force changed (call after the write committed): every cached entry is stale. */
export function inForceChanged(db: Database): void {
  const c = cacheOf(db);
  c.gen++;
  c.entries.clear();
}

/** The value of `key` in force: from memory when loaded under the current generation within the TTL, else `load()`. */
export function inForce<T>(db: Database, key: string, load: () => Promise<T>, now = Date.now()): Promise<T> {
  const c = cacheOf(db);
  const hit = c.entries.get(key);
  if (hit && hit.gen === c.gen && now - hit.at < IN_FORCE_TTL_MS) return hit.value as Promise<T>;
  const gen = c.gen;
  const value = load();
  if (c.entries.size >= MAX_ENTRIES) c.entries.clear();
  c.entries.set(key, { gen, at: now, value });
  value.catch(() => { if (c.entries.get(key)?.value === value) c.entries.delete(key); });
  return value;
}

/** A cache key from its parts (NUL-separated: ids never hold NUL). */
export const inForceKey = (...parts: (string | null | undefined)[]): string => parts.map((p) => p ?? '').join('\u0000');
