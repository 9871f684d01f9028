// Body pieces shared by the channel and rule resources.
import * as v from 'valibot';

export const ident = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'an id: 1-128 of A-Z a-z 0-9 . _ : - (starting with a letter or digit)'));
export const short = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));
export const opt = <T extends v.GenericSchema>(s: T) => v.optional(v.nullable(s));
export const httpUrl = v.pipe(v.string(), v.trim(), v.maxLength(2000), v.url(), v.regex(/^https?:\/\//i, 'an http(s) URL'));
export const email = v.pipe(v.string(), v.trim(), v.maxLength(254), v.email());
export const int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
