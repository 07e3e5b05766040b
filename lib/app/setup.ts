/** Sets up the service database of a deployment: migrations, then (once) the first admin account. */
import type { Database } from '../db/database';
import { migrate } from '../db/migrate';
import { randomPassword } from '../identity/passwords';
import { ensureUser } from '../identity/users';
import { ValidationError } from '../shared/errors';

export interface SetupRequest {
  /** Creates this admin when no user has the e-mail yet; an existing account is never changed. */
  admin?: { email?: string; password?: string };
}

export interface SetupResult {
  applied: string[];
  /** Present when an admin was asked for; the password only when it was generated for a new account. */
  admin?: { email: string; status: 'created' | 'kept'; password?: string };
}

/** Applies pending migrations and creates the requested first admin; safe to run after every deploy. */
export async function setUpDatabase(db: Database, request: SetupRequest = {}): Promise<SetupResult> {
  const email = request.admin?.email?.trim();
  if (request.admin && !email?.includes('@'))
    throw ValidationError.field('admin.email', 'must be an e-mail address');
  const given = request.admin?.password;
  if (given !== undefined && given.length < 8)
    throw ValidationError.field('admin.password', 'must have at least 8 characters');

  const applied = await migrate(db);
  if (!email) return { applied };
  const password = given ?? randomPassword();
  const status = await ensureUser(db, email, 'admin', password, false);
  if (status === 'created') return { applied, admin: { email, status, ...(given ? {} : { password }) } };
  return { applied, admin: { email, status: 'kept' } };
}
