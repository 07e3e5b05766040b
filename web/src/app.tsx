/** The app shell: sign-in gate, role-aware navigation, and the route table. */
import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react';
import { ErrorBoundary } from './components/error-boundary';
import { Loading, Problem } from './components/ui';
import { api } from './lib/api';
import { Link, matchPath, navigate, useLocation } from './lib/router';
import { clearToken, isAdmin, type Me, MeContext, useToken } from './lib/session';
import { HomePage } from './pages/home';
import { SignInPage } from './pages/sign-in';

const FiltersPage = lazy(() => import('./pages/filters').then((m) => ({ default: m.FiltersPage })));
const FilterEditPage = lazy(() => import('./pages/filter-edit').then((m) => ({ default: m.FilterEditPage })));
const DataViewsPage = lazy(() => import('./pages/dataviews').then((m) => ({ default: m.DataViewsPage })));
const DataViewEditPage = lazy(() =>
  import('./pages/dataview-edit').then((m) => ({ default: m.DataViewEditPage })),
);
const DataViewFromQueryPage = lazy(() =>
  import('./pages/dataview-from-query').then((m) => ({ default: m.DataViewFromQueryPage })),
);
const ConnectorsPage = lazy(() => import('./pages/connectors').then((m) => ({ default: m.ConnectorsPage })));
const CommentsPage = lazy(() => import('./pages/comments').then((m) => ({ default: m.CommentsPage })));
const UsersPage = lazy(() => import('./pages/users').then((m) => ({ default: m.UsersPage })));
const ApiKeysPage = lazy(() => import('./pages/api-keys').then((m) => ({ default: m.ApiKeysPage })));
const SettingsPage = lazy(() => import('./pages/settings').then((m) => ({ default: m.SettingsPage })));
const ExplorerPage = lazy(() => import('./pages/explorer').then((m) => ({ default: m.ExplorerPage })));
const LicensePage = lazy(() => import('./pages/license').then((m) => ({ default: m.LicensePage })));
const IncidentPage = lazy(() => import('./pages/incident').then((m) => ({ default: m.IncidentPage })));
const MyAlertsPage = lazy(() => import('./pages/alerts').then((m) => ({ default: m.MyAlertsPage })));

interface RouteDef {
  pattern: string;
  title: string;
  /** Only administrators may open it. */
  admin?: boolean;
  render: (params: Record<string, string>) => ReactNode;
}

// Filter editing is admin work, but a recipient may open a shared filter to preview changes (spec, filter rule 5).
const routes: RouteDef[] = [
  { pattern: '/', title: 'Home', render: () => <HomePage /> },
  { pattern: '/filters', title: 'Filters', admin: true, render: () => <FiltersPage /> },
  { pattern: '/filters/new', title: 'New filter', admin: true, render: () => <FilterEditPage id={null} /> },
  { pattern: '/filters/:id', title: 'Filter', render: (p) => <FilterEditPage id={Number(p.id)} /> },
  { pattern: '/dataviews', title: 'Data views', admin: true, render: () => <DataViewsPage /> },
  {
    pattern: '/dataviews/new',
    title: 'New data view',
    admin: true,
    render: () => <DataViewEditPage id={null} />,
  },
  {
    pattern: '/dataviews/from-query',
    title: 'New view from a query',
    admin: true,
    render: () => <DataViewFromQueryPage />,
  },
  {
    pattern: '/dataviews/:id',
    title: 'Data view',
    admin: true,
    render: (p) => <DataViewEditPage id={Number(p.id)} />,
  },
  { pattern: '/connectors', title: 'Connectors', admin: true, render: () => <ConnectorsPage /> },
  { pattern: '/explorer', title: 'Series explorer', render: () => <ExplorerPage /> },
  {
    pattern: '/incidents/:view/:id',
    title: 'Incident',
    render: (p) => <IncidentPage dataViewId={Number(p.view)} incidentId={Number(p.id)} />,
  },
  { pattern: '/comments', title: 'Comments', render: () => <CommentsPage /> },
  { pattern: '/my-alerts', title: 'My alerts', render: () => <MyAlertsPage /> },
  { pattern: '/users', title: 'Users', admin: true, render: () => <UsersPage /> },
  { pattern: '/api-keys', title: 'API keys', admin: true, render: () => <ApiKeysPage /> },
  { pattern: '/license', title: 'Licence', admin: true, render: () => <LicensePage /> },
  { pattern: '/settings', title: 'Settings', admin: true, render: () => <SettingsPage /> },
];

const adminNav: Array<[string, string]> = [
  ['/', 'Home'],
  ['/filters', 'Filters'],
  ['/explorer', 'Explorer'],
  ['/dataviews', 'Data views'],
  ['/connectors', 'Connectors'],
  ['/comments', 'Comments'],
  ['/my-alerts', 'My alerts'],
  ['/users', 'Users'],
  ['/api-keys', 'API keys'],
  ['/license', 'Licence'],
  ['/settings', 'Settings'],
];
const userNav: Array<[string, string]> = [
  ['/', 'Home'],
  ['/explorer', 'Explorer'],
  ['/comments', 'Comments'],
  ['/my-alerts', 'My alerts'],
];

export function App() {
  const token = useToken();
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setMe(null);
    setError(null);
    if (!token) return;
    api<Me>('GET', '/auth/me').then(setMe, setError);
  }, [token]);
  if (!token) return <SignInPage />;
  if (error) {
    return (
      <main className="narrow">
        <Problem error={error} />
        <button type="button" onClick={clearToken}>
          Sign in again
        </button>
      </main>
    );
  }
  if (!me) return <Loading what="Signing in" />;
  return (
    <MeContext.Provider value={me}>
      <Shell me={me} />
    </MeContext.Provider>
  );
}

function Shell({ me }: { me: Me }) {
  const { path } = useLocation();
  const nav = isAdmin(me) ? adminNav : userNav;
  let page: ReactNode = <NotFound />;
  let title = 'Not found';
  for (const r of routes) {
    const params = matchPath(r.pattern, path);
    if (!params) continue;
    title = r.title;
    page =
      r.admin && !isAdmin(me) ? (
        <p className="problem">This page is for administrators.</p>
      ) : (
        r.render(params)
      );
    break;
  }
  useEffect(() => {
    document.title = `${title} · Anomaly monitor`;
  }, [title]);
  const section = `/${path.split('/')[1] ?? ''}`;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Anomaly monitor
        </Link>
        <nav aria-label="Main">
          <ul>
            {nav.map(([to, label]) => (
              <li key={to}>
                <Link to={to} aria-current={section === to ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span title={me.role}>
            {me.email} <small>({me.role === 'admin' ? 'admin' : 'data user'})</small>
          </span>
          <button
            type="button"
            className="link"
            onClick={() => {
              clearToken();
              navigate('/');
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {/* Keyed by path: a page opened at another address starts fresh (new → saved id). */}
        <ErrorBoundary key={path}>
          <Suspense fallback={<Loading />}>{page}</Suspense>
        </ErrorBoundary>
      </main>
    </>
  );
}

function NotFound() {
  return (
    <div>
      <h1>Page not found</h1>
      <p>
        <Link to="/">Back to Home</Link>
      </p>
    </div>
  );
}
