// Every change to a channel or rule is an audit record, as other resources' changes are:
// <prefix>.create, <prefix>.update, <prefix>.delete (resource notification-channels or
// notification-rules, correlation_id the request id). The kernel's resource routes have no audit
// hook, so the create, PATCH and DELETE routes are wrapped here: the record is written after the
// change succeeded (a refused change is not audited as done; the answer already says why).
// Details are built from the answer's item, which never carries a secret, and from the names of
// the fields a PATCH sent: a secret field is named (smtp_password: "set" or "removed"), never its value.
import type { AnyRoute, HandlerContext } from '../../kernel/route.js';

/** Fields whose values never go into the audit, only whether they were set or removed. */
const SECRET_FIELDS = new Set(['smtp_password', 'webhook_key']);
/** Bookkeeping the audit does not need. */
const SKIP = new Set(['updated_at', 'has_secret']);

type Item = Record<string, unknown>;
const bodyItem = (ctx: HandlerContext<unknown>): Item => ((ctx.body as { item?: Item } | undefined)?.item ?? {});

/** The changed fields of a PATCH: their new values from the (secret-free) item, a secret's as set or removed. */
function changes(sent: Item, item: Item): Item {
  const out: Item = {};
  for (const [k, value] of Object.entries(sent)) {
    if (value === undefined) continue;
    out[k] = SECRET_FIELDS.has(k) ? (value === null ? 'removed' : 'set') : item[k];
  }
  return out;
}

const settingsOf = (item: Item): Item => Object.fromEntries(Object.entries(item).filter(([k]) => !SKIP.has(k) && !SECRET_FIELDS.has(k)));

export function audited(routes: AnyRoute[], resource: string, prefix: string): AnyRoute[] {
  const base = `/api/v1/${resource}`;
  const actionOf = (r: AnyRoute): string | undefined =>
    r.method === 'post' && r.path === base ? 'create'
      : r.method === 'patch' && r.path === `${base}/{id}` ? 'update'
        : r.method === 'delete' && r.path === `${base}/{id}` ? 'delete' : undefined;
  return routes.map((route) => {
    const op = actionOf(route);
    if (!op) return route;
    const action = `${prefix}.${op}`;
    return {
      ...route,
      description: [route.description, `Audited as ${action} (no secret in its details).`].filter(Boolean).join(' '),
      handler: async (ctx: HandlerContext<unknown>) => {
        const item = (await route.handler(ctx)) as Item;
        const details = op === 'create' ? { ...settingsOf(item), ...(item.has_secret === true ? { secret: 'set' } : {}) }
          : op === 'update' ? { id: item.id, name: item.name, changed: changes(bodyItem(ctx), item) }
            : { id: item.id, name: item.name };
        await ctx.services.audit.record({
          actor: ctx.caller?.subject ?? 'system', action, resource, result: 'success', correlation_id: ctx.requestId,
          tenant_id: typeof item.tenant_id === 'string' ? item.tenant_id : null, details,
        });
        return item;
      },
    };
  });
}
