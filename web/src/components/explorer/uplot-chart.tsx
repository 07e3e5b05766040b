/**
 * One series drawn with uPlot: actual values, dashed expected values, the detector's band (filled between its
 * bounds), anomaly windows shaded, special dates as dotted lines and comments as markers on top. The legend
 * shows the values under the cursor; drag across the plot zooms, the buttons pan and zoom, double-click or
 * "Whole series" resets. The visible range is reported so that the page can keep it in its URL.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { fmt } from '../../lib/format';

export interface ChartPoint {
  date: string;
  value: number | null;
  expected: number | null;
  lower: number | null;
  upper: number | null;
}

export interface ChartWindow {
  startDate: string;
  endDate: string;
  result: string;
  /** The anomaly picked in the table: drawn stronger. */
  active?: boolean;
}

export interface ChartMarker {
  dateFrom: string;
  dateTo: string;
  text: string;
}

interface Props {
  points: ChartPoint[];
  windows: ChartWindow[];
  specialDates: string[];
  /** Public holidays of the series' calendar: a green mark at the foot of the chart, named in its tooltip list. */
  holidays?: string[];
  comments: ChartMarker[];
  /** Visible dates (inclusive); undefined shows the whole series. */
  from?: string;
  to?: string;
  onRange?: (from: string | undefined, to: string | undefined) => void;
  label: string;
}

const DAY = 86_400;
/** Without a range in the address the chart opens on the last 120 days (the whole series when shorter). */
const DEFAULT_DAYS = 120;
const toSec = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;
const toDate = (sec: number) => new Date(Math.round(sec / DAY) * DAY * 1000).toISOString().slice(0, 10);

function css(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

export function UPlotChart({
  points,
  windows,
  specialDates,
  holidays = [],
  comments,
  from,
  to,
  onRange,
  label,
}: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  // Hooks read the latest props through refs; the plot is rebuilt only when the data changes.
  const extras = useRef({ windows, specialDates, holidays, comments });
  extras.current = { windows, specialDates, holidays, comments };
  const report = useRef(onRange);
  report.current = onRange;
  const quiet = useRef(false);
  const range = useRef({ from, to });
  range.current = { from, to };

  const first = points.length ? toSec(points[0].date) : 0;
  const last = points.length ? toSec(points[points.length - 1].date) : 0;
  const defaultMin = Math.max(first, last - (DEFAULT_DAYS - 1) * DAY);
  /** The visible range for the address's from/to. */
  const wanted = (a?: string, b?: string): [number, number] => {
    const min = a ? Math.max(first, toSec(a)) : b ? first : defaultMin;
    const max = b ? Math.min(last, toSec(b)) : last;
    return [min, Math.max(max, min + DAY)];
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuilt when the points change; the range is applied below
  useEffect(() => {
    const el = box.current;
    if (!el || points.length === 0) return;
    const hasBand = points.some((p) => p.lower !== null);
    const data: uPlot.AlignedData = [
      points.map((p) => toSec(p.date)),
      points.map((p) => p.value),
      points.map((p) => p.expected),
      points.map((p) => p.lower),
      points.map((p) => p.upper),
    ];
    const accent = css('--accent', '#1f5fbf');
    const muted = css('--muted', '#5b6472');
    const number = (_u: uPlot, v: number | null) => (v === null || v === undefined ? '–' : fmt(v));
    const opts: uPlot.Options = {
      width: Math.max(320, el.clientWidth),
      height: 320,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      cursor: { drag: { x: true, y: false, setScale: true } },
      scales: { x: { time: true } },
      legend: { live: true },
      series: [
        { label: 'Date', value: (_u, v) => (v === null ? '–' : toDate(v)) },
        { label: 'Actual', stroke: accent, width: 2, value: number, points: { show: false } },
        {
          label: 'Expected',
          stroke: muted,
          width: 1.5,
          dash: [6, 4],
          value: number,
          points: { show: false },
        },
        {
          label: 'Band low',
          stroke: hasBand ? 'rgba(91,100,114,0.35)' : 'transparent',
          width: 1,
          value: number,
          show: hasBand,
          points: { show: false },
        },
        {
          label: 'Band high',
          stroke: hasBand ? 'rgba(91,100,114,0.35)' : 'transparent',
          width: 1,
          value: number,
          show: hasBand,
          points: { show: false },
        },
      ],
      bands: hasBand ? [{ series: [4, 3], fill: 'rgba(91,100,114,0.12)' }] : [],
      axes: [{}, { values: (_u, ticks) => ticks.map((t) => fmt(t)), size: 64 }],
      hooks: {
        drawClear: [
          (u) => {
            const { ctx, bbox } = u;
            ctx.save();
            for (const w of extras.current.windows) {
              const x0 = u.valToPos(toSec(w.startDate) - DAY / 2, 'x', true);
              const x1 = u.valToPos(toSec(w.endDate) + DAY / 2, 'x', true);
              const left = Math.max(bbox.left, x0);
              const right = Math.min(bbox.left + bbox.width, x1);
              if (right <= left) continue;
              const neg = w.result === 'Negative';
              ctx.fillStyle = neg
                ? `rgba(179,38,30,${w.active ? 0.28 : 0.14})`
                : `rgba(30,107,52,${w.active ? 0.28 : 0.14})`;
              ctx.fillRect(left, bbox.top, right - left, bbox.height);
            }
            ctx.restore();
          },
        ],
        draw: [
          (u) => {
            const { ctx, bbox } = u;
            const px = devicePixelRatio || 1;
            ctx.save();
            ctx.strokeStyle = 'rgba(138,83,0,0.8)';
            ctx.lineWidth = px;
            ctx.setLineDash([2 * px, 3 * px]);
            for (const d of extras.current.specialDates) {
              const x = u.valToPos(toSec(d), 'x', true);
              if (x < bbox.left || x > bbox.left + bbox.width) continue;
              ctx.beginPath();
              ctx.moveTo(x, bbox.top);
              ctx.lineTo(x, bbox.top + bbox.height);
              ctx.stroke();
            }
            ctx.setLineDash([]);
            ctx.fillStyle = '#2e7d32';
            for (const d of extras.current.holidays) {
              const x = u.valToPos(toSec(d), 'x', true);
              if (x < bbox.left || x > bbox.left + bbox.width) continue;
              const s = 5 * px;
              const y = bbox.top + bbox.height;
              ctx.beginPath();
              ctx.moveTo(x - s, y);
              ctx.lineTo(x + s, y);
              ctx.lineTo(x, y - 1.6 * s);
              ctx.closePath();
              ctx.fill();
            }
            ctx.fillStyle = '#1f4f99';
            for (const c of extras.current.comments) {
              const x = u.valToPos(toSec(c.dateFrom), 'x', true);
              if (x < bbox.left || x > bbox.left + bbox.width) continue;
              const s = 6 * px;
              ctx.beginPath();
              ctx.moveTo(x - s, bbox.top);
              ctx.lineTo(x + s, bbox.top);
              ctx.lineTo(x, bbox.top + 1.6 * s);
              ctx.closePath();
              ctx.fill();
            }
            ctx.restore();
          },
        ],
        setScale: [
          (u, key) => {
            if (key !== 'x' || quiet.current) return;
            const min = u.scales.x.min;
            const max = u.scales.x.max;
            if (min === undefined || max === undefined) return;
            // Redraws and resizes keep the range: only a change of the visible days is news.
            const [shownMin, shownMax] = wanted(range.current.from, range.current.to);
            if (toDate(min) === toDate(shownMin) && toDate(max) === toDate(shownMax)) return;
            const isDefault = toDate(min) === toDate(defaultMin) && toDate(max) === toDate(last);
            report.current?.(isDefault ? undefined : toDate(min), isDefault ? undefined : toDate(max));
          },
        ],
      },
    };
    // Built quietly: the first scale is not a user's zoom, and the URL's range is applied right away.
    quiet.current = true;
    const u = new uPlot(opts, data, el);
    plot.current = u;
    const [min0, max0] = wanted(range.current.from, range.current.to);
    u.setScale('x', { min: min0, max: max0 });
    quiet.current = false;
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(320, el.clientWidth), height: 320 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [points]);

  // The range from the URL (also after back/forward); `wanted` derives from points, listed.
  // biome-ignore lint/correctness/useExhaustiveDependencies: wanted is a pure function of the listed values
  useEffect(() => {
    const u = plot.current;
    if (!u || points.length === 0) return;
    const [min, max] = wanted(from, to);
    if (u.scales.x.min === min && u.scales.x.max === max) return;
    quiet.current = true;
    u.setScale('x', { min, max });
    quiet.current = false;
  }, [from, to, points, first, last]);

  // Redraw the overlays when the picked anomaly or the comments change.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the overlay inputs are read through a ref
  useEffect(() => {
    plot.current?.redraw(false);
  }, [windows, specialDates, holidays, comments]);

  const move = (kind: 'left' | 'right' | 'in' | 'out' | 'all') => {
    const u = plot.current;
    if (!u) return;
    const min = u.scales.x.min ?? first;
    const max = u.scales.x.max ?? last;
    const span = max - min;
    let a = min;
    let b = max;
    if (kind === 'left') [a, b] = [min - span / 2, max - span / 2];
    if (kind === 'right') [a, b] = [min + span / 2, max + span / 2];
    if (kind === 'in') [a, b] = [min + span / 4, max - span / 4];
    if (kind === 'out') [a, b] = [min - span / 2, max + span / 2];
    if (kind === 'all') [a, b] = [first, last];
    const width = Math.min(b - a, last - first);
    if (a < first) [a, b] = [first, first + width];
    if (b > last) [a, b] = [last - width, last];
    u.setScale('x', { min: a, max: Math.max(b, a + 7 * DAY) });
  };

  if (points.length === 0) return <p className="muted">No values were loaded for this series.</p>;
  return (
    <figure className="uplot-chart">
      <div className="chart-tools" role="toolbar" aria-label="Zoom and pan the chart">
        <button type="button" onClick={() => move('left')} aria-label="Pan left">
          ◀ Earlier
        </button>
        <button type="button" onClick={() => move('right')} aria-label="Pan right">
          Later ▶
        </button>
        <button type="button" onClick={() => move('in')}>
          Zoom in
        </button>
        <button type="button" onClick={() => move('out')}>
          Zoom out
        </button>
        <button type="button" onClick={() => move('all')}>
          Whole series
        </button>
        <span className="muted hint">
          Drag across the chart to zoom; double-click to see the whole series.
        </span>
      </div>
      <div ref={box} role="img" aria-label={label} className="uplot-box" />
      <figcaption className="chart-key">
        <span className="key actual">Actual</span>
        <span className="key expected">Expected</span>
        {points.some((p) => p.lower !== null) && <span className="key band">Detector band</span>}
        {windows.some((w) => w.result === 'Negative') && (
          <span className="key window-neg">Anomaly (drop)</span>
        )}
        {windows.some((w) => w.result !== 'Negative') && (
          <span className="key window-pos">Anomaly (rise)</span>
        )}
        {specialDates.length > 0 && <span className="key special">Special date</span>}
        {holidays.length > 0 && <span className="key holiday">Holiday</span>}
        {comments.length > 0 && <span className="key comment">Comment</span>}
      </figcaption>
    </figure>
  );
}
