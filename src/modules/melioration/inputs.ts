// Input pieces shared by the melioration commands: valibot schemas for ids, amounts and times,
// and the checks valibot cannot make alone (readings from the future, the caller's site).
import type { Config } from '../../config.js';
import { siteDay, siteTimeZone } from '../../industry/site-day.js';
import * as v from 'valibot';
import { ApiError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/context.js';
import { STATION_HEALTH } from './health.js';
import { ownerSite as boundWriteSite } from '../../kernel/tenancy.js';

export const ident = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
export const text = v.pipe(v.string(), v.maxLength(2000));
/** A finite number within [min, max]: negative millimetres and the like are refused here. */
export const num = (min: number, max: number) => v.pipe(v.number(), v.finite(), v.minValue(min), v.maxValue(max));
export const opt = <T extends v.GenericSchema>(s: T) => v.optional(v.nullable(s));
export const timestamp = v.pipe(v.string(), v.isoTimestamp());
export const dayString = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/),
  v.check((s) => new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s, 'not a calendar day'),
);

const future = (field: string, message: string) => new ApiError('validation_error', message, [{ field, reason: 'in_future' }]);

/** A reading observed after now (beyond the allowed clock skew) is refused. */
export function notFuture(field: string, iso: string, now: Date): void {
  if (Date.parse(iso) > now.getTime() + STATION_HEALTH.future_skew_sec * 1000) {
    throw future(field, `${field} ${iso} is in the future (now ${now.toISOString()})`);
  }
}

export function dayNotFuture(field: string, day: string, now: Date, config: Config): void {
  const today = siteDay(now, config).date;
  if (day > today) throw future(field, `${field} ${day} is in the future (today is ${today} at the site, ${siteTimeZone(config)})`);
}

/** The site's day of a timestamp (setting site_timezone; UTC when not set), as poultry ages count. */
export const dayOf = (iso: string, config: Config) => siteDay(new Date(Date.parse(iso)), config).date;

/** The site a write is for (the session's site when bound, see kernel/tenancy.ts ownerSite); required. */
export function writeSite(caller: Caller | undefined, named: string | null | undefined, field = 'item.site_id'): string {
  const site = boundWriteSite(caller, named);
  if (!site) throw new ApiError('validation_error', `${field} is required`, [{ field, reason: 'required' }]);
  return site;
}
