// What a module contributes to the site set-up screen: one or more steps, each with a check that
// answers, for the caller's tenant and site, whether that part of the box is commissioned and,
// when it is not, what is missing in the installer's words. The site-setup module lists the
// installed modules' steps in their order; the shell renders what it answers.
//
// The words are message keys with parameters (src/i18n/messages/<lang>/setup.json), so that each
// reader gets them in their own language; the list's English `title` and `words` are rendered from
// the same keys (the wording exists once). A parameter named `*_at` is an instant (RFC 3339): each
// reader writes it as their own clock reads (the English fields: the site's clocks, siteInstant).
import type { MessageKey } from '../i18n/messages/en.js';
import type { Caller, Services } from './context.js';

/**
 * done: nothing missing; missing: not set up, with what that means for the farm; attention: set
 * up, but something is wrong now (a controller not answering, an output failing); optional: not
 * set up, and the box runs well without it.
 */
export const SETUP_STATES = ['done', 'missing', 'attention', 'optional'] as const;
export type SetupState = (typeof SETUP_STATES)[number];

/** A set-up text's key: only keys of the set-up area (the shell ships them all). */
export type SetupKey = Extract<MessageKey, `setup.${string}`>;
/** A text's parameters: names, ids and counts as they are; instants as RFC 3339 in `*_at`. */
export type SetupParams = Readonly<Record<string, string | number>>;

export interface SetupCheck {
  state: SetupState;
  /** What is there, or what is missing and what that means ("No siren output: ..."), as a message key. */
  key: SetupKey;
  params?: SetupParams;
}

// The registry's manifests carry each module's steps (kept out of context.ts, which never imports kernel features).
declare module './context.js' {
  interface ModuleRoutes {
    setup?: readonly SetupStep[];
  }
}

export interface SetupStep {
  id: string;
  /** Its place in the list: the order an installer commissions a box in (10 trust, 20 people, ...). */
  order: number;
  title: SetupKey;
  title_params?: SetupParams;
  /** Which module's screen sets it up (the shell links there); `screen` names one of the shell's own screens instead; none when no screen does (a setting of the box's configuration). */
  screen?: { module: string } | { screen: 'settings' | 'handoff' };
  check(services: Services, caller: Caller): Promise<SetupCheck>;
}

/** The caller's tenant (a set-up check reads the site the installer commissions, never another). */
export function setupTenant(caller: Caller): string {
  return caller.tenant_id ?? '';
}

/** The English of a parameter set: each `*_at` instant as the site's clocks read it (siteInstant). */
export function englishParams(config: { site_timezone: string }, params: SetupParams | undefined, now = new Date()): SetupParams {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(params ?? {})) out[k] = k.endsWith('_at') && typeof v === 'string' ? siteInstant(config, v, now) : v;
  return out;
}

/** An instant as the site's clocks read it: "06:14" on the site's today, "28 Nov, 06:14" on another day. */
export function siteInstant(config: { site_timezone: string }, iso: string, now = new Date()): string {
  const day = (d: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: config.site_timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return siteTime(config, iso, day(at) !== day(now));
}

/** "1 card", "3 cards". */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A time as the site reads its clocks (site_timezone), "06:14", or "28 Nov 06:14" when `day`. */
export function siteTime(config: { site_timezone: string }, iso: string, day = false): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: config.site_timezone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...(day ? { day: 'numeric', month: 'short' } : {}) }).format(new Date(iso));
}
