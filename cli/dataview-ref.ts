/** A data view named on the command line by id (`12`) or by `domain/name` (`retail/retail_sales`). */
import { InvalidArgumentError } from 'commander';
import { CliError, ExitCode } from './errors';
import type { ApiClient } from './http-client';

export type DataViewRef = { id: number } | { domain: string; name: string };

/** Commander argument parser; a domain may itself hold a slash, the name never does. */
export function dataViewRef(value: string): DataViewRef {
  if (/^\d+$/.test(value) && Number(value) > 0) return { id: Number(value) };
  const cut = value.lastIndexOf('/');
  if (cut > 0 && cut < value.length - 1) return { domain: value.slice(0, cut), name: value.slice(cut + 1) };
  throw new InvalidArgumentError('give a data view id (12) or domain/name (retail/retail_sales).');
}

export function refLabel(ref: DataViewRef): string {
  return 'id' in ref ? String(ref.id) : `${ref.domain}/${ref.name}`;
}

/** The id of a data view; domain/name is looked up in the caller's list (any case, as the service compares). */
export async function resolveDataViewId(api: ApiClient, ref: DataViewRef): Promise<number> {
  if ('id' in ref) return ref.id;
  const rows = await api.get<Array<{ id: number; domain: string; name: string }>>('/api/v1/dataviews', {
    query: { domain: ref.domain, name: ref.name },
  });
  const lower = (s: string) => s.toLowerCase();
  const hit = rows.find((r) => lower(r.name) === lower(ref.name) && lower(r.domain) === lower(ref.domain));
  if (!hit) throw new CliError(`Data view ${refLabel(ref)} was not found.`, ExitCode.notFound);
  return hit.id;
}
