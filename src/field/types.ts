export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Logger = (level: LogLevel, msg: string, data?: Record<string, unknown>) => void;

export interface Actor {
  id: string;
  role: string;
  /** The tenant the writer acts for (tenant sessions), for the audit trail. */
  tenant_id?: string;
}

export type Protocol = 'modbus' | 'modbus-rtu' | 'bacnet' | 'bacnet_m';

/** One audit record per item of a request, whatever its outcome. */
export interface FieldWriteAudit {
  at: string;
  correlation_id: string;
  actor: Actor;
  protocol: Protocol;
  /** Position in params[]. */
  index: number;
  /** "ip:port unit:u", "/dev/ttyUSB0 unit:u" or "bacnet device:<instance>@<address>". */
  target: string;
  /** Register address, coil address, or "type:instance/property[index]" for BACnet. */
  address: string;
  /** The item as requested (value, scale, order, data_type, tag, priority...). */
  values: unknown;
  /** Registers or coil states actually sent, when the item got that far. */
  wire?: unknown;
  outcome: 'ok' | 'failed' | 'skipped';
  message?: string;
  /** Error class (timeout, exception, verify...) for failures. */
  failure_kind?: string;
  attempts: number;
  verified: boolean;
  duration_ms: number;
}
