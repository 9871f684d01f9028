import { documentModule } from '../shared/documents.js';

export default documentModule({
  id: 'forms',
  name: 'Forms',
  description: 'Generic form records for the backend-driven UI (contract 4.6).',
  keyEntity: 'form',
});
