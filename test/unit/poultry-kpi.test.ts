// Poultry production KPIs against numbers worked by hand (the working is in the comments).
import { describe, expect, it } from 'vitest';
import { broilerKpi, layerKpi, type ProductionDay } from '../../src/modules/poultry/kpi.js';

const day = (d: Partial<ProductionDay> & { metric_date: string }): ProductionDay => ({
  age_days: null, birds_placed: null, mortality: 0, culls: 0, avg_weight_g: null, feed_used_kg: null, eggs: null, egg_weight_g: null, ...d,
});

// Broiler batch: 1,000 chicks placed on 1 January.
const broiler = [
  day({ metric_date: '2026-01-01', age_days: 0, birds_placed: 1000, mortality: 5, avg_weight_g: 42, feed_used_kg: 10 }),
  day({ metric_date: '2026-01-15', age_days: 14, mortality: 10, culls: 5, avg_weight_g: 450, feed_used_kg: 600 }),
  day({ metric_date: '2026-01-29', age_days: 28, mortality: 10, avg_weight_g: 1500, feed_used_kg: 1400 }),
  day({ metric_date: '2026-02-05', age_days: 35, mortality: 10, avg_weight_g: 2200, feed_used_kg: 1490 }),
];

describe('broiler KPI', () => {
  it('computes livability, FCR and EPEF at the end of the batch', () => {
    const k = broilerKpi(broiler, 42);
    // losses 5 + 15 + 10 + 10 = 40 -> 960 alive of 1,000 -> 96 %
    expect(k).toMatchObject({ birds_placed: 1000, birds_alive: 960, livability_pct: 96, age_days: 35, average_weight_g: 2200, feed_total_kg: 3500, from: '2026-01-01', to: '2026-02-05' });
    // FCR = 3,500 kg / (960 × 2.2 kg) = 3,500 / 2,112 = 1.6572
    expect(k.fcr).toBe(1.657);
    // EPEF = 96 × 2.2 / (35 × 1.6572) × 100 = 211.2 / 58.002 × 100 = 364.1
    expect(k.epef).toBe(364);
    // ADG over the window = (2,200 - 42) g / 35 days = 61.66
    expect(k.average_daily_gain_g).toBe(61.7);
  });

  it('restricts flows to the window and reads stock at its end', () => {
    // 8 days back from 5 Feb reaches 29 Jan; 7 days does not.
    const k8 = broilerKpi(broiler, 8);
    expect(k8.from).toBe('2026-01-29');
    expect(k8.mortality_window).toBe(20);
    // ADG = (2,200 - 1,500) / 7 = 100
    expect(k8.average_daily_gain_g).toBe(100);
    // alive on 29 Jan = 1,000 - 20 - 10 = 970; on 5 Feb = 960
    // gain = (960 × 2,200 - 970 × 1,500) / 1,000 = 657 kg; feed after 29 Jan = 1,490 kg -> 2.268
    expect(k8.fcr_window).toBe(2.268);
    expect(k8.livability_pct).toBe(96);
    const k7 = broilerKpi(broiler, 7);
    expect(k7.from).toBe('2026-02-05');
    expect(k7.average_daily_gain_g).toBeNull();
    expect(k7.fcr_window).toBeNull();
  });

  it('leaves figures without inputs null, and takes birds placed from the flock when no record has them', () => {
    const k = broilerKpi([day({ metric_date: '2026-01-02', mortality: 3 })], 7);
    expect(k).toMatchObject({ birds_placed: null, livability_pct: null, fcr: null, epef: null, average_daily_gain_g: null });
    expect(broilerKpi([day({ metric_date: '2026-01-02', mortality: 3 })], 7, 500).livability_pct).toBe(99.4);
  });
});

// Layer flock: 100 hens.
const layer = [
  day({ metric_date: '2026-03-01', birds_placed: 100, mortality: 1, eggs: 90, egg_weight_g: 60, feed_used_kg: 11 }),
  day({ metric_date: '2026-03-02', eggs: 92, egg_weight_g: 61, feed_used_kg: 11 }),
  day({ metric_date: '2026-03-03', mortality: 1, eggs: 88, egg_weight_g: 62, feed_used_kg: 10.5 }),
];

describe('layer KPI', () => {
  it('computes hen-day production, egg mass, feed per kg of eggs and mortality', () => {
    const k = layerKpi(layer, 3);
    // hen-days = 100 + 99 + 99 = 298; eggs 270 -> 90.60 %
    expect(k).toMatchObject({ hen_days: 298, eggs: 270, hens_alive: 98, hen_day_production_pct: 90.6 });
    // egg mass = (90×60 + 92×61 + 88×62) g / 298 = 16,468 / 298 = 55.26 g
    expect(k.egg_mass_g_per_hen_day).toBe(55.26);
    // feed per kg of eggs = 32.5 kg / 16.468 kg = 1.9735
    expect(k.feed_per_kg_eggs).toBe(1.974);
    // mortality = 2 / 100 = 2 %
    expect(k.mortality_pct).toBe(2);
  });

  it('windows to the last two days', () => {
    const k = layerKpi(layer, 2);
    // hen-days 99 + 99 = 198; eggs 180 -> 90.91 %; mass 11,068 g / 198 = 55.90; feed 21.5 / 11.068 = 1.9425; mortality 1 / 99
    expect(k).toMatchObject({ from: '2026-03-02', hen_days: 198, eggs: 180, hen_day_production_pct: 90.91, egg_mass_g_per_hen_day: 55.9, feed_per_kg_eggs: 1.943, mortality_pct: 1.01 });
  });
});
