import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../lib/app/container';
import { loadConfig } from '../../../lib/config/config';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { recalculateBaselines } from '../../../lib/process-job/baseline-rebuild';
import { systemCaller } from '../../../lib/identity/caller';
import { runDetection } from '../../../lib/process-job/start';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

const flat = (v: number) => Array.from({ length: 42 }, () => v);

describe(`baseline tables on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let id: number;
  let c: Container;
  const rows = (table: string) =>
    t.db.rows<Record<string, unknown>>(sql.raw(`SELECT * FROM ${schemaNameFor(id)}.${table} ORDER BY 1, 2`));

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    c = { db: t.db, config: loadConfig({}) } as unknown as Container;
    id = await loadedDetectionView(t.db, source, {
      name: 'baselines',
      categories: [{ name: 'country' }, { name: 'city', parent: 'country' }],
      detectors: [{ type: 'peer', params: { baselineDays: 14 } }, { type: 'mix' }, { type: 'cardinality' }],
      series: ['Prague', 'Brno', 'Ostrava'].map((city, i) => ({
        categories: { country: 'CZ', city },
        values: flat(10 * (i + 1)),
      })),
    });
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('replaces the baseline tables of a view deployed with their older shape', async () => {
    const s = schemaNameFor(id);
    await t.db.rows(sql.raw(`DROP TABLE ${s}.baseline_peer`));
    await t.db.rows(
      sql.raw(
        `CREATE TABLE ${s}.baseline_peer (series_id integer NOT NULL, weekday smallint NOT NULL, ratio double precision NOT NULL)`,
      ),
    );
    const r = await recalculateBaselines(c, systemCaller(), id);
    expect(r).toMatchObject({
      detectors: ['peer', 'mix', 'cardinality'],
      peerGroups: 1,
      cardinalityGroups: 2,
      mixLinks: 4,
    });
    const [peer] = await rows('baseline_peer');
    expect(peer).toMatchObject({ category: 'city', weeks: 2, first_day: 20240101 });
  });

  it('is refreshed by the process job the same way as by the ad hoc rebuild', async () => {
    const before = (await rows('baseline_peer')).map(({ run_id: _, ...r }) => r);
    await runDetection(c, id, 5001);
    const after = await rows('baseline_peer');
    expect(after.map(({ run_id: _, ...r }) => r)).toEqual(before);
    expect(after.every((r) => Number(r.run_id) === 5001)).toBe(true);
    expect((await rows('baseline_mix')).map((r) => r.category)).toEqual(['country', 'city', 'city', 'city']);
  });

  it('empties the tables of detectors that are no longer defined', async () => {
    const s = schemaNameFor(id);
    await t.db.rows(
      sql.raw(
        `UPDATE data_views SET definition = jsonb_set(definition, '{analysis,detectors}', '[{"type": "mix", "params": {}}]') WHERE id = ${id}`,
      ),
    );
    const r = await recalculateBaselines(c, systemCaller(), id);
    expect(r).toMatchObject({ detectors: ['mix'], peerGroups: 0, cardinalityGroups: 0, mixLinks: 4 });
    expect(await rows('baseline_peer')).toEqual([]);
    expect(await rows('baseline_cardinality')).toEqual([]);
    expect(await t.db.rows(sql.raw(`SELECT count(*)::int AS n FROM ${s}.baseline_mix`))).toEqual([{ n: 4 }]);
  });
});
