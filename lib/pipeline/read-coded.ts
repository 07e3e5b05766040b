/**
 * A load's read: the source query's rows checked against the source query rules and coded, batch by
 * batch. Read column by column when the connector can (pgsql's COPY: no object per source row), else
 * as row objects; the rows, their checks and their problems are the same either way.
 */
import { codeBatch, codeColumns, type Coder, resolveColumns, type RowShape } from './rows';
import type { LoadSource } from './source';
import { type CodedBatch, emptyBatch } from './stage';

/** The coded batches of `text` (rows numbered from 1 across batches in problems); empty batches skipped. */
export async function* codedBatches(
  source: LoadSource,
  text: string,
  opts: { batchSize: number; signal?: AbortSignal },
  shape: RowShape,
  dict: Coder,
  query = 'load query',
): AsyncGenerator<CodedBatch> {
  let rows = 0;
  if (source.streamColumns) {
    for await (const batch of source.streamColumns(text, opts)) {
      if (batch.length === 0) continue;
      const map = resolveColumns(shape, batch.names, query);
      const coded = emptyBatch(shape.categories.length);
      codeColumns(batch, map, shape, dict, coded, rows, query);
      rows += batch.length;
      yield coded;
    }
    return;
  }
  for await (const batch of source.stream(text, opts)) {
    if (batch.length === 0) continue;
    const map = resolveColumns(shape, Object.keys(batch[0]), query);
    const coded = emptyBatch(shape.categories.length);
    codeBatch(batch, map, shape, dict, coded, rows, query);
    rows += batch.length;
    yield coded;
  }
}
