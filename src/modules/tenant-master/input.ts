// Input pieces shared by the master modules (tenant-master, subscriptions, sla-profiles,
// version-policies, tenant-master-sync): bounded strings and identifiers.
import * as v from 'valibot';

export const short = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));
/** Tenant, site, subscription and policy ids: what may appear in a URL path segment. */
export const ident = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'an id: 1-128 of A-Z a-z 0-9 . _ : - (starting with a letter or digit)'));
