// What a module contributes to the site set-up screen: one or more steps, each with a check that
// answers, for the caller's tenant and site, whether that part of the box is commissioned and,
// when it is not, what is missing in the installer's words. The site-setup module lists the
// installed modules' steps in their order; the shell renders what it answers.
import type { Caller, Services } from './context.js';

/**
 * done: nothing missing; missing: not set up, with what that means for the farm; attention: set
 * up, but something is wrong now (a controller not answering, an output failing); optional: not
 * set up, and the box runs well without it.
 */
export const SETUP_STATES = ['done', 'missing', 'attention', 'optional'] as const;
export type SetupState = (typeof SETUP_STATES)[number];

export interface SetupCheck {
  state: SetupState;
  /** One sentence: what is there, or what is missing and what that means ("No siren output: ..."). */
  words: string;
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
  title: string;
  /** Which module's screen sets it up (the shell links there); `screen` names one of the shell's own screens instead; none when no screen does (a setting of the box's configuration). */
  screen?: { module: string } | { screen: 'settings' | 'handoff' };
  check(services: Services, caller: Caller): Promise<SetupCheck>;
}

/** The caller's tenant (a set-up check reads the site the installer commissions, never another). */
export function setupTenant(caller: Caller): string {
  return caller.tenant_id ?? '';
}

/** "1 card", "3 cards". */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A time as the site reads its clocks (site_timezone), "06:14", or "28 Nov 06:14" when `day`. */
export function siteTime(config: { site_timezone: string }, iso: string, day = false): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: config.site_timezone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...(day ? { day: 'numeric', month: 'short' } : {}) }).format(new Date(iso));
}
