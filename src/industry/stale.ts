// Stale readings: a climate reading answered by the API says how old it is (age_s, seconds since
// its ts at answer time) and whether it is older than stale_after_s, so no screen presents an
// old value as the climate now. Computed at every read, never stored.
import type { AnyRoute } from '../kernel/route.js';
import type { FieldSpec } from '../kernel/resource.js';

/** The two fields a reading record declares (column: false: computed when answered). */
export const staleFields = {
  age_s: { type: 'integer', label: 'Age', readOnly: true, column: false, description: 'Seconds since ts when the answer was made.', ui: { unit: 's' } },
  stale: { type: 'boolean', label: 'Stale', readOnly: true, column: false, description: 'true when age_s is above stale_after_s (default 300): not the climate now.', ui: { badge: true } },
} as const satisfies Record<string, FieldSpec>;

export function ageOf(ts: string, staleAfterS: number, now = Date.now()): { age_s: number; stale: boolean } {
  const age = Math.max(0, Math.floor((now - Date.parse(ts)) / 1000));
  return { age_s: age, stale: age > staleAfterS };
}

const withAge = (item: unknown, staleAfterS: number, now: number): unknown => {
  if (!item || typeof item !== 'object' || typeof (item as { ts?: unknown }).ts !== 'string') return item;
  return { ...item, ...ageOf((item as { ts: string }).ts, staleAfterS, now) };
};

/** The resource's list and {id} routes with age_s and stale on every item. */
export function staleAware(routes: AnyRoute[], base: string): AnyRoute[] {
  return routes.map((r) => {
    if (r.method !== 'get' || (r.path !== `${base}/list` && r.path !== `${base}/{id}`)) return r;
    return {
      ...r,
      handler: async (ctx) => {
        const out = await r.handler(ctx);
        const now = Date.now();
        const limit = ctx.services.config.stale_after_s;
        if (r.path.endsWith('/list')) {
          const page = out as { items: unknown[] };
          return { ...page, items: page.items.map((i) => withAge(i, limit, now)) };
        }
        return withAge(out, limit, now);
      },
    } as AnyRoute;
  });
}
