/** The licence: how many data views the plan allows, counted over all views whatever their state. */
import type { Caller } from '../identity/caller';
import { ForbiddenError } from '../shared/errors';
import { countViews } from './repository';
import type { DataViewDeps } from './types';

export interface LicenseUsage {
  plan: string;
  maxDataViews: number;
  /** Data views that exist now (prepared, disabled and enabled). */
  dataViews: number;
  /** How many more may be created; 0 at or over the limit. */
  remaining: number;
}

/** The spec's message, word for word. */
export function licenseLimitMessage(max: number): string {
  return `License limit reached: max ${max} data views.`;
}

/** GET /system/license: the plan and its usage; any signed-in caller may read it. */
export async function getLicenseUsage(
  deps: Pick<DataViewDeps, 'db' | 'config'>,
  _caller: Caller,
): Promise<LicenseUsage> {
  const { plan, maxDataViews } = deps.config.license;
  const dataViews = await countViews(deps.db);
  return { plan, maxDataViews, dataViews, remaining: Math.max(0, maxDataViews - dataViews) };
}

/** Refuses a new data view at the limit; call inside the creating transaction, after lockViewCreation. */
export async function assertBelowLicenseLimit(deps: Pick<DataViewDeps, 'db' | 'config'>): Promise<void> {
  const max = deps.config.license.maxDataViews;
  if ((await countViews(deps.db)) >= max) throw new ForbiddenError(licenseLimitMessage(max));
}

/** For job reports: a warning when more views exist than the plan allows (views made before a downgrade), else null. */
export async function licenseWarning(deps: Pick<DataViewDeps, 'db' | 'config'>): Promise<string | null> {
  const { plan, maxDataViews } = deps.config.license;
  const n = await countViews(deps.db);
  return n > maxDataViews
    ? `License warning: ${n} data views exist, more than the ${maxDataViews} of the ${plan} plan.`
    : null;
}
