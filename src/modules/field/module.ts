import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { startRpcListener, type RpcListener } from './rpc-listener.js';

declare module '../../kernel/context.js' {
  interface Services {
    /** The field-write RPC listener; absent with rpc_port off (the field service runs without it). */
    rpc?: RpcListener;
  }
}

export default defineModule({
  id: 'field',
  name: 'Field writes',
  description: 'JSON-RPC writes to field devices: Modbus TCP, Modbus RTU over RS-485, BACnet WriteProperty(Multiple). Served on its own listener (rpc_host:rpc_port, loopback by default; rpc_port off serves none, setpoint writes go on).',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'device',
  provides_enrichment_for: [],
  routes: [],
  tables: [],
  permissions: grant('field-writes', { operator: ['write'], admin: ['write'] }),
  // The listener is one client of the field service (services.field, built by the composition
  // root), not its owner.
  runtime: defineRuntime({
    needs: ['config', 'log', 'field', 'sessions', 'security', 'modules'],
    provides: ['rpc'],
    create(deps) {
      let listener: RpcListener | undefined;
      return {
        async start() {
          const port = deps.config.rpc_port;
          if (port === 'off') {
            deps.log.info('field-write RPC listener off (rpc_port off); field writes from setpoints go on');
            return {};
          }
          listener = await startRpcListener(deps, port);
          return { rpc: listener };
        },
        async stop() {
          await listener?.close();
        },
      };
    },
  }),
});
