/** Loads the YAML fixtures of test/fixtures/dataviews as fresh, mutable objects. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDefinitionBody } from '../../../lib/dataviews/definition/parse';
import type { DefinitionContext } from '../../../lib/dataviews/definition/types';

export function fixtureText(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../../fixtures/dataviews/${name}`, import.meta.url)), 'utf8');
}

/** The parsed fixture; each call returns a new object, so tests may mutate it. */
export function fixtureDoc(name = 'retail.yaml'): Record<string, any> {
  return parseDefinitionBody(fixtureText(name)) as Record<string, any>;
}

/** The fixtures use the demo connector `demo_pgsql`; every other name is unknown. */
export const ctx: DefinitionContext = { connectorExists: (name) => name === 'demo_pgsql' };
