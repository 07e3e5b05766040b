/** The test service's two accounts (test/support/service.ts), the ones npm start seeds. */
export const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
export const USER = { email: 'user@example.com', password: 'user-password-1' };
