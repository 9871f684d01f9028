// Who is logged in, the app context, the modules the backend lets this caller see, and the
// shell preferences (backend first, local storage only as the fallback cache).
import { ApiError, getLoaded, post, query } from './api';
import { cachePut, clearCache, localSetting, setCacheOwner } from './cache';
import { observable, on } from './observable';
import { setDisplay } from './format';
import { backToTabletLanguage, personLanguage, setLanguage, setSiteDefault, setSiteLocale, type MessageKey } from './i18n';
import { inFarmWords, offeredTo } from './words';
import type { AppContext, DashboardLayout, ModuleRecord, Preferences, Session, ThemeChoice, User } from './types';
import { pageDocument } from './page';

export type { Session } from './types';

export interface ShellPrefs {
  theme: ThemeChoice;
  moduleOrder: string[];
  pinned: string[];
  /** Where the values came from: the backend, or this browser while the backend was unreachable. */
  origin: 'backend' | 'local' | 'default';
}

export const session = observable<Session | null | undefined>(undefined);
export const prefs = observable<ShellPrefs>({ theme: 'system', moduleOrder: [], pinned: [], origin: 'default' });
/** Set (to the time of the data) while the shell shows cached data because the API is unreachable. */
export const staleSince = observable<string | null>(null);
/** Why the last session ended, as a key of the login words: shown on the login screen in the tablet's language. */
export const endedReason = observable<MessageKey | null>(null);

const API = '/api/v1';

export function resourcesOf(m: ModuleRecord): string[] {
  return m.backend.routes
    .filter((r) => r.startsWith(`${API}/`) && r.endsWith('/scheme') && !r.includes('{'))
    .map((r) => r.slice(API.length + 1, -'/scheme'.length))
    .filter((p) => p !== 'modules' && p !== 'modules/site-policy');
}

function themeOf(p: Pick<Preferences, 'theme' | 'dashboard_layout'> | undefined): ThemeChoice {
  const layout = p?.dashboard_layout && !Array.isArray(p.dashboard_layout) ? (p.dashboard_layout as DashboardLayout) : undefined;
  if (layout?.contrast === 'high') return 'high-contrast';
  return p?.theme ?? 'system';
}

function layoutOf(p: Preferences | undefined): DashboardLayout {
  return p?.dashboard_layout && !Array.isArray(p.dashboard_layout) ? (p.dashboard_layout as DashboardLayout) : {};
}

export function applyTheme(theme: ThemeChoice): void {
  const doc = pageDocument();
  if (doc) doc.documentElement.dataset.theme = theme;
}

let stale: string | null = null;
function track<T>(r: { data: T; stale: boolean; at?: string }): T {
  if (r.stale && r.at && (!stale || r.at < stale)) stale = r.at;
  return r.data;
}

/** Loads everything the shell starts from; null when nobody is logged in. */
export async function loadSession(): Promise<Session | null> {
  stale = null;
  const meR = await getLoaded<{ item: { authenticated: boolean; user?: User } }>(`${API}/auth/me`);
  const me = meR.data.item;
  if (!me.authenticated || !me.user) {
    if (!meR.stale) clearCache();
    session.set(null);
    staleSince.set(null);
    return null;
  }
  if (!meR.stale) {
    setCacheOwner(`${me.user.subject ?? ''}|${me.user.scope}`);
    cachePut(`${API}/auth/me`, meR.data);
  } else {
    track(meR);
  }
  const ctx = track(await getLoaded<{ item: AppContext }>(`${API}/app/context`)).item;
  setDisplay(ctx.display);
  // Numbers and dates at the site's region; the words in the person's language (their card's, else
  // the tablet's choice, else the site's default). Before the session is shown, so it opens in it.
  setSiteLocale(ctx.display?.locale);
  setSiteDefault(ctx.display?.language);
  await setLanguage(personLanguage(ctx.user.language));
  const list = track(await getLoaded<{ items: ModuleRecord[] }>(`${API}/modules/list${query({ limit: 500 })}`)).items;
  const ui = ctx.policy.permissions.ui;
  const api = ctx.policy.permissions.api;
  // Only what this person can use: a resource whose list (or, without a list, scheme) the role may
  // read; a module without any such resource, or not an operator's job, is not offered at all.
  const usable = (r: string) => api[`api:GET ${API}/${r}/list`] ?? api[`api:GET ${API}/${r}/scheme`] ?? true;
  const modules = list
    .filter((m) => m.installed && ui[`ui:module.${m.id}.view`] !== false && offeredTo(me.user!.role, m))
    .map(inFarmWords);
  const resources = new Map(modules.map((m) => [m.id, resourcesOf(m).filter(usable)]));
  const industry = localSetting<string>('industry') ?? ctx.industry_code;
  const s: Session = { user: me.user, ctx, modules, resources, industry: ctx.available_industries.includes(industry) ? industry : ctx.industry_code };
  await loadPrefs(s);
  staleSince.set(stale);
  endedReason.set(null);
  session.set(s);
  return s;
}

async function loadPrefs(s: Session): Promise<void> {
  try {
    const r = await getLoaded<{ items: Preferences[] }>(`${API}/auth/ui-preferences/list${query({ industry_code: s.industry })}`);
    track(r);
    const p = r.data.items[0];
    const layout = layoutOf(p);
    const local = localSetting<ShellPrefs>('prefs');
    if (localSetting<boolean>('prefs-pending') && local && !r.stale) {
      // Changed while the backend was unreachable: the backend gets them now.
      setPrefsLocal(local);
      await savePrefs(local).catch(() => undefined);
      return;
    }
    setPrefsLocal({ theme: themeOf(p), moduleOrder: layout.module_order ?? [], pinned: p?.quick_module_ids ?? [], origin: p?.source === 'none' ? 'default' : 'backend' });
  } catch (err) {
    const local = localSetting<ShellPrefs>('prefs');
    if (local) setPrefsLocal({ ...local, origin: 'local' });
    if (!(err instanceof ApiError)) throw err;
  }
}

function setPrefsLocal(p: ShellPrefs): void {
  prefs.set(p);
  localSetting('prefs', p);
  applyTheme(p.theme);
}

/** Stores the preferences through the backend; offline, on this browser until it is back. */
export async function savePrefs(next: ShellPrefs): Promise<'backend' | 'local'> {
  const s = session.get();
  setPrefsLocal(next);
  const layout: DashboardLayout = { module_order: next.moduleOrder, contrast: next.theme === 'high-contrast' ? 'high' : 'normal' };
  const theme = next.theme === 'high-contrast' ? 'light' : next.theme;
  try {
    await post(`${API}/auth/ui-preferences/commands/update`, { theme, dashboard_layout: layout, quick_module_ids: next.pinned, ...(s ? { industry_code: s.industry } : {}) });
    localSetting('prefs-pending', false);
    prefs.set({ ...next, origin: 'backend' });
    return 'backend';
  } catch (err) {
    if (err instanceof ApiError && err.offline) {
      localSetting('prefs-pending', true);
      prefs.set({ ...next, origin: 'local' });
      return 'local';
    }
    throw err;
  }
}

export async function logout(): Promise<void> {
  await post(`${API}/auth/commands/logout`).catch(() => undefined);
  clearCache();
  session.set(null);
  // The next person finds the tablet in its own language, not the last card's.
  await backToTabletLanguage();
}

/**
 * Changes the logged-in person's own language: kept on their card (auth/commands/set-language),
 * so it follows them to every tablet, and read in at once. Throws the box's refusal (a session
 * that is no card's has nowhere to keep it: lifecycle_conflict).
 */
export async function setOwnLanguage(lang: string): Promise<void> {
  await post(`${API}/auth/commands/set-language`, { language: lang });
  const s = session.get();
  if (s) s.ctx = { ...s.ctx, user: { ...s.ctx.user, language: lang } };
  // The kept app/context too: an offline reload must not bring the old language back.
  await getLoaded(`${API}/app/context`).catch(() => undefined);
  await setLanguage(lang);
}

/** The backend said the session is over (logout elsewhere, expiry, revoked card). */
on('session-ended', () => {
  if (!session.get()) return;
  clearCache();
  endedReason.set('login.ended.session');
  session.set(null);
  void backToTabletLanguage();
});

on('reachable', (up) => {
  if (up && staleSince.get()) {
    staleSince.set(null);
    if (localSetting<boolean>('prefs-pending')) {
      const local = localSetting<ShellPrefs>('prefs');
      if (local) void savePrefs(local).catch(() => undefined);
    }
  }
});

/** Modules in the shared order (dashboard and burger menu): stored order first, then the rest. */
export function orderedModules(s: Session, order: string[]): ModuleRecord[] {
  const shown = s.modules.filter((m) => (s.resources.get(m.id)?.length ?? 0) > 0);
  const pos = new Map(order.map((id, i) => [id, i]));
  return [...shown].sort((a, b) => (pos.get(a.id) ?? 1000) - (pos.get(b.id) ?? 1000) || shown.indexOf(a) - shown.indexOf(b));
}

export function isWorkspace(m: ModuleRecord): boolean {
  return m.industry_scope === 'industry' && !!m.industry_code;
}

export function can(s: Session, capability: string): boolean {
  return s.ctx.policy.capabilities[capability] === true;
}
