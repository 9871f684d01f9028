// A house: its card, charts (feed and water per day over the batch; climate over 24 hours from the
// raw readings and over the batch from their hourly roll-up, against the target band, when the
// climate API serves readings), the active climate profile,
// the setpoint change flow (propose, confirm, then the device-confirmed dispatch status), and its
// alarms. The poultry alarm list: P1/P2, SLA countdown, acknowledge with an assignee.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { describeError, getList, getLoaded, query } from '../lib/api';
import { humanise, toneOf } from '../lib/format';
import { dataTick } from '../lib/live';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import type { Scheme } from '../lib/types';
import { Chart, type Series } from '../components/Chart';
import { CommandForm } from '../components/CommandForm';
import { ResourceView } from '../components/ResourceView';
import { alarmSource, bandOf, HouseCard, loadHouses, METRICS, readingsPath, served, type House } from './Poultry';

type Row = Record<string, unknown>;

function dayTs(d: unknown): number {
  return Math.floor(Date.parse(`${String(d)}T12:00:00Z`) / 1000);
}

function FeedWaterChart({ house }: { house: string }) {
  const [rows, setRows] = useState<Row[]>([]);
  const tick = useObservable(dataTick);
  useEffect(() => {
    getList<Row>(`/api/v1/poultry-feedwater-days/list${query({ house_id: house, limit: 200, sort: 'local_date', order: 'asc' })}`)
      .then((r) => setRows(r.data.items))
      .catch(() =>
        getList<Row>(`/api/v1/poultry-feedwater-days/list${query({ house_id: house, limit: 200 })}`)
          .then((r) => setRows([...r.data.items].sort((a, b) => String(a.local_date).localeCompare(String(b.local_date)))))
          .catch(() => setRows([])),
      );
  }, [house, tick]);
  const x = useMemo(() => rows.map((r) => dayTs(r.local_date)), [rows]);
  const series = useMemo<Series[]>(
    () => [
      { label: 'Water (L)', values: rows.map((r) => (typeof r.water_l === 'number' ? r.water_l : null)), color: '#1f6fd1' },
      { label: 'Expected water (L)', values: rows.map((r) => (typeof r.expected_water_l === 'number' ? r.expected_water_l : null)), color: '#1f6fd1', dash: [6, 4] },
      { label: 'Feed (kg)', values: rows.map((r) => (typeof r.feed_kg === 'number' ? r.feed_kg : null)), color: '#b86200' },
      { label: 'Expected feed (kg)', values: rows.map((r) => (typeof r.expected_feed_kg === 'number' ? r.expected_feed_kg : null)), color: '#b86200', dash: [6, 4] },
    ],
    [rows],
  );
  return <Chart name="feedwater" title="Feed and water per day, this batch" x={x} series={series} />;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The hourly roll-up answers at most this many days. */
const HOURLY_MAX_DAYS = 120;

const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Every page of a list, oldest first (a day of one reading a minute is three pages), at most `max` rows. */
async function allItems(path: string, params: Record<string, string | number>, max = 5000): Promise<Row[]> {
  const out: Row[] = [];
  for (let offset = 0; offset < max; offset += 500) {
    const page = (await getList<Row>(`${path}${query({ ...params, limit: 500, offset })}`)).data;
    out.push(...page.items);
    if (!page.has_more) break;
  }
  return out;
}

/** The published phases of the house, for the target band of each point by the flock's age then. */
function usePhases(house: string, tick: number): Row[] {
  const [phases, setPhases] = useState<Row[]>([]);
  useEffect(() => {
    getList<Row>(`/api/v1/poultry-climate/list${query({ house_id: house, state: 'published', limit: 200 })}`)
      .catch(() => getList<Row>(`/api/v1/poultry-climate/list${query({ house_id: house, limit: 200 })}`))
      .then((r) => setPhases(r.data.items))
      .catch(() => setPhases([]));
  }, [house, tick]);
  return phases;
}

/** Target, lowest and highest temperature at each point, from the phase holding the age then. */
function bandSeries(ages: (number | undefined)[], phases: Row[], fallback: Row | undefined): Series[] {
  const temp = METRICS[0];
  const bands = ages.map((age) => {
    const phase =
      (age !== undefined ? phases.find((p) => typeof p.day_from === 'number' && typeof p.day_to === 'number' && age >= p.day_from && age <= p.day_to) : undefined) ?? fallback;
    return bandOf(phase, temp);
  });
  return [
    { label: 'Target (°C)', values: bands.map((b) => b.target ?? null), color: '#2e7d32', dash: [6, 4] },
    { label: 'Lowest (°C)', values: bands.map((b) => b.min ?? null), color: '#7f8c8d', dash: [2, 4] },
    { label: 'Highest (°C)', values: bands.map((b) => b.max ?? null), color: '#7f8c8d', dash: [2, 4] },
  ];
}

/** The last 24 hours, every reading (from = now - 24 h, to the minute so the answer can be cached). */
function DayChart({ house, path, phases }: { house: House; path: string; phases: Row[] }) {
  const [rows, setRows] = useState<Row[]>([]);
  const tick = useObservable(dataTick);
  useEffect(() => {
    const from = new Date(Math.floor((Date.now() - DAY) / 60_000) * 60_000).toISOString();
    allItems(`/api/v1/${path}/list`, { house_id: house.id, from, sort: 'ts', order: 'asc' })
      .then(setRows)
      .catch(() => setRows([]));
  }, [house.id, path, tick]);
  const chart = useMemo(() => {
    const x = rows.map((r) => Math.floor(Date.parse(String(r.ts)) / 1000));
    const ages = rows.map((r) => (typeof r.age_days === 'number' ? r.age_days : undefined));
    const series: Series[] = [{ label: 'Temperature (°C)', values: rows.map((r) => numOrNull(r.temp)), color: '#c0392b' }, ...bandSeries(ages, phases, house.climate)];
    return { x, series };
  }, [rows, phases, house.climate]);
  return <Chart name="climate-24h" title="Temperature, last 24 hours, against the target band" x={chart.x} series={chart.series} />;
}

/** The batch: the hourly roll-up from the flock's placement (at most 120 days back) to this hour's end. */
function BatchChart({ house, path, phases }: { house: House; path: string; phases: Row[] }) {
  const [hours, setHours] = useState<Row[]>([]);
  const tick = useObservable(dataTick);
  const start = typeof house.flock?.start_date === 'string' ? Date.parse(`${house.flock.start_date}T00:00:00Z`) : NaN;
  useEffect(() => {
    const to = Math.ceil((Date.now() + 1) / HOUR) * HOUR;
    const earliest = to - HOURLY_MAX_DAYS * DAY;
    const from = Number.isFinite(start) ? Math.max(start, earliest) : to - 7 * DAY;
    const params = { house_id: house.id, ...(house.batch ? { batch_id: house.batch } : {}), from: new Date(from).toISOString(), to: new Date(to).toISOString() };
    getLoaded<{ item: { items: Row[] } }>(`/api/v1/${path}/hourly${query(params)}`)
      .then((r) => setHours(r.data.item.items))
      .catch(() => setHours([]));
  }, [house.id, house.batch, path, start, tick]);
  const chart = useMemo(() => {
    const at = hours.map((h) => Date.parse(String(h.hour)));
    const ages = at.map((t) => (Number.isFinite(start) ? Math.floor((t - start) / DAY) : undefined));
    const series: Series[] = [
      { label: 'Hourly average (°C)', values: hours.map((h) => numOrNull(h.temp_avg)), color: '#c0392b' },
      { label: 'Hourly highest (°C)', values: hours.map((h) => numOrNull(h.temp_max)), color: '#8e44ad', dash: [1, 3] },
      ...bandSeries(ages, phases, house.climate),
    ];
    return { x: at.map((t) => Math.floor(t / 1000)), series };
  }, [hours, phases, house.climate, start]);
  return <Chart name="climate-batch" title="Temperature over the batch (hourly), against the target band" x={chart.x} series={chart.series} />;
}

/** Temperature against the target band of the age phase each point fell in: 24 hours and the batch. */
function ClimateCharts({ house, path }: { house: House; path: string }) {
  const tick = useObservable(dataTick);
  const phases = usePhases(house.id, tick);
  return (
    <>
      <DayChart house={house} path={path} phases={phases} />
      <BatchChart house={house} path={path} phases={phases} />
    </>
  );
}

/** The active phase's current setpoints, as the starting values of a change. */
function pickTargets(profile: Row): Row {
  const out: Row = {};
  for (const k of ['target_temp_c', 'temp_tolerance_c', 'humidity_min_pct', 'humidity_max_pct', 'co2_max_ppm', 'nh3_max_ppm', 'min_ventilation_pct']) {
    if (typeof profile[k] === 'number') out[k] = profile[k];
  }
  return out;
}

/** Propose a setpoint, confirm it (ack publishes it and writes it to the controller), show the dispatch. */
function SetpointFlow({ house }: { house: House }) {
  const [scheme, setScheme] = useState<Scheme | null>(null);
  const [proposed, setProposed] = useState<Row | null>(null);
  const [confirmed, setConfirmed] = useState<Row | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    getLoaded<{ item: Scheme }>('/api/v1/poultry-climate/scheme')
      .then((r) => setScheme(r.data.item))
      .catch((err) => setError(describeError(err)));
  }, []);
  const setpoint = scheme?.commands?.find((c) => c.name === 'setpoint');
  const ack = scheme?.commands?.find((c) => c.name === 'ack');
  if (error) return <p class="error">{error}</p>;
  if (!scheme || !setpoint) return null;
  const dispatch = (r: Row | null) => (r?.adapter_dispatch ?? (r?.item as Row | undefined)?.adapter_dispatch) as Row | undefined;
  const shown = dispatch(confirmed) ?? dispatch(proposed);
  const status = shown ? String(shown.status ?? '') : '';
  const ackProps = Object.keys(ack?.body?.properties ?? {});
  const ackInitial: Row = {};
  for (const k of ackProps) if (proposed && proposed[k] !== undefined) ackInitial[k] = proposed[k];
  if (proposed && ackProps.includes('id') && ackInitial.id === undefined) ackInitial.id = proposed.version_id ?? proposed.id;
  const who = session.get()?.user.subject;
  if (who && ackProps.includes('acked_by')) ackInitial.acked_by = who;
  return (
    <section class="panel setpoint" aria-labelledby="setpoint-h" id="setpoint">
      <h2 id="setpoint-h">Change a setpoint</h2>
      <ol class="steps">
        <li class={proposed ? 'done' : 'current'}>Propose</li>
        <li class={confirmed ? 'done' : proposed ? 'current' : ''}>Confirm</li>
        <li class={confirmed ? 'current' : ''}>Controller</li>
      </ol>
      {!proposed ? (
        <CommandForm
          key="setpoint"
          command={{ path: '/api/v1/poultry-climate/commands/setpoint', name: 'setpoint', summary: 'Enter the new targets for this house. They are kept as a draft: nothing reaches the house controller until you confirm.', body: setpoint.body }}
          initial={
            house.climate?.id
              ? { profile_id: house.climate.id, ...pickTargets(house.climate) }
              : { house_id: house.id, batch_id: house.batch }
          }
          fields={scheme.fields}
          submitLabel="Propose"
          onDone={(r) => setProposed(r as Row)}
        />
      ) : !confirmed && ack ? (
        <CommandForm
          key="ack"
          command={{ path: '/api/v1/poultry-climate/commands/ack', name: 'ack', summary: 'Check the values, then confirm: the controller is written and the values are read back from it.', body: ack.body }}
          initial={ackInitial}
          fixed={ackInitial.id !== undefined ? ['id'] : []}
          fields={scheme.fields}
          submitLabel="Confirm setpoint"
          onDone={(r) => setConfirmed(r as Row)}
          onCancel={() => setProposed(null)}
        />
      ) : null}
      {shown ? (
        <p class="dispatch" id="dispatch-status" data-status={status}>
          {confirmed ? 'Written to the controller' : 'Proposed'}: {shown.controller_id ? `controller ${String(shown.controller_id)}${shown.transport ? ` (${String(shown.transport)})` : ''}` : 'no controller configured'}{' '}
          <span class={`badge tone-${toneOf(status) ?? 'muted'}`}>{humanise(status || 'unknown')}</span>
          {shown.message ? <span> {String(shown.message)}</span> : null}
        </p>
      ) : null}
      {confirmed ? (
        <button type="button" class="btn" onClick={() => (setProposed(null), setConfirmed(null))}>
          Another change
        </button>
      ) : null}
    </section>
  );
}

export function HouseScreen({ id }: { id: string }) {
  const s = useObservable(session);
  const tick = useObservable(dataTick);
  const [house, setHouse] = useState<House | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (!s) return;
    loadHouses(s)
      .then((d) => setHouse(d.houses.find((h) => h.id === id) ?? { id, alarms: [] }))
      .catch((err) => setError(describeError(err)));
  }, [s, id, tick]);
  if (!s) return null;
  const alarms = alarmSource(s);
  return (
    <div class="house" data-house-screen={id}>
      <h1>House {id}</h1>
      {error ? <p class="error">{error}</p> : null}
      {house ? (
        <ul class="cards houses single">
          <HouseCard house={house} />
        </ul>
      ) : null}
      <div class="workspace-grid">
        {house && readingsPath(s) ? <ClimateCharts house={house} path={readingsPath(s)!} /> : null}
        {served(s, 'poultry-feedwater-days') ? <FeedWaterChart house={id} /> : null}
        {served(s, 'poultry-climate') && house ? <SetpointFlow house={house} /> : null}
      </div>
      {served(s, 'poultry-climate') ? <ResourceView path="poultry-climate" heading="Climate profile" fixedFilters={{ house_id: id, age_mode: 'active' }} pageSize={5} /> : (
        <p class="notice">The climate profiles and setpoints of this house are not served by this controller yet.</p>
      )}
      {served(s, 'poultry-feedwater') ? <ResourceView path="poultry-feedwater" heading="Feed and water line" fixedFilters={{ house_id: id }} pageSize={5} /> : null}
      {alarms ? <ResourceView path={alarms.path} heading="Alarms of this house" fixedFilters={alarms.house === 'source' ? {} : { [alarms.house]: id }} pageSize={10} /> : null}
    </div>
  );
}

/** The alarm list opens on what still needs someone (the operator can widen the filter). */
const openFilter = (a: { open: Record<string, string> }) => Object.fromEntries(Object.entries(a.open).filter(([k]) => k !== 'industry_code'));

export function PoultryAlarms() {
  const s = useObservable(session);
  const a = alarmSource(s);
  if (!a) return <p class="notice">No alarm list is available to you.</p>;
  return (
    <div class="alarms-screen">
      <h1>Alarms</h1>
      <ResourceView path={a.path} heading={a.path === 'alarms' ? 'Site alarms' : 'Poultry alarms'} fixedFilters={a.path === 'industry-alarms' ? { industry_code: 'poultry' } : {}} initialFilters={openFilter(a)} />
    </div>
  );
}
