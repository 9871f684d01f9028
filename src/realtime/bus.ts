// One typed in-process event bus. Producers store first, then publish; consumers (the status
// WebSocket stream, the MQTT publisher, the alarm-to-status bridge) subscribe. A failing
// listener is logged and never stops the others or the producer.
import type { Logger } from '../kernel/logger.js';

/** A stored status event (the status module's row, as the API shows it). */
export interface StatusEvent {
  id: number;
  tenant_id: string | null;
  site_id: string | null;
  source: string;
  event: string;
  status: 'ok' | 'warn' | 'error';
  correlation_id: string | null;
  details: Record<string, unknown> | null;
  timestamp: string;
}

/** A device telemetry point as written (the store adds its integer id). */
export interface TelemetryPoint {
  tenant_id: string;
  site_id: string | null;
  device_id: string;
  metric: string;
  value: number | null;
  unit: string | null;
  status: 'online' | 'warn' | 'error';
  latency_ms: number | null;
  ts: string;
  received_at: string;
}

export interface AlarmEvent {
  /** escalated and cleared come from industry alarm events (src/industry/alarm-service.ts). */
  kind: 'raised' | 'acknowledged' | 'escalated' | 'cleared';
  alarm: {
    id: string;
    tenant_id: string | null;
    site_id: string | null;
    severity: string;
    state: string;
    source: string;
    title: string;
    correlation_id: string;
    acknowledged_by: string | null;
    comment: string | null;
    /** Present on industry alarm events. */
    industry_code?: string;
    unit_id?: string | null;
    priority?: string | null;
    escalation_level?: number;
    sla_deadline_at?: string | null;
  };
}

export interface BusEvents {
  status: StatusEvent;
  /**
   * A status event stored by another process on the same database (src/modules/tenant-master-sync/engine/cluster.ts): the
   * WebSocket stream delivers it, the MQTT publisher does not (its own process published it).
   */
  remote_status: StatusEvent;
  telemetry: TelemetryPoint[];
  alarm: AlarmEvent;
}

export type BusTopic = keyof BusEvents;
export type Listener<T extends BusTopic> = (payload: BusEvents[T]) => void;

export class EventBus {
  private readonly listeners: { [K in BusTopic]: Set<Listener<K>> } = { status: new Set(), remote_status: new Set(), telemetry: new Set(), alarm: new Set() };

  constructor(private readonly log?: Logger) {}

  /** Subscribes; returns the unsubscribe function. */
  on<T extends BusTopic>(topic: T, fn: Listener<T>): () => void {
    const set = this.listeners[topic] as Set<Listener<T>>;
    set.add(fn);
    return () => set.delete(fn);
  }

  emit<T extends BusTopic>(topic: T, payload: BusEvents[T]): void {
    for (const fn of [...(this.listeners[topic] as Set<Listener<T>>)]) {
      try {
        fn(payload);
      } catch (err) {
        this.log?.error('event bus listener failed', { topic, error: (err as Error).message });
      }
    }
  }

  listenerCount(topic: BusTopic): number {
    return this.listeners[topic].size;
  }
}
