/**
 * The categories of a data view as a tree: the total at the root, each node split by the dimensions it can
 * take (children loaded when opened, 100 at a time with "Show more"), and a search over every category value
 * answered by the service with a limit. Views with thousands of values never load them all.
 */
import { useEffect, useState } from 'react';
import { api } from '../../lib/api';
import { useLoad } from '../../lib/use-load';
import { Loading, Problem } from '../ui';
import {
  categoriesQuery,
  type ExplorerCategory,
  openDimensions,
  type SearchAnswer,
  sameCategories,
  seriesTitle,
  type TreeAnswer,
} from './model';

const PAGE = 100;

interface TreeProps {
  viewId: number;
  categories: ExplorerCategory[];
  rootAnomalies: number;
  selected: Record<string, string>;
  onSelect: (categories: Record<string, string>) => void;
}

export function SeriesTree({ viewId, categories, rootAnomalies, selected, onSelect }: TreeProps) {
  return (
    <nav className="series-tree" aria-label="Series of the data view">
      <SeriesSearch viewId={viewId} categories={categories} selected={selected} onSelect={onSelect} />
      <ul className="tree" aria-label="Category tree">
        <TreeNode
          viewId={viewId}
          categories={categories}
          node={{}}
          label="All (total)"
          anomalies={rootAnomalies}
          expandable={openDimensions(categories, {}).length > 0}
          selected={selected}
          onSelect={onSelect}
          initiallyOpen
        />
      </ul>
    </nav>
  );
}

function SeriesSearch({ viewId, categories, selected, onSelect }: Omit<TreeProps, 'rootAnomalies'>) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  useEffect(() => {
    const t = window.setTimeout(() => setQuery(text.trim()), 250);
    return () => window.clearTimeout(t);
  }, [text]);
  const found = useLoad(
    () =>
      query
        ? api<SearchAnswer>(
            'GET',
            `/dataviews/${viewId}/explorer/search?q=${encodeURIComponent(query)}&limit=50`,
          )
        : Promise.resolve(undefined),
    [viewId, query],
  );
  return (
    <div className="tree-search">
      <label htmlFor="series-search">Search categories</label>
      <input
        id="series-search"
        type="search"
        value={text}
        placeholder="e.g. Brno"
        autoComplete="off"
        onChange={(e) => setText(e.target.value)}
      />
      {query && (
        <div className="search-results" aria-live="polite">
          {found.loading && <Loading what="Searching" />}
          <Problem error={found.error} />
          {found.data && found.data.items.length === 0 && (
            <p className="muted">No category value contains “{query}”.</p>
          )}
          {found.data && found.data.items.length > 0 && (
            <ul aria-label={`Series matching ${query}`}>
              {found.data.items.map((i) => (
                <li key={i.seriesId}>
                  <button
                    type="button"
                    className="link"
                    aria-current={sameCategories(i.categories, selected) ? 'true' : undefined}
                    onClick={() => onSelect(i.categories)}
                  >
                    {seriesTitle(i.categories, categories)}
                  </button>
                  {i.anomalies > 0 && <span className="count"> {i.anomalies}</span>}
                </li>
              ))}
            </ul>
          )}
          {found.data?.truncated && (
            <p className="muted">The first {found.data.limit} matches; type more to narrow the search.</p>
          )}
        </div>
      )}
    </div>
  );
}

interface NodeProps {
  viewId: number;
  categories: ExplorerCategory[];
  node: Record<string, string>;
  label: string;
  anomalies: number;
  expandable: boolean;
  selected: Record<string, string>;
  onSelect: (categories: Record<string, string>) => void;
  initiallyOpen?: boolean;
}

/** True when `node` is an ancestor of (or equal to) the selection: it starts open. */
function leadsTo(node: Record<string, string>, selected: Record<string, string>): boolean {
  return (
    Object.entries(node).every(([k, v]) => Object.hasOwn(selected, k) && selected[k] === v) &&
    Object.keys(selected).length > Object.keys(node).length
  );
}

function TreeNode(p: NodeProps) {
  const [open, setOpen] = useState(Boolean(p.initiallyOpen) || leadsTo(p.node, p.selected));
  const isSelected = sameCategories(p.node, p.selected);
  const dims = openDimensions(p.categories, p.node);
  return (
    <li>
      <div className={`tree-row${isSelected ? ' selected' : ''}`}>
        {p.expandable ? (
          <button
            type="button"
            className="toggle"
            aria-expanded={open}
            aria-label={`${open ? 'Collapse' : 'Expand'} ${p.label}`}
            onClick={() => setOpen(!open)}
          >
            {open ? '▾' : '▸'}
          </button>
        ) : (
          <span className="toggle" aria-hidden="true" />
        )}
        <button
          type="button"
          className="link node"
          aria-current={isSelected ? 'true' : undefined}
          onClick={() => p.onSelect(p.node)}
        >
          {p.label}
        </button>
        {p.anomalies > 0 && (
          <span className="count" title={`${p.anomalies} anomalies`}>
            {p.anomalies}
          </span>
        )}
      </div>
      {open && p.expandable && (
        <ul>
          {dims.map((d) => (
            <DimensionGroup key={d} {...p} dimension={d} single={dims.length === 1} />
          ))}
        </ul>
      )}
    </li>
  );
}

function DimensionGroup(p: NodeProps & { dimension: string; single: boolean }) {
  const label = p.categories.find((c) => c.name === p.dimension)?.label ?? p.dimension;
  const [open, setOpen] = useState(p.single || Object.hasOwn(p.selected, p.dimension));
  return (
    <li className="dimension">
      <button type="button" className="toggle-dim" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} by {label}
      </button>
      {open && <ChildValues {...p} />}
    </li>
  );
}

function ChildValues(p: NodeProps & { dimension: string }) {
  const [pages, setPages] = useState<TreeAnswer['children'][]>([]);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const base = categoriesQuery(p.node);
  const load = async (offset: number) => {
    setLoading(true);
    setError(null);
    try {
      const r = await api<TreeAnswer>(
        'GET',
        `/dataviews/${p.viewId}/explorer/tree?${base ? `${base}&` : ''}dimension=${encodeURIComponent(p.dimension)}&offset=${offset}&limit=${PAGE}`,
      );
      setPages((old) => [...old.filter((x) => x && x.offset < offset), r.children]);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: loaded once when the group opens
  useEffect(() => {
    void load(0);
  }, [p.viewId, base, p.dimension]);
  const items = pages.flatMap((x) => x?.items ?? []);
  const total = pages[pages.length - 1]?.total ?? 0;
  return (
    <>
      <Problem error={error} />
      {items.length === 0 && loading && <Loading what="Loading values" />}
      {items.length === 0 && !loading && !error && <p className="muted">No values.</p>}
      <ul>
        {items.map((i) => (
          <TreeNode
            key={i.value}
            viewId={p.viewId}
            categories={p.categories}
            node={{ ...p.node, [p.dimension]: i.value }}
            label={i.value}
            anomalies={i.anomalies}
            expandable={i.expandable}
            selected={p.selected}
            onSelect={p.onSelect}
          />
        ))}
      </ul>
      {items.length < total && (
        <button type="button" className="link more" disabled={loading} onClick={() => load(items.length)}>
          Show more ({total - items.length} more of {total})
        </button>
      )}
    </>
  );
}
