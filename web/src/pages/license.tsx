/** Licence: the plan and how many data views it still allows. */
import { Loading, PageHeader, Problem } from '../components/ui';
import { api } from '../lib/api';
import type { License } from '../lib/types';
import { useLoad } from '../lib/use-load';

export function LicensePage() {
  const lic = useLoad(() => api<License>('GET', '/system/license'), []);
  const l = lic.data;
  const used = l && l.maxDataViews > 0 ? Math.min(100, (l.dataViews / l.maxDataViews) * 100) : 0;
  return (
    <div>
      <PageHeader title="Licence" />
      <Problem error={lic.error} />
      {lic.loading && !l && <Loading />}
      {l && (
        <div className="card narrow">
          <dl className="facts">
            <dt>Plan</dt>
            <dd>{l.plan}</dd>
            <dt>Data views</dt>
            <dd>
              {l.dataViews} of {l.maxDataViews}
            </dd>
            <dt>Remaining</dt>
            <dd>{l.remaining}</dd>
          </dl>
          <label htmlFor="licence-usage">Usage</label>
          <meter id="licence-usage" min={0} max={100} low={70} high={90} optimum={0} value={used}>
            {Math.round(used)} %
          </meter>
          {l.remaining <= 0 && (
            <p className="warning">License limit reached: max {l.maxDataViews} data views.</p>
          )}
        </div>
      )}
    </div>
  );
}
