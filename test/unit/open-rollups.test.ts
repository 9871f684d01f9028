// Which roll-ups a commit writes (src/modules/devices/open-rollups.ts): an hour when it closes, a
// minute when its hour closes (all of the hour's minutes at once), a late point's bucket of an
// hour already closed at once, everything at a flush; past HELD_MINUTES_MAX closed minutes, a
// minute as it closes.
import { describe, expect, it } from 'vitest';
import { CLOSE_GRACE_MS, HELD_MINUTES_MAX, OpenRollups, type OpenBucket } from '../../src/modules/devices/open-rollups.js';

const MIN = 60_000;
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-29T10:00:00Z');
const series = { tenant_id: 't', site_id: '', device_id: 'd', metric: 'm', unit: '' };

const bucket = (resolution: 60 | 3600, start: number, seriesId = 1): OpenBucket => ({
  series_id: seriesId, resolution, bucket: start, count: 1, value_count: 1, sum: 1, min: 1, max: 1, last: 1, last_ts: start, series,
});

/** A commit at `now` of `batch`: what it writes, as "resolution@minutes past T0". */
function commit(open: OpenRollups, batch: OpenBucket[], now: number, all = false): string[] {
  const plan = open.plan(batch, now, all);
  open.commit(plan.keep);
  return plan.write.map((r) => `${r.resolution}@${(r.bucket - T0) / MIN}`).sort();
}

describe('open roll-ups: what a commit writes', () => {
  it('keeps the closed minutes of the open hour and writes them, with the hour, once the hour has closed', () => {
    const open = new OpenRollups();
    // Minutes 0, 1 and 2 of the hour, each committed a little after it: nothing is written.
    expect(commit(open, [bucket(60, T0), bucket(3600, T0)], T0 + 10_000)).toEqual([]);
    expect(commit(open, [bucket(60, T0 + MIN), bucket(3600, T0)], T0 + MIN + 10_000)).toEqual([]);
    expect(commit(open, [bucket(60, T0 + 2 * MIN), bucket(3600, T0)], T0 + 2 * MIN + 10_000)).toEqual([]);
    expect(open.hasClosed(T0 + 59 * MIN)).toBe(false);
    // Within the grace after the hour: still held.
    expect(open.hasClosed(T0 + HOUR + CLOSE_GRACE_MS - 1)).toBe(false);
    expect(open.hasClosed(T0 + HOUR + CLOSE_GRACE_MS)).toBe(true);
    expect(commit(open, [], T0 + HOUR + CLOSE_GRACE_MS)).toEqual(['3600@0', '60@0', '60@1', '60@2']);
    expect(open.size).toBe(0);
  });

  it('merges a later point of a held minute into it, and lists the held minutes', () => {
    const open = new OpenRollups();
    commit(open, [bucket(60, T0)], T0 + 10_000);
    commit(open, [bucket(60, T0)], T0 + 5 * MIN); // a late point of minute 0, same hour
    expect(open.list(60).map((b) => [b.bucket - T0, b.count])).toEqual([[0, 2]]);
  });

  it('writes a late point of an hour already closed at once, and everything at a flush', () => {
    const open = new OpenRollups();
    expect(commit(open, [bucket(60, T0 - 2 * HOUR), bucket(3600, T0 - 2 * HOUR)], T0 + 10_000)).toEqual(['3600@-120', '60@-120']);
    commit(open, [bucket(60, T0), bucket(60, T0 + MIN), bucket(3600, T0)], T0 + 2 * MIN);
    expect(commit(open, [], T0 + 2 * MIN, true)).toEqual(['3600@0', '60@0', '60@1']);
  });

  it('writes closed minutes as they close once more than HELD_MINUTES_MAX are held', () => {
    const open = new OpenRollups();
    const many = Array.from({ length: HELD_MINUTES_MAX + 1 }, (_, i) => bucket(60, T0, i + 1));
    // Minute 0 of that many series, committed during minute 1: too many to hold for the hour.
    expect(commit(open, many, T0 + MIN + 10_000)).toHaveLength(HELD_MINUTES_MAX + 1);
    // As many that stay below the bound are held.
    expect(commit(open, many.slice(1).map((b) => ({ ...b, bucket: T0 + MIN })), T0 + 2 * MIN + 10_000)).toEqual([]);
  });
});
