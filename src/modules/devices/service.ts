// Telemetry: ingest (through the batch writer), KPI from the last known state of each device,
// and retention.
import { lt, sql, type SQL } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import type { TelemetryPoint } from '../../realtime/bus.js';
import { colOf, tableOf } from '../../realtime/sql.js';
import { deviceTelemetry } from './schema.js';
import { TelemetryWriter } from './writer.js';

export interface TelemetryFilter {
  tenant_id?: string;
  device_id?: string;
  site_id?: string;
  status?: string;
  metric?: string;
  q?: string;
}

export interface TelemetryKpi {
  devices: number;
  online: number;
  warn: number;
  error: number;
  total_points: number;
  average_latency_ms: number | null;
}

export interface TelemetryService {
  writer: TelemetryWriter;
  /** Queues stored-ready points; resolves when their batch is written. */
  ingest(points: TelemetryPoint[]): Promise<void>;
  kpi(filter: TelemetryFilter): Promise<TelemetryKpi>;
  purge(before: Date): Promise<void>;
}

declare module '../../kernel/context.js' {
  interface Services {
    telemetry?: TelemetryService;
  }
}

const escapeLike = (term: string) => `%${term.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

export function createTelemetryService(services: Services): TelemetryService {
  const { config } = services;
  const writer = new TelemetryWriter(services, { flushMs: config.telemetry_flush_ms, batchMax: config.telemetry_batch_max });
  return {
    writer,
    ingest: (points) => writer.enqueue(points),
    async kpi(f) {
      const { db } = services;
      const parts: SQL[] = [];
      for (const key of ['tenant_id', 'device_id', 'site_id', 'status', 'metric'] as const) {
        const value = f[key];
        if (value !== undefined) parts.push(sql`${sql.identifier(key)} = ${value}`);
      }
      if (f.q) {
        const term = escapeLike(f.q);
        parts.push(sql`(lower(device_id) like ${term} escape '\\' or lower(metric) like ${term} escape '\\' or lower(coalesce(site_id, '')) like ${term} escape '\\')`);
      }
      const where = parts.length ? sql`where ${sql.join(parts, sql` and `)}` : sql``;
      const [row] = await db.rows<Record<string, string | number | null>>(sql`
        with filtered as (select tenant_id, device_id, status, latency_ms, ts, id from device_telemetry ${where}),
        ranked as (select status, latency_ms, row_number() over (partition by tenant_id, device_id order by ts desc, id desc) as rn from filtered)
        select
          (select count(*) from filtered) as total_points,
          count(*) as devices,
          coalesce(sum(case when status = 'online' then 1 else 0 end), 0) as online,
          coalesce(sum(case when status = 'warn' then 1 else 0 end), 0) as warn,
          coalesce(sum(case when status = 'error' then 1 else 0 end), 0) as error,
          avg(latency_ms) as average_latency_ms
        from ranked where rn = 1`);
      const n = (k: string) => Number(row?.[k] ?? 0);
      const avg = row?.average_latency_ms;
      return {
        devices: n('devices'), online: n('online'), warn: n('warn'), error: n('error'), total_points: n('total_points'),
        average_latency_ms: avg === null || avg === undefined ? null : Math.round(Number(avg) * 1000) / 1000,
      };
    },
    async purge(before) {
      const { db } = services;
      await db.transaction(async () => {
        await db.orm.delete(tableOf(deviceTelemetry, db)).where(lt(colOf(deviceTelemetry, db, 'ts'), before.toISOString()));
      });
    },
  };
}
