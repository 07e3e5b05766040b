/** Local mode seeds an admin and a data user; passwords come from the config or are generated (and then reset each start). */
import type { Database } from '../db/database';
import { randomPassword } from './passwords';
import { ensureUser } from './users';

export const SEED_ADMIN_EMAIL = 'admin@example.com';
export const SEED_USER_EMAIL = 'user@example.com';

export interface SeededAccount {
  email: string;
  role: 'admin' | 'data-user';
  password: string;
  generated: boolean;
}

export async function seedLocalUsers(
  db: Database,
  passwords: { adminPassword?: string; userPassword?: string },
): Promise<SeededAccount[]> {
  const accounts: SeededAccount[] = [
    {
      email: SEED_ADMIN_EMAIL,
      role: 'admin',
      password: passwords.adminPassword ?? randomPassword(),
      generated: !passwords.adminPassword,
    },
    {
      email: SEED_USER_EMAIL,
      role: 'data-user',
      password: passwords.userPassword ?? randomPassword(),
      generated: !passwords.userPassword,
    },
  ];
  for (const a of accounts) await ensureUser(db, a.email, a.role, a.password, true);
  return accounts;
}
