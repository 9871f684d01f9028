import { documentModule } from '../shared/documents.js';

export default documentModule({
  id: 'tables',
  name: 'Tables',
  description: 'Generic table records for the backend-driven UI (contract 4.6).',
  keyEntity: 'table',
});
