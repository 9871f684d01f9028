// timeId across refills of its pooled random buffer: UUIDv7 layout, unique, in creation order.
import { describe, expect, it } from 'vitest';
import { timeId, timeOfId } from '../../src/kernel/ids.js';

describe('timeId', () => {
  it('gives unique, sortable UUIDv7-shaped ids over several pool refills', () => {
    const ids = Array.from({ length: 3000 }, () => timeId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The random tails differ: a pool that was not refilled would repeat them after 512 ids.
    const tails = new Set(ids.map((id) => id.slice(19)));
    expect(tails.size).toBe(ids.length);
  });
});

describe('timeOfId', () => {
  it('reads the millisecond back from a time id, and nothing from a random one', () => {
    // Ahead of every id made so far in this file: timeId never goes back.
    const at = Date.now() + 3_600_123;
    expect(timeOfId(timeId(at))).toBe(at);
    expect(timeOfId('0b9c5f7e-3d1a-4c2b-9e8f-1a2b3c4d5e6f')).toBeUndefined();
    expect(timeOfId('not an id')).toBeUndefined();
  });
});
