/** AWS Secrets Manager adapter: one secret per connector (and per service secret) under a name prefix, in namespaces that cannot collide; the reference is the name. */
import { SecretStoreError } from './errors';
import { namespacedSecretName, type SecretStore } from './secret-store';

/** Anything with the SDK client's send(), so tests can hand in a fake. */
export interface SecretsManagerLike {
  send(command: unknown): Promise<unknown>;
}

export interface AwsSecretsManagerStoreOptions {
  /** Prepended to every (namespaced) name, e.g. `anomaly-monitor/dev/` → `anomaly-monitor/dev/connector/sales`. */
  prefix: string;
  /** A ready client; otherwise one is created on first use with `region` and the default credentials. */
  client?: SecretsManagerLike;
  region?: string;
  /** A customer-managed KMS key for new secrets; the account's default key otherwise. */
  kmsKeyId?: string;
}

type Sdk = typeof import('@aws-sdk/client-secrets-manager');

// Secrets Manager names: letters, digits and /_+=.@-
const NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;

export class AwsSecretsManagerStore implements SecretStore {
  private sdk?: Promise<Sdk>;
  private client?: SecretsManagerLike;

  constructor(private readonly options: AwsSecretsManagerStoreOptions) {
    if (!NAME.test(options.prefix)) {
      throw new SecretStoreError(
        `secret name prefix '${options.prefix}' has characters Secrets Manager does not allow`,
      );
    }
    this.client = options.client;
  }

  /** The SDK is loaded on first use, so a function that never touches secrets never loads it. */
  private async connect(): Promise<{ sdk: Sdk; client: SecretsManagerLike }> {
    this.sdk ??= import('@aws-sdk/client-secrets-manager');
    const sdk = await this.sdk;
    this.client ??= new sdk.SecretsManagerClient(this.options.region ? { region: this.options.region } : {});
    return { sdk, client: this.client };
  }

  async put(name: string, value: string): Promise<string> {
    const id = `${this.options.prefix}${namespacedSecretName(name)}`;
    if (!NAME.test(id))
      throw new SecretStoreError(`secret name '${id}' has characters Secrets Manager does not allow`);
    const { sdk, client } = await this.connect();
    try {
      await client.send(
        new sdk.CreateSecretCommand({
          Name: id,
          SecretString: value,
          Description: 'anomaly-monitor connector configuration',
          ...(this.options.kmsKeyId ? { KmsKeyId: this.options.kmsKeyId } : {}),
        }),
      );
    } catch (e) {
      if (errorName(e) !== 'ResourceExistsException') throw wrap('CreateSecret', id, e);
      try {
        await client.send(new sdk.PutSecretValueCommand({ SecretId: id, SecretString: value }));
      } catch (e2) {
        throw wrap('PutSecretValue', id, e2);
      }
    }
    return id;
  }

  async get(ref: string): Promise<string> {
    this.checkRef(ref);
    const { sdk, client } = await this.connect();
    let out: { SecretString?: string };
    try {
      out = (await client.send(new sdk.GetSecretValueCommand({ SecretId: ref }))) as {
        SecretString?: string;
      };
    } catch (e) {
      throw wrap('GetSecretValue', ref, e);
    }
    if (typeof out.SecretString !== 'string') throw new SecretStoreError(`secret ${ref} has no text value`);
    return out.SecretString;
  }

  async delete(ref: string): Promise<void> {
    this.checkRef(ref);
    const { sdk, client } = await this.connect();
    try {
      await client.send(new sdk.DeleteSecretCommand({ SecretId: ref, ForceDeleteWithoutRecovery: true }));
    } catch (e) {
      if (errorName(e) !== 'ResourceNotFoundException') throw wrap('DeleteSecret', ref, e);
    }
  }

  /** A reference outside the prefix would read some other application's secret: refuse it. */
  private checkRef(ref: string) {
    if (!ref.startsWith(this.options.prefix) || ref.length === this.options.prefix.length) {
      throw new SecretStoreError(`secret reference '${ref}' is outside the prefix ${this.options.prefix}`);
    }
  }
}

function errorName(e: unknown): string {
  return (e as { name?: string } | null)?.name ?? '';
}

function wrap(operation: string, id: string, e: unknown): SecretStoreError {
  const message = (e as { message?: string } | null)?.message ?? String(e);
  return new SecretStoreError(
    `Secrets Manager ${operation} failed for ${id}: ${errorName(e) || 'error'}: ${message}`,
    {
      cause: e,
    },
  );
}
