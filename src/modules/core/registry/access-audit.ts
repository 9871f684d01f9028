// The cross-industry access audit (contract 2.3, limits 8): the last N decisions of install,
// uninstall and permission updates, in memory, newest first.
export interface AccessAuditEvent {
  id: number;
  operation: 'install' | 'uninstall' | 'permissions_update' | 'legacy_import';
  decision: 'allow' | 'deny';
  reason: string;
  module_id: string;
  requested_industry_code: string | null;
  module_industry_code: string | null;
  actor: string;
  tenant_id: string | null;
  timestamp: string;
}

export type AccessAuditInput = Omit<AccessAuditEvent, 'id' | 'timestamp'>;

export const ACCESS_AUDIT_LIMIT = 200;

export class AccessAudit {
  private readonly events: AccessAuditEvent[] = [];
  private seq = 0;

  constructor(readonly limit = ACCESS_AUDIT_LIMIT) {}

  record(e: AccessAuditInput): AccessAuditEvent {
    const event: AccessAuditEvent = { id: ++this.seq, ...e, timestamp: new Date().toISOString() };
    this.events.unshift(event);
    if (this.events.length > this.limit) this.events.length = this.limit;
    return event;
  }

  /** Newest first; every given filter must match exactly. */
  list(filter: Partial<Pick<AccessAuditEvent, 'module_id' | 'decision' | 'requested_industry_code' | 'module_industry_code' | 'tenant_id'>> = {}): AccessAuditEvent[] {
    const wanted = Object.entries(filter).filter(([, v]) => v !== undefined) as [keyof AccessAuditEvent, unknown][];
    return this.events.filter((e) => wanted.every(([k, v]) => e[k] === v));
  }
}
