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

/**
 * Secret names are namespaced so that no connector can collide with the service's own secrets:
 * `connector/<connector name>` (connector names never hold '/') and `service/<name>`. A bare name is taken
 * as a connector's.
 */
export const connectorSecretName = (name: string) => `connector/${name}`;
export const serviceSecretName = (name: string) => `service/${name}`;
export function namespacedSecretName(name: string): string {
  return /^(connector|service)\//.test(name) ? name : connectorSecretName(name);
}
