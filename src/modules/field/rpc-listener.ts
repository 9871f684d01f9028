// The field-write RPC endpoint on its own listener (loopback by default). A write needs a valid
// session token whose role may `write` the `field-writes` resource; every item's outcome goes to
// the audit log and every authentication decision to the security log.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'hono';
import { serve } from '../../runtime/node-serve.js';
import { createRpcApp, type AuthResult } from '../../field/index.js';
import { presentedToken } from '../../auth/guard.js';
import { requestHeader } from '../../kernel/headers.js';
import type { Services } from '../../kernel/context.js';

export interface RpcListener {
  url: string;
  close(): Promise<void>;
}

/** What the listener needs: the field service it fronts and the services that authenticate and log. */
export type RpcDeps = Pick<Services, 'config' | 'log' | 'field' | 'sessions' | 'security' | 'modules'>;

const FIELD_WRITE = { category: 'access', event: 'field_write', method: 'POST', path: '/api/rpc' } as const;

/** Listens on rpc_host:port; closing it leaves the field service running (the root closes that). */
export async function startRpcListener(services: RpcDeps, port: number): Promise<RpcListener> {
  const { config, log, field: service } = services;
  const authenticate = async (c: Context): Promise<AuthResult> => {
    const token = presentedToken(c);
    const caller = token ? await services.sessions.verify(token) : undefined;
    const request_id = requestHeader(c, 'x-correlation-id') ?? null;
    if (!caller) {
      services.security.record({ ...FIELD_WRITE, request_id, result: 'deny', reason: token ? 'invalid_token' : 'auth_required' });
      return { ok: false, status: 401, message: 'auth_required: a valid session token is required (Authorization: Bearer)' };
    }
    const allowed = services.modules.isInstalled('field') && services.modules.allows(caller.role, 'field-writes', 'write');
    services.security.record({
      ...FIELD_WRITE, request_id, tenant_id: caller.tenant_id, subject: caller.subject, role: caller.role,
      result: allowed ? 'allow' : 'deny', reason: allowed ? undefined : 'rbac_forbidden',
    });
    if (!allowed) return { ok: false, status: 403, message: `rbac_forbidden: role ${caller.role} may not write to field devices` };
    return { ok: true, actor: { id: caller.subject, role: caller.role, ...(caller.tenant_id ? { tenant_id: caller.tenant_id } : {}) } };
  };
  const app = createRpcApp(service, { authenticate, maxBodyBytes: config.max_body_bytes });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port, hostname: config.rpc_host, onError: (err) => log.error('writing an answer failed', { error: err instanceof Error ? err.message : String(err) }) }) as Server;
    s.once('listening', () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) => reject(new Error(`cannot listen on ${config.rpc_host}:${port} for field writes: ${err.code ?? err.message}`)));
  });
  const bound = (server.address() as AddressInfo).port;
  const url = `http://${config.rpc_host.includes(':') ? `[${config.rpc_host}]` : config.rpc_host}:${bound}/api/rpc`;
  log.info(`field-write RPC listening on ${url}`, { port: bound, host: config.rpc_host });
  return {
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections?.();
      });
    },
  };
}
