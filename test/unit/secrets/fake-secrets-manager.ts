/** An in-memory stand-in for the Secrets Manager client: the commands the store sends, with their errors. */
import type { SecretsManagerLike } from '../../../lib/secrets/index';

function awsError(name: string, message: string) {
  return Object.assign(new Error(message), { name, $fault: 'client' });
}

export class FakeSecretsManager implements SecretsManagerLike {
  readonly secrets = new Map<string, { value: string; versions: number; kmsKeyId?: string }>();
  readonly sent: string[] = [];

  async send(command: unknown): Promise<unknown> {
    const name = (command as object).constructor.name;
    const input = (command as { input: Record<string, any> }).input;
    this.sent.push(name);
    switch (name) {
      case 'CreateSecretCommand': {
        if (this.secrets.has(input.Name))
          throw awsError('ResourceExistsException', `The secret ${input.Name} already exists.`);
        this.secrets.set(input.Name, { value: input.SecretString, versions: 1, kmsKeyId: input.KmsKeyId });
        return { ARN: `arn:aws:secretsmanager:eu-west-1:123:secret:${input.Name}`, Name: input.Name };
      }
      case 'PutSecretValueCommand': {
        const s = this.secrets.get(input.SecretId);
        if (!s)
          throw awsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
        s.value = input.SecretString;
        s.versions++;
        return { Name: input.SecretId };
      }
      case 'GetSecretValueCommand': {
        const s = this.secrets.get(input.SecretId);
        if (!s)
          throw awsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
        return { Name: input.SecretId, SecretString: s.value };
      }
      case 'DeleteSecretCommand': {
        if (!input.ForceDeleteWithoutRecovery)
          throw new Error('the store must not leave secrets in recovery');
        if (!this.secrets.delete(input.SecretId)) {
          throw awsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
        }
        return {};
      }
      default:
        throw new Error(`unexpected command ${name}`);
    }
  }
}
