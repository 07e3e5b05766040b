/** "My alerts": the caller's alert subscriptions, and the alert settings for administrators (docs/alerts.md). */
import { type AlertSubscription, SubscriptionTable } from '../components/alerts/subscription-table';
import { Loading, PageHeader, Problem } from '../components/ui';
import { api } from '../lib/api';
import { isAdmin, useMe } from '../lib/session';
import { useLoad } from '../lib/use-load';
import { AlertSettingsForm } from './alert-settings';

export function MyAlertsPage() {
  const me = useMe();
  const subs = useLoad(() => api<AlertSubscription[]>('GET', '/anomaly-filters/alerts'), []);
  return (
    <div>
      <PageHeader title="My alerts" />
      <p className="muted">
        Subscribe on a filter’s page. Alerts hold only records of data views you can read; records marked
        expected or not an anomaly are never sent.
      </p>
      {subs.loading && !subs.data && <Loading />}
      <Problem error={subs.error} />
      {subs.data?.length === 0 && <p className="muted">You have no alert subscriptions yet.</p>}
      {subs.data && subs.data.length > 0 && <SubscriptionTable subs={subs.data} reload={subs.reload} />}
      {isAdmin(me) && <AlertSettingsForm />}
    </div>
  );
}
