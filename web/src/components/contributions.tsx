/**
 * "What drove this change?": the contributions of a series' categories to its change over a window
 * (GET /dataviews/{id}/contributions, docs/incidents.md "Contributions"). The best explaining set first,
 * then one category at a time (the most surprising shift of shares first) as a diverging bar chart of
 * each value's change, with its shares before and during in a table under it.
 */
import { useState } from 'react';
import './contributions.css';
import { api } from '../lib/api';
import { fmt, pct } from '../lib/format';
import type { ContributionsAnswer, ContributionValueAnswer } from '../lib/types';
import { useLoad } from '../lib/use-load';
import { Loading, Problem } from './ui';

export interface ContributionsQuery {
  dataViewId: number;
  /** The series: its categories (null = all). */
  categories: Record<string, string | null>;
  from: string;
  to: string;
  measure?: 'value' | 'count' | 'ratio';
}

/** `name=value;…` of the categories that are set (the API's `categories` parameter). */
export function categoriesParam(c: Record<string, string | null>): string {
  return Object.entries(c)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join(';');
}

/** A combination as people read it: `city=Milan · channel=app`, `all` for the total. */
export function combinationText(c: Record<string, string | null>): string {
  const set = Object.entries(c).filter(([, v]) => v !== null);
  return set.length ? set.map(([k, v]) => `${k}=${v}`).join(' · ') : 'all';
}

async function loadContributions(q: ContributionsQuery): Promise<ContributionsAnswer> {
  const params = new URLSearchParams({ from: q.from, to: q.to, limit: '12' });
  const cats = categoriesParam(q.categories);
  if (cats) params.set('categories', cats);
  if (q.measure === 'count' || q.measure === 'ratio') params.set('measure', q.measure);
  return api<ContributionsAnswer>('GET', `/dataviews/${q.dataViewId}/contributions?${params}`);
}

const ROW = 26;
const LABEL = 170;
const FIGURE = 96;
const WIDTH = 640;

/** Each value's change as a bar from a zero line: falls to the left, rises to the right. */
export function ContributionBars({
  values,
  name,
  title,
}: {
  values: ContributionValueAnswer[];
  name: string;
  title: string;
}) {
  const largest = Math.max(1e-9, ...values.map((v) => Math.abs(v.change)));
  const anyUp = values.some((v) => v.change > 0);
  const anyDown = values.some((v) => v.change < 0);
  const span = WIDTH - LABEL - FIGURE;
  // The zero line sits where the larger side gets its room: at the left edge when nothing rose.
  const zero = LABEL + (anyDown && anyUp ? span / 2 : anyDown ? span : 0);
  const scale = (anyDown && anyUp ? span / 2 : span) / largest;
  const height = values.length * ROW + 8;
  return (
    <svg
      className="contribution-bars"
      role="img"
      aria-label={title}
      viewBox={`0 0 ${WIDTH} ${height}`}
      width="100%"
      preserveAspectRatio="xMinYMin meet"
    >
      <title>{title}</title>
      <line x1={zero} x2={zero} y1={0} y2={height} className="axis" />
      {values.map((v, i) => {
        const y = i * ROW + 4;
        const w = Math.max(1, Math.abs(v.change) * scale);
        const x = v.change < 0 ? zero - w : zero;
        return (
          <g key={`${v.value}-${i}`} data-value={v.value ?? 'all'}>
            <text x={LABEL - 8} y={y + ROW / 2 + 4} textAnchor="end" className="label">
              {(v.value ?? 'all').length > 22 ? `${(v.value ?? 'all').slice(0, 21)}…` : (v.value ?? 'all')}
            </text>
            <rect x={x} y={y + 3} width={w} height={ROW - 8} className={v.change < 0 ? 'bar neg' : 'bar pos'}>
              <title>{`${name}=${v.value}: change ${fmt(v.change)} (${pct(v.changePct)}), ${fmt(v.explainsPct)} % of the change${
                v.rateEffect !== undefined
                  ? `; rate effect ${fmt(v.rateEffect)}, mix effect ${fmt(v.mixEffect ?? 0)}`
                  : ''
              }`}</title>
            </rect>
            <text x={WIDTH - 4} y={y + ROW / 2 + 4} textAnchor="end" className="figure">
              {v.change > 0 ? '+' : ''}
              {fmt(v.change)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function ValuesTable({ values, name }: { values: ContributionValueAnswer[]; name: string }) {
  return (
    <div className="table-wrap">
      <table className="results compact-table">
        <caption className="sr-only">Contributions of each {name}</caption>
        <thead>
          <tr>
            <th scope="col">{name}</th>
            <th scope="col" className="num">
              Actual
            </th>
            <th scope="col" className="num">
              Expected
            </th>
            <th scope="col" className="num">
              Change
            </th>
            <th scope="col" className="num">
              Of the change
            </th>
            <th scope="col" className="num">
              Share before → during
            </th>
            <th scope="col" className="num">
              Surprise
            </th>
          </tr>
        </thead>
        <tbody>
          {values.map((v, i) => (
            <tr key={`${v.value}-${i}`}>
              <td>{v.value ?? 'all'}</td>
              <td className="num">{fmt(v.actual)}</td>
              <td className="num">{fmt(v.expected)}</td>
              <td className="num">{fmt(v.change)}</td>
              <td className="num">{shareOfChange(v.explainsPct)}</td>
              <td className="num">
                {pct(v.shareBefore)} → {pct(v.shareDuring)}
              </td>
              <td className="num">{v.surprise.toFixed(3)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A part's share of the change, said why when it is outside 0–100 %: more than the whole (the rest moved
 * the other way) or against it.
 */
export function shareOfChange(p: number): string {
  if (p > 100) return `${pct(p)} (the rest moved the other way)`;
  if (p < 0) return `${pct(p)} (moved against the change)`;
  return pct(p);
}

/** What an explaining combination explains of the change: `62 % of the change`, or all of it and why. */
export function explainsOfChange(p: number): string {
  if (p > 100) return `all of the change: ${pct(p)}, against the rest moving the other way`;
  if (p < 0) return `none of the change: ${pct(p)}, it moved against it`;
  return `${pct(p)} of the change`;
}

/** The answer drawn: the change, the best explaining set, and one category's bars at a time. */
export function ContributionsView({ data }: { data: ContributionsAnswer }) {
  const [chosen, setChosen] = useState<string | null>(null);
  const dim = data.dimensions.find((d) => d.name === chosen) ?? data.dimensions[0];
  const x = data.explanation;
  return (
    <div className="contributions">
      <p>
        <strong>{combinationText(data.categories)}</strong> ({data.measure}), {data.from} – {data.to}: actual{' '}
        {fmt(data.actual)}, expected {fmt(data.expected)}, change{' '}
        <strong>
          {data.change > 0 ? '+' : ''}
          {fmt(data.change)}
        </strong>{' '}
        ({pct(data.changePct)}).{' '}
        <span className="muted">
          {data.baseline.source === 'anomaly' && data.baseline.anomaly
            ? `Expected as the ${data.baseline.anomaly.type} anomaly expected it.`
            : `Expected from the ${data.baseline.weeks} weeks before (${data.baseline.from} – ${data.baseline.to}).`}
        </span>
      </p>
      <p className="explains">
        {x.broad ? (
          <>No smaller set explains it: every part moved alike.</>
        ) : (
          <>
            Best explanation:{' '}
            {x.causes.map((c, i) => (
              <span key={combinationText(c.categories)}>
                {i > 0 && ' + '}
                <strong>
                  {c.effect === 'mix' ? `the mix of ${c.mixOf ?? 'segments'}` : combinationText(c.categories)}
                  {c.effect === 'rate' ? ' (rate)' : ''}
                </strong>{' '}
                ({c.change > 0 ? '+' : ''}
                {fmt(c.change)}, {explainsOfChange(c.explainsPct)})
              </span>
            ))}
          </>
        )}
      </p>
      {data.dimensions.length === 0 ? (
        <p className="muted">This series fixes every category: nothing below it to compare.</p>
      ) : (
        dim && (
          <>
            <div className="dimension-tabs" role="tablist" aria-label="Category">
              {data.dimensions.map((d) => (
                <button
                  key={d.name}
                  type="button"
                  role="tab"
                  aria-selected={d.name === dim.name}
                  className={d.name === dim.name ? 'active' : undefined}
                  onClick={() => setChosen(d.name)}
                  title={`How much the shares of ${d.label} shifted (Jensen–Shannon, 0 – 1 bit)`}
                >
                  {d.label} <span className="muted">{d.surprise.toFixed(3)}</span>
                </button>
              ))}
            </div>
            <ContributionBars
              values={dim.values}
              name={dim.name}
              title={`Change of ${combinationText(data.categories)} from ${data.from} to ${data.to} by ${dim.label}: ${dim.values
                .slice(0, 3)
                .map((v) => `${v.value} ${fmt(v.change)}`)
                .join(', ')}`}
            />
            {dim.count > dim.values.length && (
              <p className="muted">
                The {dim.values.length} strongest of {dim.count} values of {dim.label}.
              </p>
            )}
            <ValuesTable values={dim.values} name={dim.label} />
          </>
        )
      )}
    </div>
  );
}

/** The panel: loads the contributions of the series and window, and draws them. */
export function ContributionsPanel({
  query,
  heading = 'h4',
}: {
  query: ContributionsQuery;
  heading?: 'h3' | 'h4';
}) {
  const key = `${query.dataViewId}|${categoriesParam(query.categories)}|${query.from}|${query.to}|${query.measure}`;
  const data = useLoad(() => loadContributions(query), [key]);
  const H = heading;
  return (
    <section className="contributions-panel" aria-label="What drove this change?">
      <H>What drove this change?</H>
      {data.loading && !data.data && <Loading what="Comparing the parts of the series" />}
      <Problem error={data.error} />
      {data.data && <ContributionsView data={data.data} />}
    </section>
  );
}
