// Who did it, by name: a card's or QR badge's session acts as its passkey id (PK-...), and the
// passkey keeps the holder's name. Names are read once per session from auth/people/list, which
// every role of a site's crew may read (only ids and names, within its scope); where that fails,
// the fallback below says "card …SNSB" (the passkey's last four), never the raw id.
import { getList, query } from './api';
import type { Session } from './session';
import { observable } from './observable';
import { t } from './i18n';

export const people = observable<Map<string, string>>(new Map());

let loadedFor: Session | null = null;

export async function loadPeople(s: Session): Promise<void> {
  if (loadedFor === s) return;
  loadedFor = s;
  if (s.ctx.policy.permissions.api['api:GET /api/v1/auth/people/list'] !== true) return;
  try {
    const r = await getList<{ id: string; holder: string }>(`/api/v1/auth/people/list${query({ limit: 500 })}`);
    people.set(new Map(r.data.items.map((p) => [p.id, p.holder])));
  } catch {
    // names are a courtesy: the fallback below still says who in words
  }
}

/** A person's name for a subject: the card holder, "card …SNSB", or the subject of a token as it is. */
export function nameOf(subject: string | null | undefined, names: Map<string, string> = people.get()): string {
  if (!subject) return '—';
  const held = names.get(subject);
  if (held) return held;
  if (subject.startsWith('PK-')) return t('login.person.card', { last4: subject.slice(-4) });
  return subject;
}
