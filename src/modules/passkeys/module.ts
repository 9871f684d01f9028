import { isPasskeySubject } from '../../auth/scope.js';
import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { Store } from '../../db/store.js';
import { passkeys, type PasskeyRow } from './schema.js';
import { passkeysResource } from './resource.js';
import { passkeySetup } from './setup.js';

export default defineModule({
  id: 'passkeys',
  name: 'Passkeys',
  description: 'QR and RFID passkeys for login at the panel and from a phone; issue and revoke.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'passkey',
  provides_enrichment_for: [],
  routes: passkeysResource.routes,
  setup: passkeySetup,
  tables: [passkeys],
  permissions: grant('passkeys', { admin: ['read', 'issue', 'revoke', 'update'], security: ['read', 'revoke'] }),
  runtime: defineRuntime({
    needs: ['db', 'sessions'],
    required: true,
    create({ db, sessions }) {
      return {
        async start() {
          // A session opened with a passkey ends when the passkey is revoked or expires.
          const store = new Store<PasskeyRow>(db, passkeys);
          sessions.setSubjectCheck(async (subject) => {
            if (!isPasskeySubject(subject)) return true;
            const row = await store.find({ id: subject });
            return Boolean(row && row.status === 'active' && row.expires_at > new Date().toISOString());
          });
        },
      };
    },
  }),
});
