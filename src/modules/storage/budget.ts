// The storage budget: one run measures the database, purges every target by its configured
// retention (capped by the data's own newest time), and when the data passes 90 % of the budget
// thins the targets in their order, each by steps of a quarter of its remaining days above its
// floor, down to 80 %. Freed room stays in the file for the next rows (space.ts; a file still in
// incremental auto-vacuum gives it back). Runs are serialised.
// It warns (a status event and the snapshot) from 85 %, or when the growth of the last days
// reaches 90 % within a week, before it has to thin.
import type { Services } from '../../kernel/context.js';
import { JumpDetector, monoMs, nowMs } from '../../kernel/clock.js';
import { DAY_MS, retentionCutoff } from '../../kernel/retention.js';
import { siteOf } from '../../runtime/first-run.js';
import { autoVacuum, bytesPerRow, giveBack, measure, type AutoVacuum, type Space } from './space.js';
import { TARGETS } from './targets.js';

export const WARN_AT = 0.85;
export const THIN_AT = 0.9;
export const THIN_TO = 0.8;
/** Rows per delete transaction while thinning: small, so a request never waits long for the writer. */
export const THIN_CHUNK = 1000;
/** Below this share of the budget, thinned retention grows back by a day per day. */
export const RELAX_BELOW = 0.7;
/** Also warn when the growth of the last days reaches the thinning mark within this many days. */
export const WARN_DAYS = 7;
/** Growth samples kept for the projection (one per run), over at most this long. */
const PROJECTION_WINDOW_MS = 7 * DAY_MS;

export interface TableReport {
  table: string;
  label: string;
  configured_days: number | null;
  floor_days: number;
  /** What the box keeps now: the configured days, or fewer after thinning. */
  effective_days: number | null;
  oldest: string | null;
}

export interface RunReport {
  at: string;
  reason: 'start' | 'schedule' | 'command';
  ms: number;
  /** Set when the run did nothing because the wall clock had just moved (ms, positive forward). */
  skipped: 'clock_jump' | null;
  clock_jump_ms: number;
  live_bytes_before: number;
  live_bytes_after: number;
  used_bytes_after: number;
  /** Rows deleted by the configured retention. */
  purged: { table: string; rows: number }[];
  /** Rows deleted to keep within the budget, and the retention each table was left with. */
  thinned: { table: string; label: string; rows: number; effective_days: number }[];
  returned_bytes: number;
}

export interface StorageSnapshot {
  budget_bytes: number;
  used_bytes: number;
  live_bytes: number;
  free_bytes: number;
  wal_bytes: number;
  percent: number;
  state: 'ok' | 'warn' | 'thinning';
  warning: string | null;
  space_return: AutoVacuum;
  conversion: string | null;
  projection: { bytes_per_day: number | null; days_until_budget: number | null; window_days: number };
  tables: TableReport[];
  last_run: RunReport | null;
}

export interface StorageService {
  run(reason: RunReport['reason']): Promise<RunReport>;
  snapshot(): Promise<StorageSnapshot>;
  /** Resolves when no run is in progress. */
  settled(): Promise<void>;
}

declare module '../../kernel/context.js' {
  interface Services {
    storage?: StorageService;
  }
}

const pct = (n: number) => Math.round(n * 1000) / 10;

export function warningText(percent: number): string {
  return `Storage is ${Math.round(percent)} % full — the box will keep less history`;
}

export function createStorageService(services: Services, conversion: () => string | null): StorageService {
  const { config, log } = services;
  // Read at each use, not kept: a test lowers it on the running service's config.
  const budgetOf = () => config.storage_budget_bytes;
  const jumps = new JumpDetector();
  /**
   * The retention each target was thinned to. Routine purges keep to it (so what was thinned stays
   * thinned); once the data is below RELAX_BELOW of the budget it grows back by a day per day, up
   * to the configured retention. Kept in memory: after a restart the next run thins again if needed.
   */
  const effective = new Map<string, number>();
  let lastRelax = Number.NEGATIVE_INFINITY;
  const samples: { at: number; grossBytes: number }[] = [];
  let thinnedBytesTotal = 0;
  let lastRun: RunReport | null = null;
  let running: Promise<RunReport> | undefined;
  let warned = false;

  /** Growth per day over the kept samples (at least an hour apart), or null. */
  function projection(live: number): StorageSnapshot['projection'] {
    const first = samples[0];
    const last = samples[samples.length - 1];
    let perDay: number | null = null;
    if (first && last && last.at - first.at >= 3_600_000) perDay = Math.round(((last.grossBytes - first.grossBytes) / (last.at - first.at)) * DAY_MS);
    return {
      bytes_per_day: perDay,
      days_until_budget: perDay !== null && perDay > 0 ? Math.max(0, Math.round(((budgetOf() - live) / perDay) * 10) / 10) : null,
      window_days: first && last ? Math.round(((last.at - first.at) / DAY_MS) * 10) / 10 : 0,
    };
  }

  /** Warn from 85 %, or earlier when the growth reaches the thinning mark within WARN_DAYS. */
  function warnShare(live: number): boolean {
    if (live >= budgetOf() * WARN_AT) return true;
    const perDay = projection(live).bytes_per_day;
    return perDay !== null && perDay > 0 && (budgetOf() * THIN_AT - live) / perDay <= WARN_DAYS;
  }

  const spans = async () => Promise.all(TARGETS.map(async (t) => ({ t, span: await t.span(services.db) })));

  async function warnIfNeeded(space: Space): Promise<void> {
    const share = space.live_bytes / budgetOf();
    const now = warnShare(space.live_bytes);
    if (now === warned) return;
    warned = now;
    const status = services.status;
    if (!status) return;
    const site = siteOf(config);
    await status.publish({
      tenant_id: site?.tenant_id ?? null, site_id: site?.site_id ?? null, source: 'storage', event: 'storage.budget',
      status: now ? 'warn' : 'ok',
      details: { message: now ? warningText(share * 100) : `Storage is ${Math.round(share * 100)} % full`, live_bytes: space.live_bytes, budget_bytes: budgetOf() },
    }).catch((err: Error) => log.warn('storage warning not published', { error: err.message }));
  }

  async function thin(now: number, space: Space, report: RunReport, newest: Map<string, number | null>): Promise<Space> {
    const { db } = services;
    const goal = budgetOf() * THIN_TO;
    let live = space.live_bytes;
    const pg = !db.prepareSqlite;
    for (const { t, span } of await spans()) {
      if (live <= goal) break;
      if (span.oldest === null) continue;
      const top = Math.min(now, span.newest ?? now);
      const configured = t.configuredDays(config);
      let days = Math.ceil((top - span.oldest) / DAY_MS);
      if (configured !== null) days = Math.min(days, configured);
      if (days <= t.floorDays) continue;
      const perRow = pg ? await bytesPerRow(db, t.table) : 0;
      let rows = 0;
      while (live > goal && days > t.floorDays) {
        days = Math.max(t.floorDays, days - Math.max(1, Math.ceil((days - t.floorDays) / 4)));
        const n = await t.purge(db, retentionCutoff(now, days, newest.get(t.id) ?? null), THIN_CHUNK);
        rows += n;
        const before = live;
        live = pg ? live - n * perRow : (await measure(db)).live_bytes;
        thinnedBytesTotal += Math.max(0, before - live);
      }
      effective.set(t.id, days);
      report.thinned.push({ table: t.id, label: t.label, rows, effective_days: days });
      log.warn('storage budget: history thinned', { table: t.id, rows, effective_days: days, budget_bytes: budgetOf() });
    }
    return pg ? { ...space, live_bytes: live } : measure(db);
  }

  async function execute(reason: RunReport['reason']): Promise<RunReport> {
    const { db } = services;
    const t0 = monoMs();
    const now = nowMs();
    const jump = jumps.check();
    // The security log's buffered entries are written every 2 s: written now, they are counted by
    // this run rather than landing after it, past the mark it just measured.
    await services.security?.flush();
    const before = await measure(db);
    const report: RunReport = {
      at: new Date(now).toISOString(), reason, ms: 0, skipped: null, clock_jump_ms: Math.round(jump),
      live_bytes_before: before.live_bytes, live_bytes_after: before.live_bytes, used_bytes_after: before.used_bytes,
      purged: [], thinned: [], returned_bytes: 0,
    };
    if (jump) {
      // A clock that just moved is not trusted for deleting: the next run, on a clock that held
      // still since this one, purges. Nothing is lost by waiting (the budget's 10 % margin).
      report.skipped = 'clock_jump';
      log.warn('storage run waits: the clock moved', { jump_ms: report.clock_jump_ms });
    } else {
      const newest = new Map<string, number | null>();
      for (const { t, span } of await spans()) {
        newest.set(t.id, span.newest);
        const configured = t.configuredDays(config);
        const thinned = effective.get(t.id);
        const days = thinned === undefined ? configured : Math.min(thinned, configured ?? thinned);
        if (days === null) continue;
        const rows = await t.purge(db, retentionCutoff(now, days, span.newest), THIN_CHUNK);
        if (rows) report.purged.push({ table: t.id, rows });
      }
      let space = await measure(db);
      const thinning = space.live_bytes > budgetOf() * THIN_AT;
      if (thinning) space = await thin(now, space, report, newest);
      // A run that thinned gives every free page back; an ordinary one keeps a few for the rows the
      // next hour appends (the recent tables free and take about an hour's pages each hour).
      report.returned_bytes = await giveBack(db, { keep: !thinning });
      if (space.live_bytes < budgetOf() * RELAX_BELOW && now - lastRelax >= DAY_MS) {
        lastRelax = now;
        for (const t of TARGETS) {
          const days = effective.get(t.id);
          if (days === undefined) continue;
          const configured = t.configuredDays(config);
          if (configured !== null && days + 1 >= configured) effective.delete(t.id);
          else effective.set(t.id, days + 1);
        }
      }
    }
    const after = await measure(db);
    report.live_bytes_after = after.live_bytes;
    report.used_bytes_after = after.used_bytes;
    report.ms = Math.round(monoMs() - t0);
    // Gross growth: what the data grew by, adding back what thinning removed.
    if (samples.length && samples[samples.length - 1]!.at > now) samples.length = 0; // the clock went back: start over
    samples.push({ at: now, grossBytes: after.live_bytes + thinnedBytesTotal });
    while (samples.length > 2 && now - samples[0]!.at > PROJECTION_WINDOW_MS) samples.shift();
    await warnIfNeeded(after);
    lastRun = report;
    return report;
  }

  return {
    run(reason) {
      const next = (running ?? Promise.resolve()).catch(() => undefined).then(() => execute(reason));
      running = next;
      return next;
    },
    async settled() {
      await running?.catch(() => undefined);
    },
    async snapshot() {
      const { db } = services;
      const space = await measure(db);
      const share = space.live_bytes / budgetOf();
      const warn = warnShare(space.live_bytes);
      const tables: TableReport[] = [];
      for (const { t, span } of await spans()) {
        const configured = t.configuredDays(config);
        tables.push({
          table: t.id, label: t.label, configured_days: configured, floor_days: t.floorDays,
          effective_days: effective.get(t.id) ?? configured,
          oldest: span.oldest === null ? null : new Date(span.oldest).toISOString(),
        });
      }
      return {
        budget_bytes: budgetOf(), used_bytes: space.used_bytes, live_bytes: space.live_bytes, free_bytes: space.free_bytes, wal_bytes: space.wal_bytes,
        percent: pct(share),
        state: share > THIN_AT ? 'thinning' : warn ? 'warn' : 'ok',
        warning: warn ? warningText(share * 100) : null,
        space_return: autoVacuum(db), conversion: conversion(),
        projection: projection(space.live_bytes),
        tables,
        last_run: lastRun && { ...lastRun },
      };
    },
  };
}
