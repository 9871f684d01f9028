// A small time-series chart (uPlot, loaded on first use so the workspace's first paint stays light),
// with its own legend: each series' name, unit and current value (uPlot's legend shows "--" until
// a finger hovers, which a tablet never does). The plot follows its box's width through a
// ResizeObserver, so it never keeps a width measured while the screen was still being laid out
// (the feed and water chart once drew to x=2084 in a card ending at 1262 when the screen was
// reached by tapping a house card).
import { useEffect, useRef, useState } from 'preact/hooks';
import { readerLocale, t } from '../lib/i18n';
import { tickSpace, timeTicks } from './chart-time';

export interface Series {
  /** the series for tests and keys (data-series), whatever the language; default: its label */
  id?: string;
  /** its name in the legend, in the reader's language */
  label: string;
  values: (number | null)[];
  color: string;
  dash?: number[];
  /** drawn thinner and lighter: a part that is not complete (today so far) */
  partial?: boolean;
  /** the legend's value; default: the series' last value. `null`: no value in the legend (a band edge that varies). */
  now?: number | null;
  /** words after the value in the legend ("last hour", "projected") */
  note?: string;
  /** no legend entry (the partial continuation of a series already named) */
  hideInLegend?: boolean;
}

interface Props {
  /** in the reader's language, like `unit` */
  title: string;
  /** seconds since the epoch */
  x: number[];
  series: Series[];
  unit?: string;
  height?: number;
  /** data-chart, to find the chart */
  name?: string;
  /** indices into `series` of a band's upper and lower edge, filled between */
  band?: [number, number];
  /** decimals of the legend's values */
  digits?: number;
  /** the time axis (seconds), whatever the points span; default: the points' own */
  span?: [number, number];
}

const lastOf = (values: (number | null)[]) => {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null && values[i] !== undefined) return values[i]!;
  return null;
};

/** A value and its unit in the reader's language ("1,5 °C"), rounded as a legend shows it. */
function valueWords(v: number, unit: string, digits: number): string {
  const f = 10 ** (Math.abs(v) >= 100 ? 0 : digits);
  const n = Math.round(v * f) / f;
  return unit ? t('overview.value', { v: n, unit }) : new Intl.NumberFormat(readerLocale()).format(n);
}

/** The names of a chart's lines as one phrase of the reader's language ("a, b and c"). */
function list(names: string[]): string {
  try {
    return new Intl.ListFormat(readerLocale(), { type: 'conjunction' }).format(names);
  } catch {
    return names.join(', ');
  }
}

export function Chart({ title, x, series, unit = '', height = 220, name, band, digits = 1, span }: Props) {
  const box = useRef<HTMLDivElement>(null);
  // The axis's ticks as uPlot chose them (no rounding: 0.5 steps stay 0.5), the legend's to its digits.
  const valueText = (v: number) => valueWords(v, unit, 3);
  const legendValue = (v: number) => valueWords(v, unit, digits);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let plot: { destroy(): void; setSize(s: { width: number; height: number }): void } | undefined;
    let gone = false;
    const el = box.current;
    if (!el || x.length === 0) return;
    const observer = new ResizeObserver(() => {
      if (plot && el.clientWidth > 0) plot.setSize({ width: el.clientWidth, height });
    });
    import('./uplot')
      .then(({ default: UPlot }) => {
        if (gone) return;
        const styles = getComputedStyle(document.documentElement);
        const fg = styles.getPropertyValue('--fg').trim() || '#000';
        const line = styles.getPropertyValue('--line').trim() || '#ccc';
        const font = '15px system-ui, sans-serif'; // i18n-ok: a CSS font, not words
        plot = new UPlot(
          {
            width: el.clientWidth || 300,
            height,
            legend: { show: false },
            cursor: { show: false },
            axes: [
              {
                stroke: fg,
                font,
                grid: { stroke: line },
                space: (_u: unknown, _axis: number, min: number, max: number) => tickSpace(max - min),
                values: (u: { scales: Record<string, { min?: number; max?: number }> }, ticks: number[]) => timeTicks(ticks, (u.scales.x?.max ?? 0) - (u.scales.x?.min ?? 0)),
              },
              // wide enough for its longest label ("3000 ppm" was cut to "0 ppm" at a fixed width)
              { stroke: fg, font, size: (_u: unknown, values: string[] | null) => Math.max(48, ...(values ?? []).map((v) => String(v).length * 9 + 22)), grid: { stroke: line }, values: (_u: unknown, ticks: number[]) => ticks.map(valueText) },
            ],
            ...(span ? { scales: { x: { time: true, range: (): [number, number] => [span[0], span[1]] } } } : {}),
            // A series with one value is a dot, never an invisible line of one point.
            series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: s.partial ? 1.5 : 2, dash: s.dash, spanGaps: true, alpha: s.partial ? 0.6 : 1, points: s.values.filter((v) => v !== null).length === 1 ? { show: true, size: 8, fill: s.color } : { show: s.partial ? true : undefined } }))],
            bands: band ? [{ series: [band[0] + 1, band[1] + 1] as [number, number], fill: 'rgba(46, 125, 50, 0.12)' }] : [],
          },
          // One point (the first day of a batch) would stretch uPlot's time axis over years: a day
          // without values on each side keeps it to the days around it, unless the span is given.
          x.length === 1 && !span
            ? [[x[0]! - 86_400, x[0]!, x[0]! + 86_400], ...series.map((s) => [null, s.values[0] ?? null, null])]
            : [x, ...series.map((s) => s.values)],
          el,
        );
        observer.observe(el);
      })
      .catch(() => setFailed(true));
    return () => {
      gone = true;
      observer.disconnect();
      plot?.destroy();
    };
  }, [x, series, height, unit, band, span?.[0], span?.[1]]);
  const legend = series.filter((s) => !s.hideInLegend && s.values.some((v) => v !== null));
  return (
    <figure class="chart panel" data-chart={name} data-points={x.length} data-span-s={span ? span[1] - span[0] : undefined}>
      <figcaption>{title}</figcaption>
      {x.length === 0 ? (
        <p class="empty">{t('charts.noReadings')}</p>
      ) : (
        <>
          <div ref={box} class="chart-box" style={{ minHeight: `${height}px` }} role="img" aria-label={t('charts.described', { title, series: list(legend.map((s) => s.label)) })} />
          <ul class="chart-legend">
            {legend.map((s) => {
              const v = s.now === undefined ? lastOf(s.values) : s.now;
              return (
                <li key={s.id ?? s.label} data-series={s.id ?? s.label} class={s.partial ? 'partial' : undefined}>
                  <span class="swatch" aria-hidden="true" style={{ borderTopColor: s.color, borderTopStyle: s.dash ? (s.dash[0]! <= 2 ? 'dotted' : 'dashed') : 'solid' }} />
                  <span class="legend-label">{s.label}</span>
                  {v !== null ? (
                    <strong class="legend-value">{legendValue(v)}</strong>
                  ) : null}
                  {s.note ? <span class="muted legend-note"> {s.note}</span> : null}
                </li>
              );
            })}
          </ul>
        </>
      )}
      {failed ? <p class="error">{t('charts.failed')}</p> : null}
    </figure>
  );
}
