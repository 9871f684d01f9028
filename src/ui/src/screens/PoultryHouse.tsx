// A house: its alarms first, then its card and the climate targets (the setpoint flow), then its
// charts against their bands, from the roll-ups. The screen asks each resource once per load
// (flock, climate phases, feed and water line, its days, latest readings, the hourly roll-up: six
// requests) and reloads on live news, every 30 s (polled readings bring no status event) and after
// a setpoint change. Its alarms are the one alarm store's (lib/alarms.ts), as on the cards, the top
// bar and the inbox: no query of its own, so they can never disagree.
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, getList, getLoaded, query } from '../lib/api';
import { alarmStore, type AlarmItem } from '../lib/alarms';
import { formatTime } from '../lib/format';
import { t } from '../lib/i18n';
import { dataTick } from '../lib/live';
import { href } from '../lib/router';
import { session, staleSince, type Session } from '../lib/session';
import { useObservable } from '../lib/store';
import { useNow } from '../components/hooks';
import { StaleNote } from '../components/StaleNote';
import { when } from '../components/chart-time';
import { alarmWords, assembleHouses, COALESCE_MS, houseAlarms, HouseCard, readingsPath, served, type House } from './Poultry';
import { ClimateCharts, PerBirdCharts, RangeSwitch, useRange } from './HouseCharts';
import { SetpointFlow } from './SetpointFlow';
import { alarmCause, alarmTitle, deadlineWords, severityWord } from './poultry-words';

type Row = Record<string, unknown>;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The hourly roll-up answers at most this many days. */
const HOURLY_MAX_DAYS = 120;
const RELOAD_MS = 30_000;

interface HouseData { house: House; phases: Row[]; days: Row[]; line: Row | undefined; hours: Row[]; staleAt: string | null }

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
  const [flocks, phases, lines, days, readings, hours] = await Promise.all([
    flockP,
    list('poultry-climate', { house_id: id, state: 'published', limit: 200 }).catch(() => [] as Row[]),
    list('poultry-feedwater', { house_id: id, state: 'published', limit: 20 }).catch(() => [] as Row[]),
    list('poultry-feedwater-days', { house_id: id, sort: 'local_date', order: 'desc', limit: 200 }).catch(() => [] as Row[]),
    rp ? list(rp, { house_id: id, limit: 20 }).catch(() => [] as Row[]) : Promise.resolve([] as Row[]),
    hoursP,
  ]);
  const houses = assembleHouses({ flocks, climate: phases, feedwater: lines, readings });
  const house = houses.get(id) ?? { id, alarms: [] };
  return {
    house,
    phases: phases.filter((p) => !house.batch || p.batch_id === house.batch),
    days,
    line: house.feedwater,
    hours,
    staleAt,
  };
}

/** An alarm's state on the house screen, in the crew's words. */
function stateLine(a: AlarmItem): string {
  switch (a.state) {
    case 'acknowledged_active':
      return t('overview.alarm.acked');
    case 'unacknowledged_cleared':
      return t('overview.alarm.cleared', { time: formatTime(a.cleared_at ?? a.last_raised_at) });
    case 'latched':
      return t('overview.alarm.latched', { time: formatTime(a.returned_at ?? a.last_raised_at) });
    case 'shelved':
      return t('overview.alarm.shelved', { time: a.shelved_until ? formatTime(a.shelved_until) : '—' });
    case 'out_of_service':
      return t('overview.alarm.outOfService');
    default:
      return t('overview.alarm.notAcked');
  }
}

/** The house's alarms (every state until acknowledged and back to normal), at the top of the screen. */
function HouseAlarms({ alarms }: { alarms: AlarmItem[] }) {
  const now = useNow(15_000);
  const worst = alarms.some((a) => a.tone === 'alarm') ? 'alarm' : alarms.some((a) => a.tone === 'warn') ? 'warn' : 'none';
  return (
    <section class={`panel house-alarms-panel${alarms.length ? ` has-alarms tone-panel-${worst}` : ''}`} id="house-alarms" aria-labelledby="house-alarms-h">
      <h2 id="house-alarms-h">{alarms.length ? t('overview.houseScreen.alarms', { n: alarms.length }) : t('overview.houseScreen.noAlarms')}</h2>
      {alarms.length ? <p class="house-alarms-words">{alarmWords(alarms)}</p> : null}
      {alarms.length ? (
        <ul class="house-alarm-list">
          {alarms.map((a) => {
            const left = a.acked_at === null && a.condition === 'active' ? deadlineWords(a.sla_deadline_at, now) : null;
            const title = alarmTitle(a);
            const cause = alarmCause(a);
            return (
              <li key={a.key} data-alarm={a.id} data-state={a.state} class={`house-alarm tone-edge-${a.tone}`}>
                <a href={href('alarms')}>
                  <span class={`badge tone-${a.tone}`}>{a.priority ?? severityWord(a.severity)}</span>{' '}
                  <strong class="house-alarm-title">{title}</strong>
                  {cause && cause !== title ? <span class="house-alarm-cause">{cause}</span> : null}
                  <span class="house-alarm-when">
                    {t('overview.alarm.since', { time: when(a.raised_at), state: stateLine(a) })}
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
  const store = useObservable(alarmStore);
  const globalStale = useObservable(staleSince);
  const [data, setData] = useState<HouseData | null>(null);
  const [error, setError] = useState('');
  const [beat, setBeat] = useState(0);
  const [range, setRange] = useRange();
  const lastLoad = useRef(0);
  useEffect(() => {
    const timer = setInterval(() => setBeat((b) => b + 1), RELOAD_MS);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    if (!s) return;
    let cancelled = false;
    // Live news reloads the screen, at most once in COALESCE_MS (the live feed's first answer comes just after it opens).
    const wait = lastLoad.current ? Math.max(0, lastLoad.current + COALESCE_MS - Date.now()) : 0;
    const timer = setTimeout(() => {
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
      clearTimeout(timer);
    };
  }, [s, id, tick, beat]);
  if (!s) return null;
  const offline = data?.staleAt ?? (store.reachable ? null : new Date(store.unknownSince ?? Date.now()).toISOString());
  const alarms = houseAlarms(store.items, id);
  const house = data ? { ...data.house, alarms } : undefined;
  return (
    <div class="house house-screen" data-house-screen={id}>
      <h1>{t('overview.house', { id })}</h1>
      {/* The shell's own note (app.tsx) already says it when the session itself was loaded stale. */}
      {offline && !globalStale ? <StaleNote at={offline} /> : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {!data ? <p class="loading">{t('overview.houseScreen.loading')}</p> : null}
      {store.items ? <HouseAlarms alarms={alarms} /> : null}
      {house ? (
        <div class="house-top">
          <ul class="cards houses single">
            <HouseCard house={house} offline={offline} />
          </ul>
          {served(s, 'poultry-climate') ? <SetpointFlow house={house} onChanged={() => setBeat((b) => b + 1)} /> : null}
        </div>
      ) : null}
      {data && house ? (
        <section class="house-charts" aria-labelledby="house-charts-h">
          <div class="resource-head">
            <h2 id="house-charts-h">{t('overview.houseScreen.charts')}</h2>
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
