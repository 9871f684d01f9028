// A house: its card, charts (feed and water per day over the batch; climate over 24 hours and the
// batch against the target band when the climate API serves readings), the active climate profile,
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
  return <Chart title="Feed and water per day, this batch" x={x} series={series} />;
}

/** Temperature against the target band of the age phase each reading fell in: 24 hours and the batch. */
function ClimateCharts({ house, path }: { house: House; path: string }) {
  const [readings, setReadings] = useState<Row[]>([]);
  const [phases, setPhases] = useState<Row[]>([]);
  const tick = useObservable(dataTick);
  useEffect(() => {
    const q = { house_id: house.id, limit: 500 };
    getList<Row>(`/api/v1/${path}/list${query({ ...q, sort: 'ts', order: 'desc' })}`)
      .catch(() => getList<Row>(`/api/v1/${path}/list${query(q)}`))
      .then((r) => setReadings([...r.data.items].sort((a, b) => String(a.ts).localeCompare(String(b.ts)))))
      .catch(() => setReadings([]));
    getList<Row>(`/api/v1/poultry-climate/list${query({ house_id: house.id, state: 'published', limit: 200 })}`)
      .catch(() => getList<Row>(`/api/v1/poultry-climate/list${query({ house_id: house.id, limit: 200 })}`))
      .then((r) => setPhases(r.data.items))
      .catch(() => setPhases([]));
  }, [house.id, path, tick]);
  const temp = METRICS[0];
  const build = (rows: Row[]) => {
    const bands = rows.map((r) => {
      const age = typeof r.age_days === 'number' ? r.age_days : undefined;
      const phase =
        (age !== undefined ? phases.find((p) => typeof p.day_from === 'number' && typeof p.day_to === 'number' && age >= p.day_from && age <= p.day_to) : undefined) ??
        house.climate;
      return bandOf(phase, temp);
    });
    const x = rows.map((r) => Math.floor(Date.parse(String(r.ts)) / 1000));
    const series: Series[] = [
      { label: 'Temperature (°C)', values: rows.map((r) => (typeof r.temp === 'number' ? r.temp : null)), color: '#c0392b' },
      { label: 'Target (°C)', values: bands.map((b) => b.target ?? null), color: '#2e7d32', dash: [6, 4] },
      { label: 'Lowest (°C)', values: bands.map((b) => b.min ?? null), color: '#7f8c8d', dash: [2, 4] },
      { label: 'Highest (°C)', values: bands.map((b) => b.max ?? null), color: '#7f8c8d', dash: [2, 4] },
    ];
    return { x, series };
  };
  const since = Date.now() - 24 * 3600_000;
  const day = useMemo(() => build(readings.filter((r) => Date.parse(String(r.ts)) >= since)), [readings, phases]);
  const batch = useMemo(() => build(house.batch ? readings.filter((r) => !r.batch_id || r.batch_id === house.batch) : readings), [readings, phases]);
  return (
    <>
      <Chart title="Temperature, last 24 hours, against the target band" x={day.x} series={day.series} />
      <Chart title="Temperature over the batch, against the target band" x={batch.x} series={batch.series} />
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
          command={{ path: '/api/v1/poultry-climate/commands/setpoint', name: 'setpoint', summary: setpoint.summary, body: setpoint.body }}
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
          command={{ path: '/api/v1/poultry-climate/commands/ack', name: 'ack', summary: `${ack.summary} Nothing is written to the house controller before this confirmation.`, body: ack.body }}
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
