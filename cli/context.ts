/** What every command needs: the resolved settings, an API client and the output, plus argument and --file readers. */
import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError } from 'commander';
import { type GlobalOptions, resolveSettings, type Settings } from './config';
import { CliError } from './errors';
import { ApiClient } from './http-client';
import { Output } from './output';

export interface Ctx {
  api: ApiClient;
  out: Output;
  settings: Settings;
}

/** Builds the context of the running command from its options and the program's global ones. */
export function context(cmd: Command): Ctx {
  const settings = resolveSettings(cmd.optsWithGlobals<GlobalOptions>());
  return { api: new ApiClient(settings), out: new Output(settings.json), settings };
}

/** Commander argument parser: a positive whole number (ids). */
export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('must be a positive whole number.');
  return Number(value);
}

/** Commander option parser: a comma-separated list of positive whole numbers. */
export function intList(value: string): number[] {
  const parts = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  return parts.map(positiveInt);
}

/** Commander option parser: a yyyy-MM-dd date. */
export function isoDate(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new InvalidArgumentError('must be a date in yyyy-MM-dd form.');
  return value;
}

/** Commander option parser: a number of seconds, 0 or more. */
export function seconds(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('must be a number of seconds.');
  return n;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** The text of --file: a path, or `-` for standard input. */
export async function readInput(file: string): Promise<string> {
  if (file === '-') return readStdin();
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw CliError.usage(
      `Cannot read --file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
}

/** A JSON body from --file; a file that is not JSON is a usage error naming it. */
export async function readJsonFile(file: string): Promise<unknown> {
  const text = await readInput(file);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw CliError.usage(`--file ${file} is not valid JSON: ${(e as Error).message}`);
  }
}

/** A JSON object body from --file. */
export async function readJsonObject(file: string): Promise<Record<string, unknown>> {
  const body = await readJsonFile(file);
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw CliError.usage(`--file ${file} must hold a JSON object.`);
  }
  return body as Record<string, unknown>;
}

/** A data view definition: JSON (.json, or text that parses) is sent as JSON, anything else as YAML for the service to parse. */
export async function readDefinition(file: string): Promise<{ body?: unknown; yaml?: string }> {
  const text = await readInput(file);
  if (/\.ya?ml$/i.test(file)) return { yaml: text };
  try {
    return { body: JSON.parse(text) };
  } catch (e) {
    if (/\.json$/i.test(file))
      throw CliError.usage(`--file ${file} is not valid JSON: ${(e as Error).message}`);
    return { yaml: text };
  }
}
