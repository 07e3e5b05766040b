/** Secrets: the port, its two adapters and the local master key helpers. */
import { AwsSecretsManagerStore, type SecretsManagerLike } from './aws-store';
import { LocalSecretStore } from './local-store';
import type { SecretStore } from './secret-store';

export type { SecretStore } from './secret-store';
export { connectorSecretName, namespacedSecretName, serviceSecretName } from './secret-store';
export { SecretStoreError } from './errors';
export { LocalSecretStore, type LocalSecretStoreOptions } from './local-store';
export {
  AwsSecretsManagerStore,
  type AwsSecretsManagerStoreOptions,
  type SecretsManagerLike,
} from './aws-store';
export { generateMasterKey, masterKeyId, decodeMasterKey } from './master-key';

export type SecretStoreConfig =
  | { backend: 'local'; masterKey: string; previousKeys?: string[] }
  | { backend: 'aws'; prefix: string; region?: string; kmsKeyId?: string; client?: SecretsManagerLike };

/** The adapter the configuration asks for. */
export function createSecretStore(config: SecretStoreConfig): SecretStore {
  if (config.backend === 'local')
    return new LocalSecretStore(config.masterKey, { previousKeys: config.previousKeys });
  return new AwsSecretsManagerStore(config);
}
