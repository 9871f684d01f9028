// auth/commands/set-language: a person changes their own language, the one kept on the card or
// badge they logged in with (an admin changes anyone's with passkeys/commands/set-language). Every
// role may, for its own card only: the session acts as its passkey id, so no id is taken.
import * as v from 'valibot';
import { eq } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import { colOf, tableOf } from '../../db/sql.js';
import { defineRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import { Store } from '../../db/store.js';
import { isPasskeySubject } from '../../auth/scope.js';
import { LANGUAGE_RULE, languageField, offeredLanguage } from '../../auth/language.js';
import { passkeys, type PasskeyRow } from '../passkeys/schema.js';

export const languageRoute = defineRoute({
  method: 'post', path: '/api/v1/auth/commands/set-language', module: 'auth', tags: ['auth'],
  summary: 'Set my own language: the one kept on the card or badge this session was opened with',
  description: `Body {language}: ${LANGUAGE_RULE} Changes only the caller's own card or badge (a hand-off phone's session is its card's); the next app/context answers it as user.language. A session that is no card's (a token made with \`cabinet token\`) has nowhere to keep one: 409 lifecycle_conflict. Audited (auth.set-language, with the language before and after).`,
  access: { resource: 'language', action: 'update', scope: 'any' },
  body: v.strictObject({ language: languageField }),
  errors: ['lifecycle_conflict', 'not_found'],
  response: { kind: 'single', item: { type: 'object', required: ['language'], properties: { language: { type: ['string', 'null'] } } } },
  handler: async ({ services, caller, body }) => {
    const subject = caller!.subject;
    const language = offeredLanguage(services.catalogues, body.language);
    if (!isPasskeySubject(subject) || !services.modules.isInstalled('passkeys')) {
      throw new ApiError('lifecycle_conflict', 'this session was not opened with a card or badge, so there is no card to keep a language on; choose the language on the tablet instead', [{ field: 'subject', reason: 'not_a_card' }]);
    }
    const store = new Store<PasskeyRow>(services.db, passkeys);
    const row = await store.find({ id: subject });
    if (!row) throw new ApiError('not_found', 'the card of this session no longer exists');
    await store.update({ id: subject }, { language });
    await services.audit.record({
      actor: subject, action: 'auth.set-language', resource: 'passkeys', result: 'success', tenant_id: row.tenant_id,
      details: { id: subject, from: row.language ?? null, to: language },
    });
    return { language };
  },
});

/**
 * The language of whoever a session belongs to: their card's or badge's (a session opened with a
 * passkey acts as its id), or null when it has none, or for a session that is not a person's card
 * (a token made with `cabinet token`).
 */
export async function personLanguage(services: Pick<Services, 'db' | 'modules'>, subject: string): Promise<string | null> {
  if (!isPasskeySubject(subject) || !services.modules.isInstalled('passkeys')) return null;
  const { db } = services;
  const [row] = (await db.orm.select({ language: colOf(passkeys, db, 'language') }).from(tableOf(passkeys, db)).where(eq(colOf(passkeys, db, 'id'), subject)).limit(1)) as { language: string | null }[];
  return row?.language ?? null;
}
