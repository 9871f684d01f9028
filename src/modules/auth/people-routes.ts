// auth/people/list: who a card or QR badge belongs to, by name, for everyone who sees what a card
// did. A card's session acts as its passkey id (PK-...), so an alarm acknowledged at the panel
// says PK-...; the crew must read "Anna Novak", not "card …SNSB". Only the id and the holder's
// name are given, within the caller's scope (kit.scope): never the role, the credential or dates,
// which stay in passkeys/list for admins and security. It is the sign-in module's (always there,
// offered to every role as a lookup, never as a screen of its own), not the passkeys module's,
// whose screen is for admins and security; it reads the same table through the passkeys kit.
import { defineRoute } from '../../kernel/route.js';
import { passkeysResource } from '../passkeys/resource.js';

const nameItem = {
  type: 'object',
  required: ['id', 'holder', 'status'],
  properties: { id: { type: 'string' }, holder: { type: 'string' }, status: { enum: ['active', 'revoked'] } },
};

export const peopleRoute = defineRoute({
  method: 'get', path: '/api/v1/auth/people/list', module: 'auth', tags: ['auth'],
  summary: 'The holder\'s name of each passkey in the caller\'s scope (id, holder, status), to name who acted',
  description: 'For every role that sees what a card did (operators included): acknowledgements, comments and audit rows carry the passkey id of the card that acted. Revoked passkeys are listed too, so past actions keep their names. Sorted by id; paged as every list.',
  access: { resource: 'people', action: 'read' },
  query: { limit: { type: 'integer', min: 1, max: 500, default: 500 }, offset: { type: 'integer', min: 0, default: 0 } },
  response: { kind: 'list', item: nameItem },
  handler: async ({ services, caller, query }) => {
    const { rows, total } = await passkeysResource.kit.store(services.db).list({
      where: passkeysResource.kit.scope(caller), ranges: [], sort: { column: 'id', order: 'asc' },
      limit: query.limit as number, offset: query.offset as number,
    });
    return { items: rows.map((r) => ({ id: r.id, holder: r.holder, status: r.status })), offset: query.offset as number, limit: query.limit as number, total };
  },
});
