// The pure parts of the reading pipeline: judging by band and rules in force, the vocabulary, and
// the in-force cache (shared loads, invalidation, TTL, failed loads not kept).
import { describe, expect, it } from 'vitest';
import { judgeReading } from '../../src/industry/pipeline.js';
import { canonicalName, toCanonical, apiName } from '../../src/industry/vocabulary.js';
import { inForce, inForceChanged, IN_FORCE_TTL_MS } from '../../src/industry/in-force.js';
import type { AlarmRule } from '../../src/industry/rules.js';
import type { Database } from '../../src/db/client.js';

const rule = (over: Partial<AlarmRule>): AlarmRule => ({ id: 'climate:temp_high', metric: 'temp', comparator: 'gt', threshold: 'target_temp_c', offset: 3, severity: 'critical', priority: 'P1', sla_target_sec: 900, title: 't', ...over });

describe('judgeReading', () => {
  const base = { unit_id: 'H1', limits: { target_temp_c: 28 } };
  it('is alarm only beyond a rule in force, warn for band flags alone, ok otherwise', () => {
    expect(judgeReading('poultry', { ...base, values: { temp: 31.5 }, band_flags: ['temp_high'], rules: [rule({})] })).toMatchObject({ status: 'alarm', out_of_norm_flags: ['temp_high'] });
    expect(judgeReading('poultry', { ...base, values: { temp: 31.5 }, band_flags: ['temp_high'], rules: [rule({ offset: 5 })] })).toMatchObject({ status: 'warn', out_of_norm_flags: ['temp_high'] });
    expect(judgeReading('poultry', { ...base, values: { temp: 31.5 }, band_flags: [], rules: [rule({ offset: 5 })] })).toMatchObject({ status: 'ok', out_of_norm_flags: [] });
  });
  it('adds the flag of a breached rule the band did not flag, and honours unit_ids', () => {
    const tight = rule({ offset: 1 });
    expect(judgeReading('poultry', { ...base, values: { temp: 29.5 }, band_flags: [], rules: [tight] })).toMatchObject({ status: 'alarm', out_of_norm_flags: ['temp_high'] });
    expect(judgeReading('poultry', { ...base, values: { temp: 29.5 }, band_flags: [], rules: [{ ...tight, unit_ids: ['H2'] }] }).status).toBe('ok');
  });
  it('lets a rule name the canonical metric for an industry that answers another name', () => {
    expect(judgeReading('poultry', { ...base, values: { temp: 31.5 }, band_flags: [], rules: [rule({ metric: 'temp_c' })] }).status).toBe('alarm');
    expect(judgeReading('poultry', { ...base, values: { humidity: 90 }, band_flags: [], rules: [rule({ metric: 'temp_c' })] }).status).toBe('ok');
  });
});

describe('vocabulary', () => {
  it('maps each industry\'s API names onto one canonical name per quantity and unit', () => {
    expect(canonicalName('poultry', 'temp')).toBe('temp_c');
    expect(canonicalName('swine', 'temp_c')).toBe('temp_c');
    expect(canonicalName('melioration', 'vwc_pct')).toBe('soil_moisture_pct');
    expect(canonicalName('poultry', 'pressure')).toBeUndefined();
    expect(toCanonical('poultry', { temp: 21, co2: undefined, ventilation: null, other: 3 })).toEqual({ temp_c: 21, ventilation_pct: null });
    expect(apiName('poultry', 'nh3_ppm')).toBe('nh3');
    expect(apiName('swine', 'nh3_ppm')).toBe('nh3_ppm');
  });
});

describe('in-force cache', () => {
  it('shares a load, reloads after a change or the TTL, and does not keep a failed load', async () => {
    const db = {} as Database;
    let loads = 0;
    const load = async () => ++loads;
    const t0 = 1_000_000;
    const [a, b] = await Promise.all([inForce(db, 'k', load, t0), inForce(db, 'k', load, t0)]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    expect(await inForce(db, 'k', load, t0 + 10)).toBe(1);
    inForceChanged(db);
    expect(await inForce(db, 'k', load, t0 + 20)).toBe(2);
    expect(await inForce(db, 'k', load, t0 + 20 + IN_FORCE_TTL_MS)).toBe(3);
    await expect(inForce(db, 'bad', async () => { throw new Error('db down'); }, t0)).rejects.toThrow('db down');
    expect(await inForce(db, 'bad', load, t0 + 1)).toBe(4);
    // Another database has its own entries.
    expect(await inForce({} as Database, 'k', async () => 'other', t0)).toBe('other');
  });
});
