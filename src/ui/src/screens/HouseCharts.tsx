// The charts of a poultry house, each against its band, from the roll-ups the house screen loaded
// once: temperature, humidity, CO2, NH3 and ventilation from the hourly roll-up of the climate
// readings (poultry-climate-readings/hourly), water and feed per bird from the site days of the
// feed and water line (poultry-feedwater-days). The band of each hour is the one of the age phase
// the flock was in then. Today's water and feed are a partial day: drawn apart (dashed, lighter) as
// the day projected from what the line was expected to have used so far, never as a drop. In a
// batch's first hours (an hourly point or two: a dot, not a line) the climate charts draw the minute
// roll-up instead. "Last 24 hours" spans exactly that, whatever its points.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Chart, type Series } from '../components/Chart';
import { climateSpan, inSpan, minuteWindow } from '../components/chart-time';
import { getLoaded, query } from '../lib/api';
import { localDay } from '../lib/format';
import { t, type MessageKey } from '../lib/i18n';
import { session } from '../lib/session';
import { useObservable } from '../lib/store';
import { bandOf, METRICS, readingsPath, type House } from './Poultry';
import { metricWord, rounded, unitWord, type Unit } from './poultry-words';

type Row = Record<string, unknown>;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The phase holding an age (days), else the phase in force. */
function phaseAt(phases: Row[], age: number | undefined, fallback: Row | undefined): Row | undefined {
  if (age === undefined) return fallback;
  return phases.find((p) => typeof p.day_from === 'number' && typeof p.day_to === 'number' && age >= p.day_from && age <= p.day_to) ?? fallback;
}

const BAND = '#2e7d32';
const LIMIT = '#566573';

/** `highest`: the roll-up's highest of the hour (or minute) is drawn; else its average. */
interface ClimateSpec { metric: (typeof METRICS)[number]; field: string; highest: boolean; color: string }
const CLIMATE: ClimateSpec[] = [
  { metric: METRICS[0], field: 'temp_avg', highest: false, color: '#c0392b' },
  { metric: METRICS[1], field: 'humidity_avg', highest: false, color: '#1f6fd1' },
  { metric: METRICS[2], field: 'co2_max', highest: true, color: '#7d3c98' },
  { metric: METRICS[3], field: 'nh3_max', highest: true, color: '#9a6700' },
  { metric: METRICS[4], field: 'ventilation_avg', highest: false, color: '#00796b' },
];

/** The name of a climate chart's line: what of the hour (or minute) it draws. */
function seriesKey(highest: boolean, byMinute: boolean): MessageKey {
  if (byMinute) return highest ? 'charts.series.minuteHighest' : 'charts.series.minuteAverage';
  return highest ? 'charts.series.hourlyHighest' : 'charts.series.hourlyAverage';
}

/** A roll-up row's time (ms): the start of its hour or minute. */
const rowAt = (r: Row) => Date.parse(String(r.hour ?? r.minute));

/** The minute roll-up while the hourly one has too few points to draw a line; undefined otherwise or when it cannot be had. */
function useMinutes(house: House, hours: Row[]): Row[] | undefined {
  const s = useObservable(session);
  const rp = readingsPath(s);
  const [minutes, setMinutes] = useState<Row[] | undefined>(undefined);
  useEffect(() => {
    const w = minuteWindow(hours.map(rowAt), Date.now());
    if (!w || !rp) {
      setMinutes(undefined);
      return;
    }
    let gone = false;
    const params = { house_id: house.id, ...(house.batch ? { batch_id: house.batch } : {}), from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString() };
    getLoaded<{ item: { items: Row[] } }>(`/api/v1/${rp}/minutely${query(params)}`)
      .then((r) => !gone && setMinutes(r.data.item.items))
      .catch(() => !gone && setMinutes(undefined)); // the hourly points are still drawn
    return () => {
      gone = true;
    };
  }, [hours, rp, house.id, house.batch]);
  return minutes;
}

export function ClimateCharts({ house, hours, phases, range }: { house: House; hours: Row[]; phases: Row[]; range: Range }) {
  const start = typeof house.flock?.start_date === 'string' ? Date.parse(`${house.flock.start_date}T00:00:00Z`) : NaN;
  const minutes = useMinutes(house, hours);
  const byMinute = !!minutes?.length;
  const rows = byMinute ? minutes! : hours;
  const { shown, span } = useMemo(() => {
    const nowS = Math.floor(Date.now() / 1000);
    const span = climateSpan(range, rows.map((r) => Math.floor(rowAt(r) / 1000)), nowS);
    return { shown: inSpan(rows, (r) => Math.floor(rowAt(r) / 1000), span), span };
  }, [rows, range]);
  const charts = useMemo(() => {
    const at = shown.map(rowAt);
    const bands = at.map((t) => phaseAt(phases, Number.isFinite(start) ? Math.floor((t - start) / DAY) : undefined, house.climate));
    const x = at.map((t) => Math.floor(t / 1000));
    return CLIMATE.map((c) => {
      const b = bands.map((p) => bandOf(p, c.metric));
      const now = bandOf(house.climate, c.metric);
      const reading = house.reading ? c.metric.now.map((k) => num(house.reading![k])).find((v) => v !== null) ?? null : null;
      const series: Series[] = [
        {
          id: 'reading',
          label: t(seriesKey(c.highest, byMinute), { metric: metricWord(c.metric.key) }),
          values: shown.map((h) => num(h[c.field])),
          color: c.color,
          ...(reading !== null ? { now: reading, note: t('charts.note.now') } : { note: t(byMinute ? 'charts.note.lastMinute' : 'charts.note.lastHour') }),
        },
      ];
      let band: [number, number] | undefined;
      const hasMin = b.some((x) => x.min !== undefined);
      const hasMax = b.some((x) => x.max !== undefined);
      if (hasMax) series.push({ id: 'max', label: t(c.metric.key === 'temp' || c.metric.key === 'humidity' ? 'charts.band.highest' : 'charts.band.limit'), values: b.map((x) => x.max ?? null), color: hasMin ? BAND : LIMIT, dash: [8, 5], now: now.max ?? null });
      if (hasMin) series.push({ id: 'min', label: t(c.metric.key === 'ventilation' ? 'charts.band.minimum' : 'charts.band.lowest'), values: b.map((x) => x.min ?? null), color: hasMax ? BAND : LIMIT, dash: [8, 5], now: now.min ?? null });
      if (hasMax && hasMin) band = [1, 2];
      if (b.some((x) => x.target !== undefined)) series.push({ id: 'target', label: t('charts.band.target'), values: b.map((x) => x.target ?? null), color: BAND, dash: [2, 4], now: now.target ?? null });
      return { c, x, series, band };
    });
  }, [shown, phases, house.climate, house.reading, start, byMinute]);
  // One line instead of five empty charts (a house whose controller never answered).
  if (!rows.length) return <p class="panel empty" data-chart-empty="climate">{t('charts.empty.climate')}</p>;
  return (
    <>
      {charts.map(({ c, x, series, band }) => {
        const unit = unitWord(c.metric.unit);
        const title = t(range === 'day' ? 'charts.title.day' : 'charts.title.batch', { metric: metricWord(c.metric.key), unit });
        return <Chart key={c.metric.key} name={`climate-${c.metric.key}`} title={title} unit={unit} x={x} series={series} band={band} span={span} digits={c.metric.key === 'co2' ? 0 : 1} />;
      })}
    </>
  );
}

export type Range = 'day' | 'batch';

interface PerBird { key: 'water' | 'feed'; label: MessageKey; title: MessageKey; unit: Unit; total: string; expected: string; todayExpected: string; warn: string; baseline: string; color: string; factor: number }
const PER_BIRD: PerBird[] = [
  { key: 'water', label: 'charts.perBird.water', title: 'charts.title.water', unit: 'ml', total: 'water_l', expected: 'expected_water_l', todayExpected: 'expected_water_today_l', warn: 'water_warn_pct', baseline: 'water_baseline_at', color: '#1f6fd1', factor: 1000 },
  { key: 'feed', label: 'charts.perBird.feed', title: 'charts.title.feed', unit: 'g', total: 'feed_kg', expected: 'expected_feed_kg', todayExpected: 'expected_feed_today_kg', warn: 'feed_warn_pct', baseline: 'feed_baseline_at', color: '#b86200', factor: 1000 },
];

/** Water and feed per bird per day of the batch, against the expected amount and its warning band. */
export function PerBirdCharts({ house, days, line }: { house: House; days: Row[]; line: Row | undefined }) {
  const charts = useMemo(() => {
    const rows = days.filter((d) => !house.batch || d.batch_id === house.batch).sort((a, b) => String(a.local_date).localeCompare(String(b.local_date)));
    const x = rows.map((d) => Math.floor(Date.parse(`${String(d.local_date)}T12:00:00Z`) / 1000));
    const placed = num(house.flock?.birds_placed);
    // The line's day, when it is today's (the tablet is on the site's clock): the day so far.
    const local = localDay();
    const today = line?.local_date === local ? local : undefined;
    return PER_BIRD.map((k) => {
      const per = (d: Row, f: string) => {
        const v = num(d[f]);
        const birds = num(d.birds) ?? placed;
        return v !== null && birds ? (v * k.factor) / birds : null;
      };
      const isToday = (d: Row) => d.local_date === today;
      // The meter's first reading is its baseline: that day holds only what followed it, and a day before it nothing measured.
      const base = typeof line?.[k.baseline] === 'string' ? (line[k.baseline] as string).slice(0, 10) : '';
      const measured = (d: Row) => String(d.local_date) > base;
      const actual = rows.map((d) => (isToday(d) || !measured(d) ? null : per(d, k.total)));
      const expected = rows.map((d) => per(d, k.expected));
      const warn = num(line?.[k.warn]);
      const todayNote = t('charts.note.today');
      const series: Series[] = [
        { id: 'actual', label: t(k.label), values: actual, color: k.color, note: t('charts.note.lastFullDay') },
        { id: 'expected', label: t('charts.band.expected'), values: expected, color: BAND, dash: [2, 4], note: todayNote },
      ];
      let band: [number, number] | undefined;
      if (warn !== null) {
        series.push({ id: 'expected-high', label: t('charts.band.expectedPlus', { p: warn }), values: expected.map((e) => (e === null ? null : e * (1 + warn / 100))), color: BAND, dash: [8, 5], note: todayNote });
        series.push({ id: 'expected-low', label: t('charts.band.expectedMinus', { p: warn }), values: expected.map((e) => (e === null ? null : e * (1 - warn / 100))), color: BAND, dash: [8, 5], note: todayNote });
        band = [2, 3];
      }
      // Today: so far / the share of the day's expected amount due by now, when a quarter of it is.
      const ti = rows.findIndex(isToday);
      if (ti >= 0) {
        const d = rows[ti]!;
        const soFar = per(d, k.total);
        const dueDay = num(d[k.expected]) ?? num(line?.[k.expected]);
        const dueNow = num(line?.[k.todayExpected]);
        const share = dueDay && dueNow !== null ? dueNow / dueDay : null;
        const projected = soFar !== null && share !== null && share >= 0.25 ? soFar / share : null;
        const values: (number | null)[] = rows.map(() => null);
        if (ti > 0) values[ti - 1] = actual[ti - 1] ?? null;
        values[ti] = projected;
        series.push({
          id: 'projected',
          label: t('charts.band.projected'),
          values,
          color: k.color,
          dash: [6, 4],
          partial: true,
          now: projected,
          note: soFar !== null ? t('charts.note.soFar', { v: rounded(soFar, 0), unit: unitWord(k.unit) }) : t('charts.note.noReading'),
        });
      }
      return { k, x, series, band };
    });
  }, [days, house.batch, house.flock, line]);
  if (!days.length) return <p class="panel empty" data-chart-empty="perbird">{t('charts.empty.perBird')}</p>;
  return (
    <>
      {charts.map(({ k, x, series, band }) => {
        const unit = unitWord(k.unit);
        return <Chart key={k.key} name={`perbird-${k.key}`} title={t(k.title, { unit })} unit={unit} x={x} series={series} band={band} digits={0} />;
      })}
    </>
  );
}

/** The choice of span for the climate charts (the roll-up is loaded once for the batch). */
export function RangeSwitch({ range, onChange }: { range: Range; onChange: (r: Range) => void }) {
  return (
    <div class="range-switch" role="group" aria-label={t('charts.range.label')}>
      {(
        [
          ['day', 'charts.range.day'],
          ['batch', 'charts.range.batch'],
        ] as const
      ).map(([r, label]) => (
        <button key={r} type="button" class={`btn${range === r ? ' primary' : ''}`} aria-pressed={range === r} data-range={r} onClick={() => onChange(r)}>
          {t(label)}
        </button>
      ))}
    </div>
  );
}

export const useRange = () => useState<Range>('batch');
