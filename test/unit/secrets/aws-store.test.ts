import { describe, expect, it } from 'vitest';
import {
  AwsSecretsManagerStore,
  connectorSecretName,
  createSecretStore,
  SecretStoreError,
  serviceSecretName,
} from '../../../lib/secrets/index';
import { FakeSecretsManager } from './fake-secrets-manager';
import { secretStoreContract } from './secret-store-contract';

const prefix = 'anomaly-monitor/dev/';

secretStoreContract(
  'AwsSecretsManagerStore on a fake client',
  () => new AwsSecretsManagerStore({ prefix, client: new FakeSecretsManager() }),
);
secretStoreContract('createSecretStore aws', () =>
  createSecretStore({ backend: 'aws', prefix, client: new FakeSecretsManager() }),
);

describe('the Secrets Manager store', () => {
  it("keeps connectors' secrets and the service's own in namespaces no connector name can reach", async () => {
    const client = new FakeSecretsManager();
    const store = new AwsSecretsManagerStore({ prefix, client });
    const service = await store.put(
      serviceSecretName('summarization-headers'),
      '{"authorization":"Bearer sk"}',
    );
    // A connector named like the service's secret (connector names hold no '/').
    const connector = await store.put(connectorSecretName('summarization-headers'), '{"conn_string":"x"}');
    const bare = await store.put('summarization-headers', '{"conn_string":"y"}');
    expect(service).toBe(`${prefix}service/summarization-headers`);
    expect(connector).toBe(`${prefix}connector/summarization-headers`);
    expect(bare).toBe(connector);
    expect(await store.get(service)).toBe('{"authorization":"Bearer sk"}');
  });

  it('keeps one secret per connector under the prefix, the reference being its name', async () => {
    const client = new FakeSecretsManager();
    const ref = await new AwsSecretsManagerStore({ prefix, client, kmsKeyId: 'alias/connectors' }).put(
      'sales',
      'v',
    );
    expect(ref).toBe(`${prefix}connector/sales`);
    expect(client.secrets.get(ref)).toMatchObject({ value: 'v', kmsKeyId: 'alias/connectors' });
    expect(client.sent).toEqual(['CreateSecretCommand']);
  });

  it('puts a new version on update instead of creating a second secret', async () => {
    const client = new FakeSecretsManager();
    const store = new AwsSecretsManagerStore({ prefix, client });
    await store.put('sales', 'v1');
    await store.put('sales', 'v2');
    expect(client.sent).toEqual(['CreateSecretCommand', 'CreateSecretCommand', 'PutSecretValueCommand']);
    expect(client.secrets.get(`${prefix}connector/sales`)).toMatchObject({ value: 'v2', versions: 2 });
  });

  it('deletes for good, without the recovery window', async () => {
    const client = new FakeSecretsManager();
    const store = new AwsSecretsManagerStore({ prefix, client });
    await store.delete(await store.put('sales', 'v'));
    expect(client.secrets.size).toBe(0);
  });

  it('refuses references outside its prefix, so a row cannot point at another secret', async () => {
    const store = new AwsSecretsManagerStore({ prefix, client: new FakeSecretsManager() });
    await expect(store.get('prod/db-master-password')).rejects.toThrow('is outside the prefix');
    await expect(store.delete(prefix)).rejects.toBeInstanceOf(SecretStoreError);
  });

  it('reports a missing secret with its name and the AWS error, not a value', async () => {
    const store = new AwsSecretsManagerStore({ prefix, client: new FakeSecretsManager() });
    await expect(store.get(`${prefix}nope`)).rejects.toThrow(
      `Secrets Manager GetSecretValue failed for ${prefix}nope: ResourceNotFoundException`,
    );
  });

  it('refuses names Secrets Manager would refuse', async () => {
    expect(() => new AwsSecretsManagerStore({ prefix: 'bad prefix/' })).toThrow(SecretStoreError);
    const store = new AwsSecretsManagerStore({ prefix, client: new FakeSecretsManager() });
    await expect(store.put('a b', 'v')).rejects.toThrow('has characters Secrets Manager does not allow');
  });
});
