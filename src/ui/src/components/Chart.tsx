// A small time-series chart (uPlot, loaded on first use so the workspace's first paint stays light).
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Series { label: string; values: (number | null)[]; color: string; dash?: number[] }

interface Props { title: string; x: number[]; series: Series[]; unit?: string; height?: number; /** data-chart, to find the chart */ name?: string }

export function Chart({ title, x, series, unit = '', height = 220, name }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let plot: { destroy(): void; setSize(s: { width: number; height: number }): void } | undefined;
    let gone = false;
    const el = box.current;
    if (!el || x.length === 0) return;
    import('./uplot')
      .then(({ default: UPlot }) => {
        if (gone) return;
        const styles = getComputedStyle(document.documentElement);
        const fg = styles.getPropertyValue('--fg').trim() || '#000';
        const line = styles.getPropertyValue('--line').trim() || '#ccc';
        plot = new UPlot(
          {
            width: el.clientWidth || 600,
            height,
            legend: { show: true },
            axes: [
              { stroke: fg, grid: { stroke: line } },
              { stroke: fg, grid: { stroke: line }, values: (_u: unknown, ticks: number[]) => ticks.map((t) => `${t}${unit ? ` ${unit}` : ''}`) },
            ],
            series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, dash: s.dash, spanGaps: true }))],
          },
          // One point (the first day of a batch) would stretch uPlot's time axis over years: a day
          // without values on each side keeps it to the days around it.
          x.length === 1
            ? [[x[0]! - 86_400, x[0]!, x[0]! + 86_400], ...series.map((s) => [null, s.values[0] ?? null, null])]
            : [x, ...series.map((s) => s.values)],
          el,
        );
      })
      .catch(() => setFailed(true));
    const onResize = () => plot?.setSize({ width: el.clientWidth, height });
    window.addEventListener('resize', onResize);
    return () => {
      gone = true;
      window.removeEventListener('resize', onResize);
      plot?.destroy();
    };
  }, [x, series, height, unit]);
  return (
    <figure class="chart panel" data-chart={name} data-points={x.length}>
      <figcaption>{title}</figcaption>
      {x.length === 0 ? <p class="empty">No data yet.</p> : <div ref={box} class="chart-box" role="img" aria-label={`${title}: ${series.map((s) => s.label).join(', ')}`} />}
      {failed ? <p class="error">The chart could not be drawn.</p> : null}
    </figure>
  );
}
