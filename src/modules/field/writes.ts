// The field-write service as the composition root builds it: one queue per bus, read-back
// verification and one audit record per item, whoever writes (the RPC listener, setpoint
// dispatch, device polls). It exists with the RPC listener off (rpc_port off).
import { createFieldService, fieldConfig, type FieldService, type FieldWriteAudit } from '../../field/index.js';
import type { Config } from '../../config.js';
import type { AuditService } from '../../kernel/context.js';
import type { Logger } from '../../kernel/logger.js';

/** `audit` is read at each write, so a wrapper put on the bag later (the sync's tap) sees field writes too. */
export function createFieldWrites(deps: { config: Config; log: Logger; audit: () => AuditService }): FieldService {
  const { config, log } = deps;
  return createFieldService(fieldConfig({ ...(config.field as object) }), {
    audit: (entry: FieldWriteAudit) =>
      deps.audit().record({
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
}
