/** The `incidents` after-cycle step over a fixture view (test/integration/filters/fixtures.ts): its stored records grouped. */
import { schemaNameFor } from '../../lib/dataset/ddl';
import type { Database } from '../../lib/db/database';
import { buildIncidents, type IncidentStepResult } from '../../lib/incidents/step';

let jobSeq = 70_000;

/** Groups the view's records into incidents as a detection cycle would (a new job id each call). */
export function fixtureIncidents(
  db: Database,
  view: { id: number; categories: string[] },
): Promise<IncidentStepResult> {
  return buildIncidents(
    { db },
    {
      id: view.id,
      source: { schema: schemaNameFor(view.id), fill: 'zero' },
      categories: view.categories.map((name) => ({ name })),
    },
    ++jobSeq,
  );
}
