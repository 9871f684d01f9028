// A house: its open alarms first, then its card and the climate targets (the setpoint flow), then
// its charts against their bands, from the roll-ups. The screen asks each resource once per load
// (flock, climate phases, feed and water line, its days, alarms, latest readings, the hourly
// roll-up: seven requests; it used to make 16, with duplicates) and reloads on live news, every
// 30 s (polled readings bring no status event) and after a setpoint change.
// (The alarm list itself is the one inbox: screens/AlarmInbox.tsx.)
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, getList, getLoaded, query } from '../lib/api';
import { dataTick } from '../lib/live';
import { href } from '../lib/router';
import { session, type Session } from '../lib/session';
import { useObservable } from '../lib/store';
import { useNow } from '../components/hooks';
import { StaleNote } from '../components/StaleNote';
import { when } from '../components/chart-time';
import { alarmSource, assembleHouses, COALESCE_MS, HouseCard, readingsPath, served, type House } from './Poultry';
import { ClimateCharts, PerBirdCharts, RangeSwitch, useRange } from './HouseCharts';
import { SetpointFlow } from './SetpointFlow';

type Row = Record<string, unknown>;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The hourly roll-up answers at most this many days. */
const HOURLY_MAX_DAYS = 120;
const RELOAD_MS = 30_000;

interface HouseData { house: House; phases: Row[]; days: Row[]; line: Row | undefined; hours: Row[]; alarms: Row[]; alarmPath: string | null; staleAt: string | null }

/** Everything the house screen shows, one request per resource (the roll-up once the flock is known). */
async function loadHouse(s: Session, id: string): Promise<HouseData> {
  let staleAt: string | null = null;
  const note = (r: { stale: boolean; at?: string }) => {
    if (r.stale && r.at && (!staleAt || r.at < staleAt)) staleAt = r.at;
  };
  const list = async (path: string, params: Record<string, string | number>): Promise<Row[]> => {
    if (!served(s, path)) return [];
    const r = await getList<Row>(`/api/v1/${path}/list${query(params)}`);
    note(r);
    return r.data.items;
  };
  const src = alarmSource(s);
  const rp = readingsPath(s);
  const flockP = list('poultry-flock', { house_id: id, status: 'active', limit: 5 }).catch(() => [] as Row[]);
  // The hourly roll-up of the batch: from the placement (at most 120 days back) to this hour's end.
  const hoursP = flockP.then(async (flocks) => {
    if (!rp) return [] as Row[];
    const flock = flocks[0];
    const to = Math.ceil((Date.now() + 1) / HOUR) * HOUR;
    const start = typeof flock?.start_date === 'string' ? Date.parse(`${flock.start_date}T00:00:00Z`) : NaN;
    const from = Number.isFinite(start) ? Math.max(start, to - HOURLY_MAX_DAYS * DAY) : to - 7 * DAY;
    const params = { house_id: id, ...(flock?.batch_id ? { batch_id: String(flock.batch_id) } : {}), from: new Date(from).toISOString(), to: new Date(to).toISOString() };
    const r = await getLoaded<{ item: { items: Row[] } }>(`/api/v1/${rp}/hourly${query(params)}`);
    note(r as { stale: boolean; at?: string });
    return r.data.item.items;
  }).catch(() => [] as Row[]);
  const [flocks, phases, lines, days, alarms, readings, hours] = await Promise.all([
    flockP,
    list('poultry-climate', { house_id: id, state: 'published', limit: 200 }).catch(() => [] as Row[]),
    list('poultry-feedwater', { house_id: id, state: 'published', limit: 20 }).catch(() => [] as Row[]),
    list('poultry-feedwater-days', { house_id: id, sort: 'local_date', order: 'desc', limit: 200 }).catch(() => [] as Row[]),
    // The house's alarms, newest first; the open ones (active or acknowledged) are shown.
    src && src.path !== 'alarms' ? list(src.path, { [src.house]: id, sort: 'raised_at', order: 'desc', limit: 50 }).catch(() => [] as Row[]) : Promise.resolve([] as Row[]),
    rp ? list(rp, { house_id: id, limit: 20 }).catch(() => [] as Row[]) : Promise.resolve([] as Row[]),
    hoursP,
  ]);
  const open = alarms.filter((a) => a.status !== 'cleared' && a.state !== 'closed');
  const houses = assembleHouses({ flocks, climate: phases, feedwater: lines, open, readings });
  const house = houses.get(id) ?? { id, alarms: [] };
  return {
    house,
    phases: phases.filter((p) => !house.batch || p.batch_id === house.batch),
    days,
    line: house.feedwater,
    hours,
    alarms: open,
    alarmPath: src && src.path !== 'alarms' ? src.path : null,
    staleAt,
  };
}

/** "12 min left" / "overdue by 4 min" */
function sla(deadline: unknown, now: number): { text: string; overdue: boolean } | null {
  if (typeof deadline !== 'string') return null;
  const ms = Date.parse(deadline) - now;
  if (Number.isNaN(ms)) return null;
  const m = Math.max(1, Math.round(Math.abs(ms) / 60_000));
  const span = m >= 120 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m} min`;
  return ms >= 0 ? { text: `${span} left`, overdue: false } : { text: `overdue by ${span}`, overdue: true };
}

/** The house's open alarms, at the top of the screen: what, since when, state, time left. */
function HouseAlarms({ alarms, path }: { alarms: Row[]; path: string | null }) {
  const now = useNow(15_000);
  if (!path) return null;
  const order = (a: Row) => (a.status === 'acked' ? 2 : 0) + (a.priority === 'P1' ? 0 : 1);
  const sorted = [...alarms].sort((a, b) => order(a) - order(b) || String(b.raised_at).localeCompare(String(a.raised_at)));
  return (
    <section class={`panel house-alarms-panel${alarms.length ? ' has-alarms' : ''}`} id="house-alarms" aria-labelledby="house-alarms-h">
      <h2 id="house-alarms-h">{alarms.length ? `Alarms in this house (${alarms.length})` : 'No open alarms in this house'}</h2>
      {alarms.length ? (
        <ul class="house-alarm-list">
          {sorted.map((a) => {
            const left = a.status === 'acked' ? null : sla(a.sla_deadline_at, now);
            const p1 = a.priority === 'P1';
            return (
              <li key={String(a.id)} data-alarm={String(a.id)} class={`house-alarm tone-edge-${a.status === 'acked' ? 'warn' : p1 ? 'alarm' : 'warn'}`}>
                <a href={href('resource', path, { id: String(a.id) })}>
                  <span class={`badge tone-${p1 ? 'alarm' : 'warn'}`}>{String(a.priority ?? a.severity ?? '')}</span>{' '}
                  <strong class="house-alarm-title">{String(a.title ?? 'Alarm')}</strong>
                  <span class="house-alarm-when">
                    since {typeof a.raised_at === 'string' ? when(a.raised_at) : '?'}
                    {a.status === 'acked' ? ' · acknowledged, still active' : ''}
                    {left ? <span class={left.overdue ? 'tone-alarm' : ''}> · {left.text}</span> : null}
                  </span>
                </a>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}

export function HouseScreen({ id }: { id: string }) {
  const s = useObservable(session);
  const tick = useObservable(dataTick);
  const [data, setData] = useState<HouseData | null>(null);
  const [error, setError] = useState('');
  const [beat, setBeat] = useState(0);
  const [range, setRange] = useRange();
  const lastLoad = useRef(0);
  useEffect(() => {
    const t = setInterval(() => setBeat((b) => b + 1), RELOAD_MS);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    if (!s) return;
    let cancelled = false;
    // Live news reloads the screen, at most once in COALESCE_MS (the live feed's first answer comes just after it opens).
    const wait = lastLoad.current ? Math.max(0, lastLoad.current + COALESCE_MS - Date.now()) : 0;
    const t = setTimeout(() => {
      lastLoad.current = Date.now();
      loadHouse(s, id)
        .then((d) => {
          if (cancelled) return;
          setData(d);
          setError('');
          if (!performance.getEntriesByName('cabinet:house-screen').length) requestAnimationFrame(() => performance.mark('cabinet:house-screen'));
        })
        .catch((err) => !cancelled && setError(describeError(err)));
    }, wait);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [s, id, tick, beat]);
  if (!s) return null;
  const house = data?.house;
  return (
    <div class="house house-screen" data-house-screen={id}>
      <h1>House {id}</h1>
      {data?.staleAt ? <StaleNote at={data.staleAt} /> : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {!data ? <p class="loading">Loading the house...</p> : null}
      {data ? <HouseAlarms alarms={data.alarms} path={data.alarmPath} /> : null}
      {house ? (
        <div class="house-top">
          <ul class="cards houses single">
            <HouseCard house={house} />
          </ul>
          {served(s, 'poultry-climate') ? <SetpointFlow house={house} onChanged={() => setBeat((b) => b + 1)} /> : null}
        </div>
      ) : null}
      {data && house ? (
        <section class="house-charts" aria-labelledby="house-charts-h">
          <div class="resource-head">
            <h2 id="house-charts-h">Climate, water and feed against their bands</h2>
            <RangeSwitch range={range} onChange={setRange} />
          </div>
          <div class="chart-grid">
            {readingsPath(s) ? <ClimateCharts house={house} hours={data.hours} phases={data.phases} range={range} /> : null}
            {served(s, 'poultry-feedwater-days') ? <PerBirdCharts house={house} days={data.days} line={data.line} /> : null}
          </div>
        </section>
      ) : null}
    </div>
  );
}
