// The top bar's live pill, derived from what the shell holds (lib/alarms.ts pillState): never "Live"
// (or "Polling") while the alarm store cannot confirm the alarms; kept data says offline first.
import { describe, expect, it } from 'vitest';
import { pillState } from '../../src/ui/src/lib/alarms.js';

describe('the live pill', () => {
  it('says the feed\'s state while the alarms are known', () => {
    for (const live of ['live', 'polling', 'connecting', 'offline', 'stopped'] as const) expect(pillState(live, false, { reachable: true })).toBe(live);
  });
  it('is degraded, not live or polling, while the alarms cannot be read', () => {
    expect(pillState('live', false, { reachable: false })).toBe('degraded');
    expect(pillState('polling', false, { reachable: false })).toBe('degraded');
    // the feed itself down: its own word says more
    expect(pillState('offline', false, { reachable: false })).toBe('offline');
    expect(pillState('connecting', false, { reachable: false })).toBe('connecting');
  });
  it('says offline while the shell shows kept data', () => {
    expect(pillState('live', true, { reachable: true })).toBe('offline');
    expect(pillState('live', true, { reachable: false })).toBe('offline');
  });
});
