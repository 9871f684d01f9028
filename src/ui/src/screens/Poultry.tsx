// The poultry workspace (edge-single opens it first): one card per house with the flock's age day,
// climate now against the active age-phase target, its alarms, water and feed today against the
// expected amounts. Built from whichever poultry resources the controller serves (poultry-flock,
// poultry-climate, poultry-feedwater, the readings); a resource that is not served leaves its part
// out. The alarms come from the one alarm store (lib/alarms.ts), never from a query of the cards:
// an alarm stays on its house until its condition returned and it was acknowledged.
// Colour means priority: the card takes its colour from its alarms only (red for an active P1 or
// critical, amber for a P2 or a warning); a value out of its band is marked on the value, in
// words, and does not paint the card.
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, getList, query, type ListEnvelope } from '../lib/api';
import { alarmStore, type AlarmItem } from '../lib/alarms';
import { cacheGet } from '../lib/cache';
import { formatTime, isToday } from '../lib/format';
import { t } from '../lib/i18n';
import { dataTick } from '../lib/live';
import { href } from '../lib/router';
import { session, staleSince, type Session } from '../lib/session';
import { useObservable } from '../lib/store';
import { LiveFeed } from '../components/LiveFeed';
import { AdapterList } from '../components/adapters/AdapterList';
import { ReadingAge, readingAge, StaleNote } from '../components/StaleNote';
import { alarmCause, alarmTitle, alarmWords, anomalyWord, kindWord, lineStateWord, metricWord, targetWords, valueWords, type MetricKey, type Unit } from './poultry-words';

export { alarmWords };

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


/**
 * Climate metrics: the reading's key, and the active profile's target, band or limit keys; the
 * unit by id (its words, like the metric's name, are the catalogue's: poultry-words.ts).
 */
export const METRICS = [
  { key: 'temp', now: ['temp', 'temperature', 'temp_c'], target: ['target_temp_c', 'target_temp'], tolerance: ['temp_tolerance_c'], min: [], max: [], unit: 'c' },
  { key: 'humidity', now: ['humidity', 'humidity_pct'], target: [], tolerance: [], min: ['humidity_min_pct', 'humidity_min'], max: ['humidity_max_pct', 'humidity_max'], unit: 'pct' },
  { key: 'co2', now: ['co2', 'co2_ppm'], target: [], tolerance: [], min: [], max: ['co2_max_ppm', 'co2_max'], unit: 'ppm' },
  { key: 'nh3', now: ['nh3', 'nh3_ppm'], target: [], tolerance: [], min: [], max: ['nh3_max_ppm', 'nh3_max'], unit: 'ppm' },
  { key: 'ventilation', now: ['ventilation', 'ventilation_pct'], target: [], tolerance: [], min: ['min_ventilation_pct', 'ventilation_min'], max: [], unit: 'pct' },
] as const satisfies readonly { key: MetricKey; unit: Unit; now: readonly string[]; target: readonly string[]; tolerance: readonly string[]; min: readonly string[]; max: readonly string[] }[];
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

/**
 * A climate metric now (latest reading) against the active profile: `out` says which side of its
 * band it is on (marked on the value, in words); `tone` is the value's state, never the card's.
 */
export function climateOf(profile: Row | undefined, reading: Row | undefined, m: Metric): { now?: number; target?: string; out?: 'above' | 'below'; tone: Tone } {
  if (!profile && !reading) return { tone: 'none' };
  const now = pick(reading, m.now);
  const band = bandOf(profile, m);
  const flags = ((reading?.out_of_norm_flags as unknown[]) ?? []).map(String);
  const flagged = flags.some((f) => f.startsWith(`${m.key}_`));
  const below = now !== undefined && band.min !== undefined && now < band.min;
  const above = now !== undefined && band.max !== undefined && now > band.max;
  // The box's out-of-norm flag without a band to compare with (low or high): the flag's own side.
  const side = flags.find((f) => f.startsWith(`${m.key}_`));
  const out = above ? 'above' : below ? 'below' : flagged ? (side?.endsWith('low') || side?.endsWith('below') ? 'below' : 'above') : undefined;
  // Out of band is a warning on the value; an alarm, if there is one, is the box's to raise.
  const tone: Tone = out ? 'warn' : now !== undefined ? 'ok' : 'none';
  return { now, target: targetWords(band, m.unit), out, tone };
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
  /** Its listed alarms from the alarm store (every state but normal), in the store's order. */
  alarms: AlarmItem[];
}

/**
 * The card's colour: its alarms' tone as the box gave it (alarm: an active P1 or critical; warn: a
 * P2, a warning, or back to normal and not acknowledged), nothing else. Suppressed ones do not paint.
 */
export function houseTone(h: House): Tone {
  return h.alarms.some((a) => a.tone === 'alarm') ? 'alarm' : h.alarms.some((a) => a.tone === 'warn') ? 'warn' : 'none';
}

/** The store's alarms of a poultry house: the box's own (not a farm's on a master), by unit. */
export function houseAlarms(items: AlarmItem[] | null, id: string): AlarmItem[] {
  return (items ?? []).filter((a) => a.farm === null && a.unit_id === id && (a.industry === 'poultry' || a.industry === null));
}

/** A controller of the house does not answer: the first such alarm still active. */
export function commLost(h: House): AlarmItem | undefined {
  return h.alarms.find((a) => a.comm_loss && a.condition === 'active' && a.state !== 'normal');
}

/** Each house with its alarms from the store; a house known only by an alarm gets a card of its own. */
export function withAlarms(houses: House[], items: AlarmItem[] | null): House[] {
  const byId = new Map(houses.map((h) => [h.id, { ...h, alarms: houseAlarms(items, h.id) }]));
  for (const a of items ?? []) {
    if (a.farm !== null || a.industry !== 'poultry' || !a.unit_id || byId.has(a.unit_id)) continue;
    byId.set(a.unit_id, { id: a.unit_id, alarms: houseAlarms(items, a.unit_id) });
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }));
}

/** What the house cards are built from: the lists of the poultry resources, as answered. */
export interface HouseParts { flocks: Row[]; climate: Row[]; feedwater: Row[]; readings: Row[] }

/** The houses from the lists (the cards' and the house screen's one source of truth); alarms from the store, apart. */
export function assembleHouses({ flocks, climate, feedwater, readings }: HouseParts): Map<string, House> {
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
  const rp = readingsPath(s);
  const [flocks, climate, feedwater, readings] = await Promise.all([
    load('poultry-flock', { status: 'active' }).catch(() => load('poultry-flock', {})),
    load('poultry-climate', { age_mode: 'active' }).catch(() => [] as Row[]),
    load('poultry-feedwater', { state: 'published' }).catch(() => load('poultry-feedwater', {})),
    rp ? load(rp, { sort: 'ts', order: 'desc', limit: READINGS_PAGE }).catch(() => load(rp, { limit: READINGS_PAGE })).catch(() => [] as Row[]) : Promise.resolve([] as Row[]),
  ]);
  const houses = assembleHouses({ flocks, climate, feedwater, readings });
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
  const sorted = [...houses.values()].sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }));
  return { houses: sorted, staleAt };
}

/** Water or feed today against the amount expected by now, and how far off it is. */
function Amount({ label, today, expected, deviation, unit }: { label: string; today: unknown; expected: unknown; deviation: unknown; unit: Unit }) {
  const now = num(today);
  const e = num(expected);
  const d = num(deviation);
  if (now === undefined && e === undefined) return null;
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <span class="amount-now">{valueWords(now, unit)}</span>
        {e !== undefined ? <span class="muted"> {t('overview.amount.of', { amount: valueWords(e, unit) })}</span> : null}
        {d !== undefined ? <span class="muted"> {t('overview.amount.deviation', { d: Math.round(d) })}</span> : null}
      </dd>
    </div>
  );
}

/**
 * A house card. `offline`: the box does not answer (the time it last did): the values are the last
 * known ones, greyed, with their time. A controller's communication loss greys them at once too.
 */
export function HouseCard({ house, offline = null }: { house: House; offline?: string | null }) {
  const tone = houseTone(house);
  const fw = house.feedwater;
  const fwStatus = fw?.operational_status as string | undefined;
  const fwToday = fw !== undefined && isToday(fw.local_date);
  const age = readingAge(house.reading);
  const lost = commLost(house);
  const greyed = Boolean(age?.stale || lost || offline);
  const top = house.alarms[0];
  const birds = num(fw?.birds) ?? num(house.flock?.birds_placed);
  return (
    <li class={`house-card card tone-edge-${tone}`} data-house={house.id} data-tone={tone} data-offline={offline ? 'true' : 'false'} data-comm-lost={lost ? 'true' : 'false'}>
      <a class="house-link" href={href('house', house.id)}>
        <span class="house-head">
          <span class="card-title">{t('overview.house', { id: house.id })}</span>
          {house.age !== undefined ? <span class="age">{t('overview.day', { n: house.age })}</span> : null}
        </span>
        <span class="muted house-batch">
          {/* Each part on its own: a long batch name or kind in a longer language wraps between them, never through one. */}
          {house.batch ? <span class="house-part">{t('overview.batch', { batch: house.batch })}</span> : null}
          {house.subtype ? <span class="house-part">{kindWord(house.subtype)}</span> : null}
          {birds !== undefined ? <span class="house-part house-birds">{t('overview.birds', { n: birds })}</span> : null}
        </span>
        {lost ? (
          <span class="comm-lost" role="status">
            {t('overview.commLost', { time: formatTime(lost.raised_at) })}
          </span>
        ) : null}
        {house.climate || house.reading ? (
          <dl class={`metrics${greyed ? ' metrics-stale' : ''}`}>
            {METRICS.map((m) => {
              const c = climateOf(house.climate, house.reading, m);
              if (c.now === undefined && c.target === undefined) return null;
              // An old or cut-off value is not the house's climate now: no mark on it.
              const out = greyed ? undefined : c.out;
              return (
                <div key={m.key} class={`metric${out ? ' metric-out' : ''}`} data-metric={m.key} data-tone={greyed ? 'none' : c.tone} data-out={out ?? 'no'}>
                  <dt>{metricWord(m.key)}</dt>
                  <dd>
                    <span class="metric-now">{valueWords(c.now, m.unit)}</span>
                    {out ? <span class="metric-out-words"> {t(out === 'above' ? 'overview.out.above' : 'overview.out.below')}</span> : null}
                    {c.target ? <span class="muted metric-target"> {c.target}</span> : null}
                  </dd>
                </div>
              );
            })}
            {age && typeof house.reading?.ts === 'string' ? (
              <ReadingAge ts={house.reading.ts} ageS={age.ageS} stale={age.stale} manual={house.reading.source === 'manual'} offline={Boolean(offline)} />
            ) : null}
          </dl>
        ) : null}
        {fw ? (
          <dl class="metrics feedwater" data-tone={fwStatus}>
            {/* The record's "today" is the day of its last meter reading: after midnight, until the new day's first, those figures are yesterday's and not shown as today's. */}
            {fwToday ? <Amount label={t('overview.water.today')} today={fw.water_today_l} expected={fw.expected_water_today_l} deviation={fw.water_deviation_pct} unit="l" /> : null}
            {fwToday ? <Amount label={t('overview.feed.today')} today={fw.feed_today_kg} expected={fw.expected_feed_today_kg} deviation={fw.feed_deviation_pct} unit="kg" /> : null}
            {fwStatus ? (
              <div>
                <dt>{t('overview.feedwater')}</dt>
                <dd>
                  {/* The line's own state, in words; its alarms (if any) colour the card. */}
                  <span class={`badge fw-state${fwStatus === 'ok' ? ' tone-ok' : ''}`}>{lineStateWord(fwStatus)}</span>
                  {Array.isArray(fw.anomaly_flags) && fw.anomaly_flags.length ? <span class="muted"> {(fw.anomaly_flags as string[]).map(anomalyWord).join(', ')}</span> : null}
                </dd>
              </div>
            ) : null}
          </dl>
        ) : null}
        <span class={`house-alarms tone-${tone}`} data-alarms={house.alarms.length}>
          {house.alarms.length ? (
            <>
              <span class="house-alarms-words">{alarmWords(house.alarms)}</span>
              {top ? <span class="house-alarm-cause">{alarmCause(top) ?? alarmTitle(top)}</span> : null}
            </>
          ) : offline ? (
            t('overview.alarmsUnknown')
          ) : (
            t('overview.noAlarms')
          )}
        </span>
      </a>
    </li>
  );
}

/** The tone legend of the overview: what each colour of a card means. */
export function ToneLegend() {
  return (
    <ul class="tone-legend" id="tone-legend" aria-label={t('overview.legend.label')}>
      <li class="legend-alarm">{t('overview.legend.alarm')}</li>
      <li class="legend-warn">{t('overview.legend.warn')}</li>
      <li class="legend-out">{t('overview.legend.out')}</li>
      <li class="legend-grey">{t('overview.legend.grey')}</li>
    </ul>
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
    const timer = setInterval(() => setBeat((b) => b + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    if (!s) return;
    let cancelled = false;
    // Live news reloads the cards, but not within 2 s of the last load: the live feed's first
    // answer (the recent events, just after the screen opens) would otherwise ask every list twice.
    const wait = data ? Math.max(300, lastLoad.current + COALESCE_MS - Date.now()) : 0;
    const timer = setTimeout(() => {
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
      clearTimeout(timer);
    };
  }, [s, tick, beat]);
  const store = useObservable(alarmStore);
  const globalStale = useObservable(staleSince);
  // The box out of reach (this screen's own read or the alarm store's): values are the last known ones.
  const offline = data?.staleAt ?? (store.reachable ? null : new Date(store.unknownSince ?? Date.now()).toISOString());
  const houses = data ? withAlarms(data.houses, store.items) : [];
  return (
    <div class="workspace" data-workspace="poultry">
      <div class="resource-head">
        <h1 id="workspace-title">{t('overview.title')}</h1>
        {store.items ? (
          <a class="btn" href={href('alarms')}>
            {t('overview.alarms')}
          </a>
        ) : null}
      </div>
      {/* The shell's own note (app.tsx) already says it when the session itself was loaded stale. */}
      {offline && !globalStale ? <StaleNote at={offline} /> : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {!data ? <p class="loading">{t('overview.loading')}</p> : null}
      {data && houses.length === 0 ? <p class="empty">{t('overview.empty')}</p> : null}
      {houses.length ? (
        <>
          <ul class="cards houses" id="houses">
            {houses.map((h) => (
              <HouseCard key={h.id} house={h} offline={offline} />
            ))}
          </ul>
          <ToneLegend />
        </>
      ) : null}
      <LiveFeed limit={8} />
    </div>
  );
}

/**
 * Poultry -> Adapters: the house controllers' adapter profiles, each with whether it answers the
 * box (components/adapters/AdapterList.tsx).
 */
export function PoultryAdapters() {
  return <AdapterList path="poultry-adapters" industry="poultry" />;
}
