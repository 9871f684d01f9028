// One typed in-process event bus, in two phases. stage() runs inside the producer's transaction:
// its listeners (the sync outbox) write in that same transaction, so the record and what is
// derived from it commit or roll back together, and a failing stage listener fails the producer.
// emit() runs after the commit: consumers of live events (the status WebSocket stream, the MQTT
// publisher, the alarm-to-status bridge) subscribe; a failing listener is logged and never stops
// the others or the producer.
import type { Logger } from '../kernel/logger.js';
import type { BusLinkEvent, DeviceLinkEvent, DeviceReadingEvent } from '../field/poll-types.js';
import type { AlarmViewItem, ChangeKind } from '../industry/alarm-view-item.js';

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

/** A status event as a writer hands it to the status service (which gives it its id and time). */
export interface StatusInput {
  tenant_id: string | null;
  site_id?: string | null;
  source: string;
  event: string;
  status: StatusEvent['status'];
  correlation_id?: string | null;
  details?: Record<string, unknown> | null;
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
  /** One kind per state change (src/industry/alarm-view-item.ts); site alarms have raised, acknowledged and cleared. */
  kind: ChangeKind;
  /**
   * The alarm as the alarm view shows it, after the change: on emitted events only (the status
   * stream's alarm_changed carries it to the screens); never staged into the sync outbox.
   */
  item?: AlarmViewItem;
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
    /** The alarm's message (its cause in the box's English); absent in events from older boxes. */
    message?: string | null;
    /**
     * The box's own texts as keys (box.* in the catalogues) with their parameters, for a reader in
     * another language: title and message are their English. null for texts a person typed; absent
     * in events from older boxes.
     */
    title_key?: string | null;
    message_key?: string | null;
    text_params?: Record<string, string | number | boolean | null> | null;
    /** Present on industry alarm events. */
    industry_code?: string;
    unit_id?: string | null;
    priority?: string | null;
    escalation_level?: number;
    sla_deadline_at?: string | null;
    /**
     * Industry alarm events: the reading against its limit and since when, so a master's
     * notification says what the box's does. Absent in events from older boxes.
     */
    metric?: string | null;
    value?: number | null;
    threshold?: number | null;
    comparator?: string | null;
    breach_since?: string | null;
    raised_at?: string;
    /** The condition and the annunciation after the change (industry alarms; site alarms have no shelving). */
    condition?: string;
    annunciated?: boolean;
    urgent?: boolean;
    shelved?: boolean;
    out_of_service?: boolean;
  };
}

/** A stored audit record (staged only: nothing listens to audit live). */
export interface AuditEvent {
  id: string;
  tenant_id: string | null;
  actor: string;
  action: string;
  resource: string;
  result: string;
  correlation_id: string;
  details: Record<string, unknown> | null;
  recorded_by: string;
  created_at: string;
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
  audit: AuditEvent;
  /** A polled device answered (src/field/poller.ts): its readings and the setpoints it holds. */
  device_readings: DeviceReadingEvent;
  /** A polled device's link was lost or came back. */
  device_link: DeviceLinkEvent;
  /** A serial bus (RS-485 adapter) was lost or came back. */
  bus_link: BusLinkEvent;
}

export type BusTopic = keyof BusEvents;
export type Listener<T extends BusTopic> = (payload: BusEvents[T]) => void;
/** Topics producers stage inside their transaction (remote_status was stored by another process). */
export type StageTopic = Exclude<BusTopic, 'remote_status' | 'device_readings' | 'device_link' | 'bus_link'>;
export type StageListener<T extends StageTopic> = (payload: BusEvents[T]) => Promise<void>;

const done: Promise<void> = Promise.resolve();

export class EventBus {
  private readonly listeners: { [K in BusTopic]: Set<Listener<K>> } = {
    status: new Set(), remote_status: new Set(), telemetry: new Set(), alarm: new Set(), audit: new Set(), device_readings: new Set(), device_link: new Set(), bus_link: new Set(),
  };

  private readonly stagers: { [K in StageTopic]: StageListener<K>[] } = { status: [], telemetry: [], alarm: [], audit: [] };

  constructor(private readonly log?: Logger) {}

  /** Subscribes to the transactional phase; returns the unsubscribe function. */
  onStage<T extends StageTopic>(topic: T, fn: StageListener<T>): () => void {
    const list = this.stagers[topic] as StageListener<T>[];
    list.push(fn);
    return () => {
      const i = list.indexOf(fn);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /**
   * Awaited by a producer inside the transaction that stores the record. Without stage listeners
   * (a box with no sync configured) it answers an already settled promise: no work, no allocation.
   */
  /** Whether anything listens to the transactional phase of a topic. */
  staging(topic: StageTopic): boolean {
    return this.stagers[topic].length > 0;
  }

  stage<T extends StageTopic>(topic: T, payload: BusEvents[T]): Promise<void> {
    const list = this.stagers[topic] as StageListener<T>[];
    if (!list.length) return done;
    return (async () => {
      for (const fn of [...list]) await fn(payload);
    })();
  }

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
