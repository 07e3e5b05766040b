/**
 * A filter's pin and recipients in configuration as code: `pinned: true` and `sharedWith: [e-mail, …]`
 * beside its settings. The service keeps them apart from the settings (PUT /{id}/pin, POST /{id}/share,
 * by user id); recipients are written by e-mail so that a folder moves between services.
 */
import { CliError } from '../errors';
import type { ApiClient } from '../http-client';
import type { Declared } from './documents';

const FILTERS = '/api/v1/anomaly-filters';
export const EXTRA_FIELDS = ['pinned', 'sharedWith'];

/** What a declaration asks for; a field left out keeps what the service has. */
export interface FilterExtras {
  pinned?: boolean;
  /** Recipient user ids, sorted. */
  shareIds?: number[];
}

export interface CurrentExtras {
  pinned?: unknown;
  sharedWith?: unknown;
}

export type UserIds = Map<string, number>;

/** The users you can share with, by lower-case e-mail (read once, only when a file shares). */
export async function shareableUsers(api: ApiClient): Promise<UserIds> {
  const users = await api.get<Array<{ id: number; email: string }>>(`${FILTERS}/shareable-users`);
  return new Map(users.map((u) => [u.email.toLowerCase(), u.id]));
}

/** The pin and recipients of a declaration, checked; an unknown recipient is a usage error naming the file. */
export function declaredExtras(d: Declared, users: UserIds | undefined): FilterExtras {
  const where = `${d.file}: filter '${d.key}'`;
  const out: FilterExtras = {};
  if (d.body.pinned !== undefined) {
    if (typeof d.body.pinned !== 'boolean') throw CliError.usage(`${where}: pinned must be true or false.`);
    out.pinned = d.body.pinned;
  }
  const shared = d.body.sharedWith;
  if (shared !== undefined && shared !== null) {
    if (!Array.isArray(shared) || shared.some((e) => typeof e !== 'string'))
      throw CliError.usage(`${where}: sharedWith must be a list of e-mail addresses.`);
    out.shareIds = (shared as string[])
      .map((email) => {
        const id = users?.get(email.trim().toLowerCase());
        if (id === undefined)
          throw CliError.usage(
            `${where}: sharedWith: no user ${email} that you can share with on this service.`,
          );
        return id;
      })
      .sort((a, b) => a - b);
  }
  return out;
}

const sortedIds = (v: unknown) => (Array.isArray(v) ? v.map(Number).sort((a, b) => a - b) : []);

/** The extras that differ from the service's (a new filter: from unpinned and unshared). */
export function extrasChanges(want: FilterExtras, current: CurrentExtras = {}): string[] {
  const changes: string[] = [];
  if (want.pinned !== undefined && want.pinned !== (current.pinned === true)) changes.push('pinned');
  if (want.shareIds && want.shareIds.join(',') !== sortedIds(current.sharedWith).join(','))
    changes.push('sharedWith');
  return changes;
}

/** Sets what differs on filter `id`. */
export async function applyExtras(api: ApiClient, id: number, want: FilterExtras, changes: string[]) {
  if (changes.includes('pinned')) await api.put(`${FILTERS}/${id}/pin`, { body: { pinned: want.pinned } });
  if (changes.includes('sharedWith'))
    await api.post(`${FILTERS}/${id}/share`, { body: { targetUserIds: want.shareIds } });
}

/** Export: the pin and recipients of a filter as a file writes them (nothing when unpinned and unshared). */
export function exportedExtras(f: CurrentExtras, emails: Map<number, string>): Record<string, unknown> {
  const recipients = sortedIds(f.sharedWith)
    .map((id) => emails.get(id))
    .filter((e): e is string => e !== undefined);
  return {
    ...(f.pinned === true ? { pinned: true } : {}),
    ...(recipients.length ? { sharedWith: recipients } : {}),
  };
}
