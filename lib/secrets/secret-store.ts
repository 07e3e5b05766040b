/** The secrets port: where connector configurations (connection strings, client secrets) are kept. */

/**
 * put() stores `value` under `name` and returns a reference for the caller to keep in its own row;
 * get() and delete() take that reference. With the local adapter the reference is the ciphertext
 * itself; with AWS Secrets Manager it is the secret's name.
 */
export interface SecretStore {
  /** Stores (or replaces) the secret `name`; returns its reference. */
  put(name: string, value: string): Promise<string>;
  /** The plain value behind a reference; throws SecretStoreError when it cannot be read. */
  get(ref: string): Promise<string>;
  /** Forgets the secret; deleting one that is already gone is not an error. */
  delete(ref: string): Promise<void>;
}
