// The field-write RPC endpoint on its own listener (loopback by default). A write needs a valid
// session token whose role may `write` the `field-writes` resource; every item's outcome goes to
// the audit log and every authentication decision to the security log.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'hono';
import { serve } from '@hono/node-server';
import { createFieldService, createRpcApp, fieldConfig, type AuthResult, type FieldService, type FieldWriteAudit } from '../../field/index.js';
import { presentedToken } from '../../auth/guard.js';
import { requestHeader } from '../../kernel/headers.js';
import type { Services } from '../../kernel/context.js';

export interface RpcListener {
  url: string;
  service: FieldService;
  close(): Promise<void>;
}


const FIELD_WRITE = { category: 'access', event: 'field_write', method: 'POST', path: '/api/rpc' } as const;

export async function startRpcListener(services: Services): Promise<RpcListener> {
  const { config, log } = services;
  const fieldCfg = fieldConfig({ ...(config.field as object), rpc_port: config.rpc_port || 8081, rpc_host: config.rpc_host });
  const service = createFieldService(fieldCfg, {
    audit: (entry: FieldWriteAudit) =>
      services.audit.record({
        actor: entry.actor.id,
        action: `field.write.${entry.protocol}`,
        resource: `${entry.target} ${entry.address}`,
        result: entry.outcome === 'ok' ? 'success' : 'error',
        correlation_id: entry.correlation_id,
        tenant_id: entry.actor.tenant_id ?? null,
        details: { index: entry.index, values: entry.values, wire: entry.wire, outcome: entry.outcome, message: entry.message, failure_kind: entry.failure_kind, attempts: entry.attempts, verified: entry.verified, duration_ms: entry.duration_ms },
      }),
    log: (level, msg, data) => log[level === 'debug' ? 'debug' : level === 'warn' ? 'warn' : level === 'error' ? 'error' : 'info'](msg, { component: 'field', ...(data ?? {}) }),
  });
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
    const s = serve({ fetch: app.fetch, port: config.rpc_port, hostname: config.rpc_host }) as Server;
    s.once('listening', () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) => reject(new Error(`cannot listen on ${config.rpc_host}:${config.rpc_port} for field writes: ${err.code ?? err.message}`)));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.rpc_host.includes(':') ? `[${config.rpc_host}]` : config.rpc_host}:${port}/api/rpc`;
  log.info(`field-write RPC listening on ${url}`, { port, host: config.rpc_host });
  return {
    url,
    service,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections?.();
      });
      await service.close();
    },
  };
}
