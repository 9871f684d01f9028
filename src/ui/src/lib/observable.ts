// A small event bus and observable values for the whole shell (no state library needed). Free of
// Preact, so that code shared with the server's tests (lib/i18n.ts, lib/format.ts) carries no DOM types.

type Handler = (payload: unknown) => void;
const handlers = new Map<string, Set<Handler>>();

export function on(event: string, fn: Handler): () => void {
  let set = handlers.get(event);
  if (!set) handlers.set(event, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

export function emit(event: string, payload?: unknown): void {
  for (const fn of handlers.get(event) ?? []) fn(payload);
}

export interface Observable<T> {
  get(): T;
  set(value: T): void;
  subscribe(fn: (value: T) => void): () => void;
}

export function observable<T>(initial: T): Observable<T> {
  let value = initial;
  const subs = new Set<(value: T) => void>();
  return {
    get: () => value,
    set(next) {
      if (Object.is(next, value)) return;
      value = next;
      for (const fn of subs) fn(value);
    },
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
  };
}
