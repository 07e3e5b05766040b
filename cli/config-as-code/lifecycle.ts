/**
 * A data view's lifecycle in configuration as code: `state: prepared | disabled | enabled` beside the
 * definition (export writes it; apply reaches it by deploying, enabling or disabling). A deployed view is
 * never undeployed by apply: that drops its loaded data, which a file should not do silently.
 */
import { CliError } from '../errors';
import type { ApiClient } from '../http-client';
import type { Declared } from './documents';

export type ViewState = 'prepared' | 'disabled' | 'enabled';
const STATES: readonly ViewState[] = ['prepared', 'disabled', 'enabled'];

/** The state a declaration asks for (undefined: keep the service's), checked. */
export function declaredState(d: Declared): ViewState | undefined {
  const s = d.body.state;
  if (s === undefined || s === null) return undefined;
  if (!STATES.includes(s as ViewState))
    throw CliError.usage(
      `${d.file}: dataview '${d.key}': state must be prepared, disabled or enabled, not '${String(s)}'.`,
    );
  return s as ViewState;
}

/** The lifecycle calls from `from` to `to`, in order. */
export function transitions(d: Declared, from: ViewState, to: ViewState | undefined): string[] {
  if (to === undefined || to === from) return [];
  if (to === 'prepared')
    throw CliError.usage(
      `${d.file}: dataview '${d.key}' is ${from} on the service; apply does not undeploy (it drops the ` +
        `loaded data): run \`service-cli dataviews undeploy ${d.key}\` first, or write state: ${from}.`,
    );
  if (from === 'prepared') return to === 'enabled' ? ['deploy', 'enable'] : ['deploy'];
  return [to === 'enabled' ? 'enable' : 'disable'];
}

/** Runs the calls on view `id`; with `load`, a view deployed and enabled here gets its first load. */
export async function reachState(
  api: ApiClient,
  id: number,
  calls: string[],
  load: boolean,
  before: string[] = [],
): Promise<string[]> {
  const done: string[] = [...before];
  const step = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof CliError)) throw e;
      const before = done.length ? `after ${done.join(', ')}, ` : '';
      throw new CliError(`${before}${what} was refused: ${e.message}`, e.exitCode, e.problem);
    }
  };
  for (const call of calls) {
    await step(call, () => api.post(`/api/v1/dataviews/${id}/${call}`));
    done.push(call);
  }
  if (load && calls.includes('deploy') && calls.includes('enable')) {
    const job = await step('the first load', () =>
      api.post<{ id: number }>(`/api/v1/dataviews/${id}/jobs/load`),
    );
    done.push(`load (job ${job.id})`);
  }
  return done;
}
