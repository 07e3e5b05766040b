/** Errors of the secrets module. Messages name secrets and key ids, never values. */

export class SecretStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SecretStoreError';
  }
}
