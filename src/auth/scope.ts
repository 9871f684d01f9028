/** The contract's scope string of a passkey or session: "master", "tenant:<id>" or "tenant:<id>/site:<id>". */
export const scopeString = (s: { scope_type: string; tenant_id?: string | null; site_id?: string | null }) =>
  s.scope_type === 'master' ? 'master' : `tenant:${s.tenant_id}${s.site_id ? `/site:${s.site_id}` : ''}`;

/** Passkey ids (`PK-...`): the subject of a session opened with a card or a QR badge, i.e. a person. */
export const PASSKEY_ID_PREFIX = 'PK-';
export const isPasskeySubject = (subject: string): boolean => subject.startsWith(PASSKEY_ID_PREFIX);
