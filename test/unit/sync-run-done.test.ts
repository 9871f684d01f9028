// When a forced sync run (tenant-master-sync/commands/run) is complete for a site (engine/master.ts
// runDone): the box reported that run, or a later one, done, and it holds the master-owned state;
// a site that never reported a completed run (a box older than run_done) is judged by the old
// rule, an empty outbox reported after the request. And the outbox's ends, which the box compares
// with what it held when it took the request (engine/outbox.ts ends).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import * as v from 'valibot';
import { runDone, runDoneReportOf, type DownState } from '../../src/modules/tenant-master-sync/engine/master.js';
import { pullBody } from '../../src/modules/tenant-master-sync/engine/protocol.js';
import { Outbox } from '../../src/modules/tenant-master-sync/engine/outbox.js';
import { migrateAll } from '../../src/modules/migrate-all.js';

const down: DownState = { revision: 'rev-1', version_policies: [], site_policies: [], industry_profiles: [] };
const requested = '2026-11-30T01:00:00.000Z';
const before = '2026-11-30T00:59:59.000Z';
const after = '2026-11-30T01:00:01.000Z';
// A box that reports no digests is judged by the revision it applied (holdsMasterState).
const site = (o: Partial<Parameters<typeof runDone>[0]>) => ({ run_done_at: null, last_seen_at: after, reported_pending: 0, held: null, down_revision: 'rev-1', ...o });

describe('a forced run complete for a site', () => {
  it('is the run the box reported done, whatever it reports pending since', () => {
    expect(runDone(site({ run_done_at: requested, reported_pending: 3 }), requested, down)).toBe(true);
    // A later run done covers this one.
    expect(runDone(site({ run_done_at: after, reported_pending: 1 }), requested, down)).toBe(true);
  });

  it('is not an earlier run done, even with an empty outbox reported after the request', () => {
    expect(runDone(site({ run_done_at: before, reported_pending: 0 }), requested, down)).toBe(false);
  });

  it('needs the master-owned state held', () => {
    expect(runDone(site({ run_done_at: requested, down_revision: 'rev-0' }), requested, down)).toBe(false);
  });

  it('is, for a box that reports no completed run, an empty outbox reported after the request', () => {
    expect(runDone(site({}), requested, down)).toBe(true);
    expect(runDone(site({ reported_pending: 1 }), requested, down)).toBe(false);
    expect(runDone(site({ last_seen_at: before }), requested, down)).toBe(false);
    expect(runDone(site({ last_seen_at: requested }), requested, down)).toBe(false);
    expect(runDone(site({ last_seen_at: null }), requested, down)).toBe(false);
  });
});

describe("a box's run_done report as the site row keeps it", () => {
  // Parsed as the master's route parses a pull body: an absent field stays absent.
  const parsed = (extra: Record<string, unknown>) => v.parse(pullBody, { remaining: 0, ...extra });

  it('a run done is kept; null (none completed yet, or none since a restart) keeps what was kept', () => {
    expect(runDoneReportOf(parsed({ run_done: requested }))).toEqual({ run_done_at: requested });
    expect(runDoneReportOf(parsed({ run_done: null }))).toEqual({});
  });

  it('a report without the field (a box downgraded to a version older than run_done) forgets it, so the old rule judges its runs', () => {
    const report = runDoneReportOf(parsed({}));
    expect(report).toEqual({ run_done_at: null });
    // With what it reported before forgotten, an empty outbox after the request completes the run.
    expect(runDone(site({ run_done_at: before, ...report }), requested, down)).toBe(true);
    expect(runDone(site({ run_done_at: before }), requested, down)).toBe(false);
  });
});

describe('the ends of the outbox', () => {
  it('are its lowest and highest waiting seq, null when empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-run-done-'));
    const db = await openDatabase({ dataDir: dir });
    try {
      await migrateAll(db);
      const outbox = new Outbox(db);
      await outbox.init();
      expect(await outbox.ends()).toEqual({ first: null, last: null });
      await outbox.append(Array.from({ length: 5 }, () => ({ kind: 'heartbeat' as const, payload: { at: requested, interval_ms: 1000 } })));
      expect(await outbox.ends()).toEqual({ first: 1, last: 5 });
      await outbox.ack(3);
      expect(await outbox.ends()).toEqual({ first: 4, last: 5 });
      await outbox.ack(5);
      expect(await outbox.ends()).toEqual({ first: null, last: null });
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
