// The poultry workspace (edge-single opens it first): one card per house with the flock's age day,
// climate now against the active age-phase target, open alarms, water and feed today against the
// expected amounts, each coloured by status. Built from whichever poultry resources the controller
// serves (poultry-flock, poultry-climate, poultry-feedwater, poultry-alarms or the industry alarms);
// a resource that is not served simply leaves its part out.
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, getList, query, type ListEnvelope } from '../lib/api';
import { cacheGet } from '../lib/cache';
import { formatValue, humanise } from '../lib/format';
import { dataTick } from '../lib/live';
import { href } from '../lib/router';
import { session, type Session } from '../lib/session';
import { useObservable } from '../lib/store';
import { LiveFeed } from '../components/LiveFeed';
import { ReadingAge, readingAge, StaleNote } from '../components/StaleNote';

type Row = Record<string, unknown>;
export type Tone = 'alarm' | 'warn' | 'ok' | 'none';

export function served(s: Session | null | undefined, path: string): boolean {
  if (!s) return false;
  for (const list of s.resources.values()) if (list.includes(path)) return true;
  return false;
}

export function hasPoultryApi(s: Session): boolean {
  return ['poultry-flock', 'poultry-feedwater', 'poultry-climate'].some((p) => served(s, p));
}

/** The alarm resource for poultry: its own, else the industry alarms, else the site's alarms. */
export function alarmSource(s: Session | null | undefined): { path: string; open: Record<string, string>; house: string } | null {
  if (served(s, 'poultry-alarms')) return { path: 'poultry-alarms', open: { status: 'active' }, house: 'house_id' };
  if (served(s, 'industry-alarms')) return { path: 'industry-alarms', open: { status: 'active', industry_code: 'poultry' }, house: 'unit_id' };
  if (served(s, 'alarms')) return { path: 'alarms', open: { state: 'open' }, house: 'source' };
  return null;
}

/** Climate metrics: the reading's key, and the active profile's target, band or limit keys. */
export const METRICS = [
  { key: 'temp', now: ['temp', 'temperature', 'temp_c'], target: ['target_temp_c', 'target_temp'], tolerance: ['temp_tolerance_c'], min: [], max: [], label: 'Temperature', unit: '°C' },
  { key: 'humidity', now: ['humidity', 'humidity_pct'], target: [], tolerance: [], min: ['humidity_min_pct', 'humidity_min'], max: ['humidity_max_pct', 'humidity_max'], label: 'Humidity', unit: '%' },
  { key: 'co2', now: ['co2', 'co2_ppm'], target: [], tolerance: [], min: [], max: ['co2_max_ppm', 'co2_max'], label: 'CO₂', unit: 'ppm' },
  { key: 'nh3', now: ['nh3', 'nh3_ppm'], target: [], tolerance: [], min: [], max: ['nh3_max_ppm', 'nh3_max'], label: 'NH₃', unit: 'ppm' },
  { key: 'ventilation', now: ['ventilation', 'ventilation_pct'], target: [], tolerance: [], min: ['min_ventilation_pct', 'ventilation_min'], max: [], label: 'Ventilation', unit: '%' },
] as const;
type Metric = (typeof METRICS)[number];

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function pick(o: Row | undefined, keys: readonly string[]): number | undefined {
  if (!o) return undefined;
  for (const k of keys) {
    const v = num(o[k]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The band a metric should stay in under this profile (undefined ends: no limit). */
export function bandOf(profile: Row | undefined, m: Metric): { min?: number; max?: number; target?: number } {
  const target = pick(profile, m.target);
  const tol = pick(profile, m.tolerance);
  if (target !== undefined && tol !== undefined) return { min: target - tol, max: target + tol, target };
  return { min: pick(profile, m.min), max: pick(profile, m.max), target };
}

/** A climate metric now (latest reading) against the active profile, with its tone. */
export function climateOf(profile: Row | undefined, reading: Row | undefined, m: Metric): { now?: number; target?: string; tone: Tone } {
  if (!profile && !reading) return { tone: 'none' };
  const now = pick(reading, m.now);
  const band = bandOf(profile, m);
  const flags = ((reading?.out_of_norm_flags as unknown[]) ?? []).map(String);
  const flagged = flags.some((f) => f.startsWith(`${m.key}_`));
  const out = now !== undefined && ((band.min !== undefined && now < band.min) || (band.max !== undefined && now > band.max));
  // An out-of-norm reading is shown in alarm colour (issue 11); in norm: ok.
  const tone: Tone = flagged || out ? 'alarm' : now !== undefined ? 'ok' : 'none';
  const r = (x: number) => formatValue({ type: 'number' }, x);
  const target =
    band.target !== undefined
      ? `${r(band.target)}${band.min !== undefined && band.max !== undefined ? ` (${r(band.min)}–${r(band.max)})` : ''}`
      : band.min !== undefined && band.max !== undefined
        ? `${r(band.min)}–${r(band.max)}`
        : band.max !== undefined
          ? `≤ ${r(band.max)}`
          : band.min !== undefined
            ? `≥ ${r(band.min)}`
            : undefined;
  return { now, target, tone };
}

/** The resource of climate readings (poultry-climate-readings), when the climate API serves one. */
export function readingsPath(s: Session | null | undefined): string | undefined {
  if (!s) return undefined;
  for (const list of s.resources.values()) {
    const p = list.find((x) => x.startsWith('poultry-climate') && /reading|telemetry/.test(x));
    if (p) return p;
  }
  return undefined;
}

export interface House {
  id: string;
  batch?: string;
  age?: number;
  subtype?: string;
  flock?: Row;
  climate?: Row;
  /** latest climate reading */
  reading?: Row;
  feedwater?: Row;
  alarms: Row[];
}

function worst(tones: Tone[]): Tone {
  return tones.includes('alarm') ? 'alarm' : tones.includes('warn') ? 'warn' : tones.includes('ok') ? 'ok' : 'none';
}

export function houseTone(h: House): Tone {
  const climate = METRICS.map((m) => climateOf(h.climate, h.reading, m).tone);
  const rs = h.reading?.status as string | undefined;
  const readingTone: Tone = rs === 'alarm' ? 'alarm' : rs === 'warn' ? 'warn' : 'none';
  const fw = h.feedwater?.operational_status as string | undefined;
  const fwTone: Tone = fw === 'alarm' ? 'alarm' : fw === 'warn' ? 'warn' : fw === 'ok' ? 'ok' : 'none';
  const alarmTone: Tone = h.alarms.some((a) => a.priority === 'P1' || a.severity === 'critical') ? 'alarm' : h.alarms.length ? 'warn' : 'none';
  // An old reading is not the house's climate now: its colours no longer count, its silence does.
  if (readingAge(h.reading)?.stale) return worst(['warn', fwTone, alarmTone]);
  return worst([...climate, readingTone, fwTone, alarmTone]);
}

/** What the house cards are built from: the lists of the poultry resources, as answered. */
export interface HouseParts { flocks: Row[]; climate: Row[]; feedwater: Row[]; open: Row[]; readings: Row[] }

/** The houses from the lists (the cards' and the house screen's one source of truth). */
export function assembleHouses({ flocks, climate, feedwater, open, readings }: HouseParts): Map<string, House> {
  const houses = new Map<string, House>();
  const get = (id: string) => {
    let h = houses.get(id);
    if (!h) houses.set(id, (h = { id, alarms: [] }));
    return h;
  };
  for (const f of flocks) {
    const h = get(String(f.house_id));
    h.flock = f;
    h.batch = String(f.batch_id ?? '');
    h.age = num(f.current_age_days) ?? h.age;
    h.subtype = String(f.subtype ?? '');
  }
  for (const c of climate) {
    if (c.active_by_age === false) continue;
    const h = get(String(c.house_id));
    h.climate ??= c;
    h.batch ||= String(c.batch_id ?? '');
    h.age ??= num(c.current_age_days);
  }
  for (const w of feedwater) {
    const h = get(String(w.house_id));
    if (!h.feedwater || String(w.last_counter_at ?? '') > String(h.feedwater.last_counter_at ?? '')) h.feedwater = w;
    h.batch ||= String(w.batch_id ?? '');
    h.age ??= num(w.age_days);
  }
  const latest = (r: Row) => {
    const h = get(String(r.house_id));
    if (!h.reading || String(r.ts ?? '') > String(h.reading.ts ?? '')) h.reading = r;
  };
  readings.forEach(latest);
  // A partial reading (humidity only, say) must not blank the rest of the house's climate: each
  // metric it lacks comes from the newest earlier reading that has it, while that one is not stale.
  for (const h of houses.values()) {
    if (!h.reading) continue;
    const merged: Row = { ...h.reading };
    for (const m of METRICS) {
      if (m.now.some((k) => num(merged[k]) !== undefined)) continue;
      const earlier = readings
        .filter((r) => String(r.house_id) === h.id && r.stale !== true && m.now.some((k) => num(r[k]) !== undefined))
        .sort((a, b) => String(b.ts ?? '').localeCompare(String(a.ts ?? '')))[0];
      if (earlier) for (const k of m.now) if (num(earlier[k]) !== undefined) merged[k] = earlier[k];
    }
    h.reading = merged;
  }
  for (const a of open) {
    const id = a.house_id ?? a.unit_id;
    if (id) get(String(id)).alarms.push(a);
  }
  return houses;
}

/**
 * The newest readings the cards look at: enough for every house's latest and the partial-reading
 * merge on a site polled every 10 s (a house missing from them is asked for alone, below). It was
 * 200 (78 KB for four houses, the slowest of the cards' lists).
 */
const READINGS_PAGE = 60;

/** The lists the cards are built from, as loadHouses asks for them: [resource, query]. */
const CARD_LISTS: [string, Record<string, string | number>][] = [
  ['poultry-flock', { status: 'active' }],
  ['poultry-climate', { age_mode: 'active' }],
  ['poultry-feedwater', { state: 'published' }],
  ['poultry-alarms', { status: 'active' }],
  ['poultry-climate-readings', { sort: 'ts', order: 'desc', limit: READINGS_PAGE }],
];
const listUrl = (path: string, params: Record<string, string | number>) => `/api/v1/${path}/list${query({ limit: 200, ...params })}`;

/**
 * Lists asked for at start-up, before the session is known (its four requests in a row take
 * about a quarter of a second on the box): only on the workspace route, and only when this
 * tablet's last session showed the poultry cards (their last answers are in the offline cache).
 * loadHouses takes an answer once, within PREFETCH_MS; anything else is asked for as usual.
 */
const PREFETCH_MS = 5_000;
const early = new Map<string, { at: number; answer: Promise<ListEnvelope<Row> | undefined> }>();
function prefetchCards(): void {
  try {
    if (location.hash !== '' && location.hash !== '#/' && location.hash !== '#') return;
    if (!cacheGet(listUrl('poultry-flock', { status: 'active' }))) return;
  } catch {
    return;
  }
  for (const [path, params] of CARD_LISTS) {
    const url = listUrl(path, params);
    const answer = fetch(url, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json', 'x-client-version': '0.1.0' } })
      .then((r) => (r.ok ? (r.json() as Promise<ListEnvelope<Row>>) : undefined))
      .catch(() => undefined);
    early.set(url, { at: Date.now(), answer });
  }
}
prefetchCards();

/** Loads the houses from every poultry resource served; the stale time when any answer was cached. */
export async function loadHouses(s: Session): Promise<{ houses: House[]; staleAt: string | null }> {
  let staleAt: string | null = null;
  const load = async (path: string, params: Record<string, string | number>) => {
    if (!served(s, path)) return [] as Row[];
    const url = listUrl(path, params);
    const pre = early.get(url);
    early.delete(url);
    if (pre && Date.now() - pre.at < PREFETCH_MS) {
      const answer = await pre.answer;
      if (answer && Array.isArray(answer.items)) return answer.items;
    }
    const r = await getList<Row>(url);
    if (r.stale && (!staleAt || r.at < staleAt)) staleAt = r.at;
    return r.data.items;
  };
  const alarms = alarmSource(s);
  const rp = readingsPath(s);
  const [flocks, climate, feedwater, open, readings] = await Promise.all([
    load('poultry-flock', { status: 'active' }).catch(() => load('poultry-flock', {})),
    load('poultry-climate', { age_mode: 'active' }).catch(() => [] as Row[]),
    load('poultry-feedwater', { state: 'published' }).catch(() => load('poultry-feedwater', {})),
    alarms && alarms.path !== 'alarms' ? load(alarms.path, alarms.open).catch(() => [] as Row[]) : Promise.resolve([] as Row[]),
    rp ? load(rp, { sort: 'ts', order: 'desc', limit: READINGS_PAGE }).catch(() => load(rp, { limit: READINGS_PAGE })).catch(() => [] as Row[]) : Promise.resolve([] as Row[]),
  ]);
  const houses = assembleHouses({ flocks, climate, feedwater, open: [], readings });
  const get = (id: string) => houses.get(id) ?? (houses.set(id, { id, alarms: [] }), houses.get(id)!);
  const latest = (r: Row) => {
    const h = get(String(r.house_id));
    if (!h.reading || String(r.ts ?? '') > String(h.reading.ts ?? '')) h.reading = r;
  };
  // A house that reported less recently than the newest page of readings: its own latest one.
  const quiet = rp && readings.length ? [...houses.values()].filter((h) => h.flock && !h.reading) : [];
  if (rp && quiet.length) {
    const more = await Promise.all(quiet.map((h) => load(rp, { house_id: h.id, sort: 'ts', order: 'desc', limit: 1 }).catch(() => [] as Row[])));
    more.flat().forEach(latest);
  }
  for (const a of open) {
    const id = a.house_id ?? a.unit_id;
    if (id) get(String(id)).alarms.push(a);
  }
  const sorted = [...houses.values()].sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }));
  return { houses: sorted, staleAt };
}

function Amount({ label, today, expected, deviation, unit }: { label: string; today: unknown; expected: unknown; deviation: unknown; unit: string }) {
  const t = num(today);
  const e = num(expected);
  const d = num(deviation);
  if (t === undefined && e === undefined) return null;
  return (
    <div>
      <dt>{label} today</dt>
      <dd>
        {formatValue({ type: 'number', unit }, t)}
        {e !== undefined ? <span class="muted"> of {formatValue({ type: 'number', unit }, e)}</span> : null}
        {d !== undefined ? <span class="muted"> ({d > 0 ? '+' : ''}{d.toFixed(0)}%)</span> : null}
      </dd>
    </div>
  );
}

export function HouseCard({ house }: { house: House }) {
  const tone = houseTone(house);
  const fw = house.feedwater;
  const fwStatus = fw?.operational_status as string | undefined;
  const p1 = house.alarms.filter((a) => a.priority === 'P1').length;
  const age = readingAge(house.reading);
  return (
    <li class={`house-card card tone-edge-${tone}`} data-house={house.id} data-tone={tone}>
      <a class="house-link" href={href('house', house.id)}>
        <span class="house-head">
          <span class="card-title">House {house.id}</span>
          {house.age !== undefined ? <span class="age">Day {house.age}</span> : null}
        </span>
        <span class="muted house-batch">
          {house.batch ? `Batch ${house.batch}` : ''}
          {house.subtype ? ` · ${humanise(house.subtype)}` : ''}
        </span>
        {house.climate || house.reading ? (
          <dl class={`metrics${age?.stale ? ' metrics-stale' : ''}`}>
            {METRICS.map((m) => {
              const c = climateOf(house.climate, house.reading, m);
              if (c.now === undefined && c.target === undefined) return null;
              const tone = age?.stale ? 'none' : c.tone;
              return (
                <div key={m.key} class={`metric tone-${tone}`} data-metric={m.key} data-tone={tone}>
                  <dt>{m.label}</dt>
                  <dd>
                    <span class="metric-now">{c.now !== undefined ? `${formatValue({ type: 'number' }, c.now)} ${m.unit}` : '—'}</span>
                    {c.target ? <span class="muted metric-target"> target {c.target} {m.unit}</span> : null}
                  </dd>
                </div>
              );
            })}
            {age && typeof house.reading?.ts === 'string' ? <ReadingAge ts={house.reading.ts} ageS={age.ageS} stale={age.stale} manual={house.reading.source === 'manual'} /> : null}
          </dl>
        ) : null}
        {fw ? (
          <dl class="metrics feedwater" data-tone={fwStatus}>
            <Amount label="Water" today={fw.water_today_l} expected={fw.expected_water_today_l} deviation={fw.water_deviation_pct} unit="L" />
            <Amount label="Feed" today={fw.feed_today_kg} expected={fw.expected_feed_today_kg} deviation={fw.feed_deviation_pct} unit="kg" />
            {fwStatus ? (
              <div>
                <dt>Feed and water</dt>
                <dd>
                  <span class={`badge tone-${fwStatus === 'alarm' ? 'alarm' : fwStatus === 'warn' ? 'warn' : 'ok'}`}>{humanise(fwStatus)}</span>
                  {Array.isArray(fw.anomaly_flags) && fw.anomaly_flags.length ? <span class="muted"> {(fw.anomaly_flags as string[]).map(humanise).join(', ')}</span> : null}
                </dd>
              </div>
            ) : null}
          </dl>
        ) : null}
        <span class={`house-alarms ${house.alarms.length ? 'tone-alarm' : ''}`}>
          {house.alarms.length ? `${house.alarms.length} open alarm${house.alarms.length > 1 ? 's' : ''}${p1 ? ` (${p1} P1)` : ''}` : 'No open alarms'}
        </span>
      </a>
    </li>
  );
}

const REFRESH_MS = 10_000;
/** Loads of a screen closer together than this are one (see PoultryHouses). */
export const COALESCE_MS = 2_000;

export function PoultryHouses() {
  const s = useObservable(session);
  const tick = useObservable(dataTick);
  const [data, setData] = useState<{ houses: House[]; staleAt: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const lastLoad = useRef(0);
  // Polled readings arrive without a status event, and a reading ages on its own: the cards are
  // reloaded every 10 s (the default poll period) besides on live news.
  const [beat, setBeat] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setBeat((b) => b + 1), REFRESH_MS);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    if (!s) return;
    let cancelled = false;
    // Live news reloads the cards, but not within 2 s of the last load: the live feed's first
    // answer (the recent events, just after the screen opens) would otherwise ask every list twice.
    const wait = data ? Math.max(300, lastLoad.current + COALESCE_MS - Date.now()) : 0;
    const t = setTimeout(() => {
      lastLoad.current = Date.now();
      loadHouses(s)
        .then((d) => {
          if (cancelled) return;
          setData(d);
          setError(null);
          // time to the first house card, for the budget (read by the browser test)
          if (d.houses.length && !performance.getEntriesByName('cabinet:first-house-card').length) {
            requestAnimationFrame(() => performance.mark('cabinet:first-house-card'));
          }
        })
        .catch((err) => !cancelled && setError(describeError(err)));
    }, wait);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [s, tick, beat]);
  const alarms = alarmSource(s);
  return (
    <div class="workspace" data-workspace="poultry">
      <div class="resource-head">
        <h1 id="workspace-title">Poultry workspace</h1>
        {alarms ? (
          <a class="btn" href={href('alarms')}>
            Alarms
          </a>
        ) : null}
      </div>
      {data?.staleAt ? <StaleNote at={data.staleAt} /> : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {!data ? <p class="loading">Loading houses...</p> : null}
      {data && data.houses.length === 0 ? <p class="empty">No house has a flock, climate profile or feed and water line yet.</p> : null}
      {data && data.houses.length ? (
        <ul class="cards houses" id="houses">
          {data.houses.map((h) => (
            <HouseCard key={h.id} house={h} />
          ))}
        </ul>
      ) : null}
      <LiveFeed limit={8} />
    </div>
  );
}
