// What the storage budget may thin, in the order it thins it: the finest and most plentiful
// history first (raw telemetry), then minute roll-ups, status events, audit, hour roll-ups and
// alarm history last. Each has its configured retention (the most it keeps) and a floor (the
// least the budget may leave it); routine retention purges by the configured days, the budget
// lowers the effective days step by step down to the floor. Spans (oldest and newest row) are
// read off the event loop (db.read: the read worker on SQLite).
import { sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { purgeInChunks, purgeRollups, rollupSpan } from '../devices/service.js';

export interface Span {
  /** Epoch ms of the oldest and newest row, or null for an empty table. */
  oldest: number | null;
  newest: number | null;
}

export interface Target {
  /** The table (and resolution) as the report names it. */
  id: string;
  /** Farm words for the snapshot and the warning. */
  label: string;
  /** The table whose size the PostgreSQL estimate reads. */
  table: string;
  floorDays: number;
  /** The configured retention; null when this table had none before the budget (alarms). */
  configuredDays(config: Config): number | null;
  span(db: Database): Promise<Span>;
  /** Deletes rows older than `beforeMs` in slices of `chunk`; resolves with how many. */
  purge(db: Database, beforeMs: number, chunk: number): Promise<number>;
}

const num = (x: number | string | null | undefined) => (x === null || x === undefined ? null : Number(x));
const ms = (x: string | null | undefined) => (x ? Date.parse(x) : null);

/** A table keyed by `id` with an RFC 3339 time column (indexed, except alarms'). */
function isoTarget(t: Omit<Target, 'span' | 'purge'> & { column: string; where?: string }): Target {
  const extra = t.where ? ` and ${t.where}` : '';
  return {
    ...t,
    async span(db) {
      const [row] = await db.read<{ lo: string | null; hi: string | null }>(sql.raw(`select min("${t.column}") as lo, max("${t.column}") as hi from ${t.table} where 1 = 1${extra}`));
      return { oldest: ms(row?.lo), newest: ms(row?.hi) };
    },
    purge: (db, beforeMs, chunk) => purgeInChunks(db, 'id', t.table, `"${t.column}" < ?${extra}`, [new Date(beforeMs).toISOString()], chunk),
  };
}

export const TARGETS: readonly Target[] = [
  {
    id: 'telemetry_points', label: 'raw readings', table: 'telemetry_points', floorDays: 2,
    configuredDays: (c) => c.telemetry_retention_days,
    async span(db) {
      const [row] = await db.read<{ lo: number | string | null; hi: number | string | null }>(sql`select min(ts) as lo, max(ts) as hi from telemetry_points`);
      return { oldest: num(row?.lo), newest: num(row?.hi) };
    },
    purge: (db, beforeMs, chunk) => purgeInChunks(db, 'id', 'telemetry_points', 'ts < ?', [beforeMs], chunk),
  },
  {
    id: 'telemetry_rollups.minute', label: 'minute averages', table: 'telemetry_rollups', floorDays: 7,
    configuredDays: (c) => c.telemetry_minute_retention_days,
    span: (db) => rollupSpan(db, 'minute'),
    purge: (db, beforeMs, chunk) => purgeRollups(db, 'minute', beforeMs, chunk),
  },
  isoTarget({ id: 'status_events', label: 'status events', table: 'status_events', column: 'timestamp', floorDays: 7, configuredDays: (c) => c.status_retention_days }),
  isoTarget({ id: 'audit_records', label: 'audit trail', table: 'audit_records', column: 'created_at', floorDays: 90, configuredDays: (c) => c.audit_retention_days }),
  {
    id: 'telemetry_rollups.hour', label: 'hourly averages', table: 'telemetry_rollups', floorDays: 400,
    configuredDays: (c) => c.telemetry_hour_retention_days,
    span: (db) => rollupSpan(db, 'hour'),
    purge: (db, beforeMs, chunk) => purgeRollups(db, 'hour', beforeMs, chunk),
  },
  // Only alarms in the normal state (cleared and acknowledged, ISA-18.2) are history: an active or
  // unacknowledged alarm is never thinned.
  isoTarget({ id: 'alarms', label: 'alarm history', table: 'alarms', column: 'raised_at', where: `alarm_state = 'normal'`, floorDays: 400, configuredDays: () => null }),
];
