/** Who is calling, as established at the edge, and the permission checks that use cases run first. */
import { ForbiddenError } from '../shared/errors';

export type Role = 'admin' | 'data-user';
/**
 * `read` sees data; `write` changes what a user owns on top of it (filters, shares, pins, feedback, comments
 * of the web UI, alert subscriptions, summary refreshes); `process` starts jobs; `admin` is everything.
 * A token carries read, write and process (and admin for admins); an API key only what it was given.
 */
export type Permission = 'read' | 'write' | 'process' | 'admin';

export interface Caller {
  userId: number;
  email: string;
  role: Role;
  /** What this credential may do: a token carries its user's role, an API key its own permissions. */
  permissions: ReadonlySet<Permission>;
  via: 'token' | 'api-key';
  /** The data views this caller may see: 'all' for admins (read through lib/dataviews/scope.ts only). */
  dataViews: 'all' | ReadonlySet<number>;
}

export function isAdmin(caller: Caller): boolean {
  return caller.role === 'admin' && caller.permissions.has('admin');
}

export function requireAdmin(caller: Caller): void {
  if (!isAdmin(caller)) throw new ForbiddenError('This action requires an administrator.');
}

export function requireRead(caller: Caller): void {
  if (!caller.permissions.has('read') && !caller.permissions.has('admin')) {
    throw new ForbiddenError('This credential cannot read data (it needs the read permission).');
  }
}

/** Writes of a user's own things: a token, or an API key given the write (or admin) permission. */
export function requireWrite(caller: Caller): void {
  requireRead(caller);
  if (!caller.permissions.has('write') && !caller.permissions.has('admin')) {
    throw new ForbiddenError('This API key can only read (it needs the write permission to change data).');
  }
}

/** Job endpoints: a Bearer token, or an API key with the process (or admin) permission. */
export function requireProcess(caller: Caller): void {
  if (caller.via === 'token') return;
  if (!caller.permissions.has('process') && !caller.permissions.has('admin')) {
    throw new ForbiddenError('This API key cannot start jobs (it needs the process permission).');
  }
}

/** A caller for internal work (schedules, workers) that sees everything. */
export function systemCaller(): Caller {
  return {
    userId: 0,
    email: 'system@localhost',
    role: 'admin',
    permissions: new Set<Permission>(['read', 'write', 'process', 'admin']),
    via: 'token',
    dataViews: 'all',
  };
}
