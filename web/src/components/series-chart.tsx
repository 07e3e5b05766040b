/** An inline SVG chart of one series: actual values, dashed expected values, the anomalous window, comment markers. */
import { fmt } from '../lib/format';

export interface SeriesPoint {
  date: string;
  value: number | null;
  expected: number | null;
}

export interface ChartComment {
  id: number;
  text: string;
  dateFrom: string;
  dateTo: string;
}

interface Props {
  points: SeriesPoint[];
  windowFrom: string;
  windowTo: string;
  comments?: ChartComment[];
  /** What the chart shows, for screen readers. */
  label: string;
}

/** Axis labels fit the left margin: 97,445.76 becomes 97.4K. */
const tickNum = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const tick = (v: number) => (Math.abs(v) >= 1000 ? tickNum.format(v) : fmt(Math.round(v * 100) / 100));

const W = 720;
const H = 220;
const PAD = { left: 56, right: 12, top: 12, bottom: 40 };

function path(
  points: SeriesPoint[],
  key: 'value' | 'expected',
  x: (i: number) => number,
  y: (v: number) => number,
) {
  let d = '';
  let pen = false;
  points.forEach((p, i) => {
    const v = p[key];
    if (v === null || Number.isNaN(v)) {
      pen = false;
      return;
    }
    d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
    pen = true;
  });
  return d;
}

/** Index of `date` in the sorted points, clamped to the chart. */
function indexOf(points: SeriesPoint[], date: string): number {
  let i = points.findIndex((p) => p.date >= date);
  if (i < 0) i = points.length - 1;
  return i;
}

export function SeriesChart({ points, windowFrom, windowTo, comments = [], label }: Props) {
  if (points.length === 0) return <p className="muted">No series data to chart.</p>;
  const values = points
    .flatMap((p) => [p.value, p.expected])
    .filter((v): v is number => v !== null && !Number.isNaN(v));
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) {
    lo -= 1;
    hi += 1;
  }
  const margin = (hi - lo) * 0.08;
  lo -= margin;
  hi += margin;
  const n = points.length;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = n > 1 ? plotW / (n - 1) : 0;
  const x = (i: number) => PAD.left + (n > 1 ? i * step : plotW / 2);
  const y = (v: number) => PAD.top + plotH - ((v - lo) / (hi - lo)) * plotH;
  const half = Math.max(step / 2, 3);
  const wFrom = x(indexOf(points, windowFrom)) - half;
  const wTo = x(indexOf(points, windowTo)) + half;
  const baseY = PAD.top + plotH;
  const ticks = [lo + margin, (lo + hi) / 2, hi - margin];
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} preserveAspectRatio="xMidYMid meet">
        <rect
          className="window"
          x={Math.max(PAD.left, wFrom)}
          y={PAD.top}
          width={Math.max(2, Math.min(W - PAD.right, wTo) - Math.max(PAD.left, wFrom))}
          height={plotH}
        >
          <title>
            Anomalous window {windowFrom} – {windowTo}
          </title>
        </rect>
        {ticks.map((t) => (
          <g key={t}>
            <line className="grid" x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
            <text className="tick" x={PAD.left - 6} y={y(t) + 4} textAnchor="end">
              {tick(t)}
            </text>
          </g>
        ))}
        <line className="axis" x1={PAD.left} x2={W - PAD.right} y1={baseY} y2={baseY} />
        <text className="tick" x={PAD.left} y={baseY + 14} textAnchor="start">
          {points[0].date}
        </text>
        <text className="tick" x={W - PAD.right} y={baseY + 14} textAnchor="end">
          {points[n - 1].date}
        </text>
        <path className="expected" d={path(points, 'expected', x, y)} />
        <path className="actual" d={path(points, 'value', x, y)} />
        {comments.map((c) => {
          const cx1 = x(indexOf(points, c.dateFrom));
          const cx2 = Math.max(cx1, x(indexOf(points, c.dateTo)));
          return (
            <g
              key={c.id}
              className="comment-marker"
              tabIndex={0}
              aria-label={`Comment ${c.dateFrom} to ${c.dateTo}: ${c.text}`}
            >
              <title>{`${c.dateFrom} – ${c.dateTo}: ${c.text}`}</title>
              <line x1={cx1} x2={cx2} y1={baseY + 24} y2={baseY + 24} />
              <circle cx={cx1} cy={baseY + 24} r={5} />
            </g>
          );
        })}
      </svg>
      <figcaption className="legend">
        <span className="key actual">Actual</span>
        <span className="key expected">Expected</span>
        <span className="key window">Anomalous window</span>
        {comments.length > 0 && <span className="key comment">Comment</span>}
      </figcaption>
    </figure>
  );
}
