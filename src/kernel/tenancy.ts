// Whose rows a write belongs to: a tenant caller always acts for its own tenant (the access
// guard has already refused any other tenant it named); a master caller may name one, or none.
import type { Caller } from './context.js';

export function ownerTenant(caller: Caller | undefined, named: string | null | undefined): string | null {
  return caller?.scope_type === 'tenant' ? (caller.tenant_id ?? null) : (named ?? null);
}
