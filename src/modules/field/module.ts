import { defineModule, grant } from '../../kernel/module.js';
import { startRpcListener, type RpcListener } from './rpc-listener.js';

declare module '../../kernel/context.js' {
  interface Services {
    /** The field-write RPC listener, once started. */
    field?: RpcListener;
  }
}

export default defineModule({
  id: 'field',
  name: 'Field writes',
  description: 'JSON-RPC writes to field devices: Modbus TCP, Modbus RTU over RS-485, BACnet WriteProperty(Multiple). Served on its own listener (rpc_host:rpc_port, loopback by default).',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'device',
  provides_enrichment_for: [],
  frontend: { block_id: 'field', component: 'FieldWrites' },
  routes: [],
  tables: [],
  permissions: grant('field-writes', { operator: ['write'], admin: ['write'] }),
  runtime(services) {
    let listener: RpcListener | undefined;
    return {
      async start() {
        listener = await startRpcListener(services);
        services.field = listener;
      },
      async stop() {
        await listener?.close();
        services.field = undefined;
      },
    };
  },
});
