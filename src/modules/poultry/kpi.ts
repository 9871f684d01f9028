// Production KPIs of a poultry batch, from its daily production records. Pure functions: the
// formulas are written once here, documented in the README, and tested with numbers worked by
// hand (test/unit/poultry-kpi.test.ts).
//
// Window: the records of the last `window_days` days up to the newest record (both ends
// included). Flow figures (feed, eggs, deaths, gain) are sums over the window; stock figures
// (birds alive, livability, weight, age) are read at the window's end.
//
// Broiler
//   birds_alive        = birds_placed - Σ(mortality + culls) up to the window's end
//   livability_pct     = birds_alive / birds_placed × 100
//   average_daily_gain_g = (W_last - W_first) / (day_last - day_first), the weighed days in the window
//   fcr (feed conversion ratio) = Σ feed_used_kg since placement / (birds_alive × W_last / 1000)
//                        (the industry's cumulative FCR, as EPEF uses it)
//   fcr_window         = Σ feed_used_kg of the days after the window's first weighing up to its last /
//                        live weight gained between them (kg), gain = (alive_last × W_last - alive_first × W_first) / 1000
//   epef (European Production Efficiency Factor) = livability_pct × (W_last / 1000) / (age_days × fcr) × 100
// Layer
//   hen_days           = Σ over the window's days of the hens alive at the start of the day
//   hen_day_production_pct = Σ eggs / hen_days × 100
//   egg_mass_g_per_hen_day = Σ(eggs × egg_weight_g) / hen_days
//   feed_per_kg_eggs   = Σ feed_used_kg / (Σ(eggs × egg_weight_g) / 1000)
//   mortality_pct      = Σ(mortality + culls) in the window / hens alive at the window's start × 100
// A figure whose inputs are missing (no weighing, no eggs weighed, zero feed) is null, never 0.

export interface ProductionDay {
  metric_date: string; // YYYY-MM-DD
  age_days: number | null;
  birds_placed: number | null;
  mortality: number;
  culls: number;
  avg_weight_g: number | null;
  feed_used_kg: number | null;
  eggs: number | null;
  egg_weight_g: number | null;
}

export interface BroilerKpi {
  window_days: number;
  from: string | null;
  to: string | null;
  birds_placed: number | null;
  birds_alive: number | null;
  livability_pct: number | null;
  mortality_window: number;
  average_daily_gain_g: number | null;
  average_weight_g: number | null;
  age_days: number | null;
  feed_total_kg: number | null;
  fcr: number | null;
  fcr_window: number | null;
  epef: number | null;
}

export interface LayerKpi {
  window_days: number;
  from: string | null;
  to: string | null;
  birds_placed: number | null;
  hens_alive: number | null;
  hen_days: number | null;
  eggs: number;
  hen_day_production_pct: number | null;
  egg_mass_g_per_hen_day: number | null;
  feed_per_kg_eggs: number | null;
  mortality_pct: number | null;
}

const DAY = 86_400_000;
const dayNo = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY);
const round = (n: number | null, digits: number): number | null => (n === null || !Number.isFinite(n) ? null : Number(n.toFixed(digits)));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function frame(days: ProductionDay[], windowDays: number, placedFallback: number | null) {
  const sorted = [...days].sort((a, b) => a.metric_date.localeCompare(b.metric_date));
  const last = sorted.at(-1);
  const end = last ? dayNo(last.metric_date) : 0;
  const inWindow = sorted.filter((d) => dayNo(d.metric_date) > end - windowDays);
  const placed = sorted.reduce<number | null>((p, d) => (d.birds_placed !== null ? Math.max(p ?? 0, d.birds_placed) : p), null) ?? placedFallback;
  const lossesBefore = (date: string) => sum(sorted.filter((d) => d.metric_date < date).map((d) => d.mortality + d.culls));
  const lossesTotal = sum(sorted.map((d) => d.mortality + d.culls));
  return { sorted, inWindow, placed, lossesBefore, lossesTotal, last };
}

export function broilerKpi(days: ProductionDay[], windowDays: number, placedFallback: number | null = null): BroilerKpi {
  const { sorted, inWindow, placed, lossesBefore, lossesTotal, last } = frame(days, windowDays, placedFallback);
  const alive = placed === null ? null : placed - lossesTotal;
  const weighed = inWindow.filter((d) => d.avg_weight_g !== null);
  const first = weighed[0];
  const lastW = weighed.at(-1);
  const adg = first && lastW && lastW !== first ? (lastW.avg_weight_g! - first.avg_weight_g!) / (dayNo(lastW.metric_date) - dayNo(first.metric_date)) : null;
  const feedAll = sorted.filter((d) => d.feed_used_kg !== null);
  const feedTotal = feedAll.length ? sum(feedAll.map((d) => d.feed_used_kg!)) : null;
  const weightEnd = lastW?.avg_weight_g ?? null;
  const fcr = feedTotal && alive && weightEnd ? feedTotal / ((alive * weightEnd) / 1000) : null;
  let fcrWindow: number | null = null;
  const feedWindow = first && lastW ? sum(inWindow.filter((d) => d.metric_date > first.metric_date && d.metric_date <= lastW.metric_date).map((d) => d.feed_used_kg ?? 0)) : 0;
  if (placed !== null && first && lastW && lastW !== first && feedWindow > 0) {
    const aliveFirst = placed - lossesBefore(first.metric_date) - first.mortality - first.culls;
    const aliveLast = placed - lossesBefore(lastW.metric_date) - lastW.mortality - lastW.culls;
    const gainKg = (aliveLast * lastW.avg_weight_g! - aliveFirst * first.avg_weight_g!) / 1000;
    fcrWindow = gainKg > 0 ? feedWindow / gainKg : null;
  }
  const livability = placed && alive !== null ? (alive / placed) * 100 : null;
  const age = lastW?.age_days ?? last?.age_days ?? null;
  const epef = livability !== null && weightEnd && age && fcr ? (livability * (weightEnd / 1000)) / (age * fcr) * 100 : null;
  return {
    window_days: windowDays,
    from: inWindow[0]?.metric_date ?? null,
    to: last?.metric_date ?? null,
    birds_placed: placed,
    birds_alive: alive,
    livability_pct: round(livability, 2),
    mortality_window: sum(inWindow.map((d) => d.mortality + d.culls)),
    average_daily_gain_g: round(adg, 1),
    average_weight_g: weightEnd,
    age_days: age,
    feed_total_kg: feedTotal === null ? null : round(feedTotal, 1),
    fcr: round(fcr, 3),
    fcr_window: round(fcrWindow, 3),
    epef: round(epef, 0),
  };
}

export function layerKpi(days: ProductionDay[], windowDays: number, placedFallback: number | null = null): LayerKpi {
  const { inWindow, placed, lossesBefore, lossesTotal, last } = frame(days, windowDays, placedFallback);
  const henDays = placed === null ? null : sum(inWindow.map((d) => placed - lossesBefore(d.metric_date)));
  const eggs = sum(inWindow.map((d) => d.eggs ?? 0));
  const weighedEggs = inWindow.filter((d) => d.eggs !== null && d.egg_weight_g !== null);
  const massG = weighedEggs.length ? sum(weighedEggs.map((d) => d.eggs! * d.egg_weight_g!)) : null;
  const feed = sum(inWindow.map((d) => d.feed_used_kg ?? 0));
  const atStart = placed === null || !inWindow[0] ? null : placed - lossesBefore(inWindow[0].metric_date);
  return {
    window_days: windowDays,
    from: inWindow[0]?.metric_date ?? null,
    to: last?.metric_date ?? null,
    birds_placed: placed,
    hens_alive: placed === null ? null : placed - lossesTotal,
    hen_days: henDays,
    eggs,
    hen_day_production_pct: henDays ? round((eggs / henDays) * 100, 2) : null,
    egg_mass_g_per_hen_day: henDays && massG !== null ? round(massG / henDays, 2) : null,
    feed_per_kg_eggs: massG && feed > 0 ? round(feed / (massG / 1000), 3) : null,
    mortality_pct: atStart ? round((sum(inWindow.map((d) => d.mortality + d.culls)) / atStart) * 100, 3) : null,
  };
}
