// Swine production KPIs over a window of days, as pure functions of the daily records (README
// "Swine: production KPIs" has the worked example the tests use).
//
// Growing pigs (weaner, grower, finisher; the records of all pens in the filter, summed per day):
//   head_start       = head count on the first day of the window that has records
//   mortality_pct    = deaths in the window / head_start x 100
//   ADG (g/day)      = (average weight at the last weighing - at the first) / days between x 1000
//                      (average weight of a day = head-weighted mean over its pens)
//   weight_gain_kg   = liveweight at the last weighing - liveweight at the first
//                      (liveweight = head x average weight, so dead pigs count as lost weight)
//   FCR              = feed used after the first weighing up to the last / weight_gain_kg
//                      (a record's feed_kg is the feed used since the previous record)
// Sows (category sow):
//   piglets_weaned_per_sow_year = piglets weaned in the window / average sows present
//                                 x 365 / window_days
//   piglets_per_litter          = piglets weaned / litters weaned
export interface DailyRecord {
  metric_date: string;
  category: string;
  head_count: number;
  deaths: number;
  culls: number;
  avg_weight_kg: number | null;
  feed_kg: number | null;
  sows_present: number | null;
  litters_weaned: number | null;
  piglets_weaned: number | null;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);

export interface GrowingKpi {
  records: number; first_date: string; last_date: string;
  head_start: number; head_end: number; deaths: number; culls: number; mortality_pct: number | null;
  first_weighing: string | null; last_weighing: string | null; avg_weight_start_kg: number | null; avg_weight_end_kg: number | null;
  adg_g: number | null; feed_kg: number | null; weight_gain_kg: number | null; fcr: number | null;
}

export function growingKpi(records: readonly DailyRecord[]): GrowingKpi | null {
  const rows = records.filter((r) => r.category !== 'sow' && r.category !== 'boar');
  if (!rows.length) return null;
  const byDate = new Map<string, { head: number; weighedHead: number; weightSum: number; deaths: number; culls: number; feed: number; feedSeen: boolean }>();
  for (const r of rows) {
    const d = byDate.get(r.metric_date) ?? { head: 0, weighedHead: 0, weightSum: 0, deaths: 0, culls: 0, feed: 0, feedSeen: false };
    d.head += r.head_count;
    d.deaths += r.deaths;
    d.culls += r.culls;
    if (r.avg_weight_kg !== null) { d.weighedHead += r.head_count; d.weightSum += r.head_count * r.avg_weight_kg; }
    if (r.feed_kg !== null) { d.feed += r.feed_kg; d.feedSeen = true; }
    byDate.set(r.metric_date, d);
  }
  const dates = [...byDate.keys()].sort();
  const first = byDate.get(dates[0]!)!;
  const last = byDate.get(dates[dates.length - 1]!)!;
  const deaths = rows.reduce((s, r) => s + r.deaths, 0);
  const culls = rows.reduce((s, r) => s + r.culls, 0);
  const weighed = dates.filter((d) => byDate.get(d)!.weighedHead > 0);
  let adg: number | null = null, gain: number | null = null, fcr: number | null = null, feed: number | null = null;
  let wStart: number | null = null, wEnd: number | null = null;
  if (weighed.length >= 1) {
    const s = byDate.get(weighed[0]!)!;
    const e = byDate.get(weighed[weighed.length - 1]!)!;
    wStart = s.weightSum / s.weighedHead;
    wEnd = e.weightSum / e.weighedHead;
    if (weighed.length >= 2) {
      const days = daysBetween(weighed[0]!, weighed[weighed.length - 1]!);
      adg = ((wEnd - wStart) / days) * 1000;
      gain = e.weightSum - s.weightSum;
      const feedDays = dates.filter((d) => d > weighed[0]! && d <= weighed[weighed.length - 1]! && byDate.get(d)!.feedSeen);
      if (feedDays.length) {
        feed = feedDays.reduce((sum, d) => sum + byDate.get(d)!.feed, 0);
        fcr = gain > 0 ? feed / gain : null;
      }
    }
  }
  return {
    records: rows.length, first_date: dates[0]!, last_date: dates[dates.length - 1]!,
    head_start: first.head, head_end: last.head, deaths, culls, mortality_pct: first.head > 0 ? r3((deaths / first.head) * 100) : null,
    first_weighing: weighed[0] ?? null, last_weighing: weighed[weighed.length - 1] ?? null,
    avg_weight_start_kg: wStart === null ? null : r3(wStart), avg_weight_end_kg: wEnd === null ? null : r3(wEnd),
    adg_g: adg === null ? null : r3(adg), feed_kg: feed === null ? null : r3(feed), weight_gain_kg: gain === null ? null : r3(gain), fcr: fcr === null ? null : r3(fcr),
  };
}

export interface SowKpi { records: number; sows_avg: number | null; litters_weaned: number; piglets_weaned: number; piglets_weaned_per_sow_year: number | null; piglets_per_litter: number | null; deaths: number; mortality_pct: number | null }

export function sowKpi(records: readonly DailyRecord[], windowDays: number): SowKpi | null {
  const rows = records.filter((r) => r.category === 'sow');
  if (!rows.length) return null;
  const sowsByDate = new Map<string, number>();
  for (const r of rows) if (r.sows_present !== null) sowsByDate.set(r.metric_date, (sowsByDate.get(r.metric_date) ?? 0) + r.sows_present);
  const sowsAvg = sowsByDate.size ? [...sowsByDate.values()].reduce((a, b) => a + b, 0) / sowsByDate.size : null;
  const litters = rows.reduce((s, r) => s + (r.litters_weaned ?? 0), 0);
  const piglets = rows.reduce((s, r) => s + (r.piglets_weaned ?? 0), 0);
  const deaths = rows.reduce((s, r) => s + r.deaths, 0);
  return {
    records: rows.length, sows_avg: sowsAvg === null ? null : r3(sowsAvg), litters_weaned: litters, piglets_weaned: piglets,
    piglets_weaned_per_sow_year: sowsAvg ? r3((piglets / sowsAvg) * (365 / windowDays)) : null,
    piglets_per_litter: litters > 0 ? r3(piglets / litters) : null,
    deaths, mortality_pct: sowsAvg ? r3((deaths / sowsAvg) * 100) : null,
  };
}
