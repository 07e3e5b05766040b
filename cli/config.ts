/** The CLI's own settings: flags over environment over the config file `login` writes; the only reader of process.env in cli/. */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { CliError } from './errors';
import { secretEnv } from './config-as-code/references';

export const DEFAULT_URL = 'http://127.0.0.1:3000';

/** Options every command accepts (declared on the program). */
export interface GlobalOptions {
  url?: string;
  token?: string;
  apiKey?: string;
  json?: boolean;
}

/** What `login` stores: the service and a Bearer token for it. */
export interface StoredConfig {
  url?: string;
  token?: string;
  email?: string;
  expiresAt?: string;
}

export type Credential = { kind: 'token'; value: string } | { kind: 'apiKey'; value: string };

export interface Settings {
  url: string;
  credential?: Credential;
  /** Where the credential came from, for hints on 401. */
  credentialSource?: 'flag' | 'environment' | 'config file';
  configPath: string;
  json: boolean;
}

type Env = Record<string, string | undefined>;

/** The environment `${env:NAME}` references of declared configuration (`apply`) are resolved from: only ANOMALY_MONITOR_SECRET_*. */
export function declarationEnv(): Env {
  return secretEnv(process.env);
}

const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** SERVICE_CLI_CONFIG, else $XDG_CONFIG_HOME/service-cli/config.json, else ~/.config/service-cli/config.json. */
export function configPath(env: Env = process.env): string {
  const explicit = nonEmpty(env.SERVICE_CLI_CONFIG);
  if (explicit) return path.resolve(explicit);
  const base = nonEmpty(env.XDG_CONFIG_HOME) ?? path.join(homedir(), '.config');
  return path.join(base, 'service-cli', 'config.json');
}

export function readStoredConfig(file: string): StoredConfig {
  if (!existsSync(file)) return {};
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as StoredConfig) : {};
  } catch (e) {
    throw CliError.usage(
      `The config file ${file} is not valid JSON (${(e as Error).message}); fix or delete it.`,
    );
  }
}

/** Writes the config file readable by its owner only (mode 600), its folder 700. */
export function writeStoredConfig(file: string, config: StoredConfig): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Deletes the config file; true when there was one. */
export function removeStoredConfig(file: string): boolean {
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}

/** Accepts the service origin, with or without a trailing slash or /api/v1. */
export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw CliError.usage(`--url must be an http(s) URL such as ${DEFAULT_URL}, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw CliError.usage(`--url must be an http(s) URL such as ${DEFAULT_URL}, got '${raw}'`);
  }
  return url
    .toString()
    .replace(/\/+$/, '')
    .replace(/\/api\/v1$/, '');
}

/**
 * Flags win over SERVICE_CLI_URL / SERVICE_CLI_TOKEN / SERVICE_CLI_API_KEY, which win over the config file.
 * The stored token is sent only to the service it was issued by.
 */
export function resolveSettings(flags: GlobalOptions, env: Env = process.env): Settings {
  const file = configPath(env);
  const stored = readStoredConfig(file);
  const url = normalizeUrl(nonEmpty(flags.url) ?? nonEmpty(env.SERVICE_CLI_URL) ?? stored.url ?? DEFAULT_URL);
  const settings: Settings = { url, configPath: file, json: flags.json === true };
  const candidates: Array<[Credential['kind'], string | undefined, Settings['credentialSource']]> = [
    ['token', nonEmpty(flags.token), 'flag'],
    ['apiKey', nonEmpty(flags.apiKey), 'flag'],
    ['token', nonEmpty(env.SERVICE_CLI_TOKEN), 'environment'],
    ['apiKey', nonEmpty(env.SERVICE_CLI_API_KEY), 'environment'],
    ['token', stored.url && normalizeUrl(stored.url) === url ? stored.token : undefined, 'config file'],
  ];
  const found = candidates.find(([, value]) => value !== undefined);
  if (found) {
    settings.credential = { kind: found[0], value: found[1]! } as Credential;
    settings.credentialSource = found[2];
  }
  return settings;
}
