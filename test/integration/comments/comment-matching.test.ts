import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachVisibleComments, type CommentRecord, createComment } from '../../../lib/comments/service';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { adminCaller, body, dataUserCaller, insertDataView } from './fixtures';

describe(`comments attached to anomalies on ${backendName}`, () => {
  let t: TestDatabase;
  let view: number;
  let hiddenView: number;
  const admin = adminCaller();
  let ann: ReturnType<typeof dataUserCaller>;
  let wide: CommentRecord;
  let germany: CommentRecord;
  let wildcard: CommentRecord;
  let hidden: CommentRecord;

  const anomaly = (
    dataViewId: number,
    startDate: string,
    endDate: string,
    categories: Record<string, string | null>,
  ) => ({
    id: `${dataViewId}-${startDate}-${JSON.stringify(categories)}`,
    dataViewId,
    startDate,
    endDate,
    categories,
  });
  const commentIds = (a: { comments: CommentRecord[] }) => a.comments.map((c) => c.id);

  beforeAll(async () => {
    t = await createTestDatabase();
    view = await insertDataView(t.db, ['Country', 'Product']);
    hiddenView = await insertDataView(t.db, ['Country', 'Product']);
    ann = dataUserCaller('ann@example.com', [view]);
    wide = await createComment(
      t.db,
      admin,
      body(view, { dateFrom: '2024-03-01', dateTo: '2024-03-07' }),
      'api',
    );
    germany = await createComment(
      t.db,
      admin,
      body(view, { dateFrom: '2024-03-05', dateTo: '2024-03-10', categories: { Country: 'DE' } }),
      'api',
    );
    wildcard = await createComment(
      t.db,
      admin,
      body(view, { dateFrom: '2024-03-20', dateTo: '2024-03-20', categories: { Country: null } }),
      'api',
    );
    hidden = await createComment(
      t.db,
      admin,
      body(hiddenView, { dateFrom: '2024-03-01', dateTo: '2024-03-31' }),
      'api',
    );
  });
  afterAll(() => t.drop());

  it('attaches a data-view-wide comment to an anomaly of any series whose dates overlap its window', async () => {
    const [fr, all] = await attachVisibleComments(t.db, ann, [
      anomaly(view, '2024-03-07', '2024-03-08', { Country: 'FR', Product: 'Tea' }),
      anomaly(view, '2024-02-25', '2024-03-01', {}),
    ]);
    expect(commentIds(fr)).toEqual([wide.id]);
    expect(commentIds(all)).toEqual([wide.id]);
  });

  it('attaches a constrained comment only where the anomaly has the same value', async () => {
    const [de, fr, allCountries] = await attachVisibleComments(t.db, ann, [
      anomaly(view, '2024-03-09', '2024-03-09', { Country: 'DE', Product: 'Tea' }),
      anomaly(view, '2024-03-09', '2024-03-09', { Country: 'FR', Product: 'Tea' }),
      anomaly(view, '2024-03-09', '2024-03-09', { Product: 'Tea' }),
    ]);
    expect(commentIds(de)).toEqual([germany.id]);
    expect(commentIds(fr)).toEqual([]);
    expect(commentIds(allCountries)).toEqual([]);
  });

  it('treats a category sent as null as a wildcard', async () => {
    const [a] = await attachVisibleComments(t.db, ann, [
      anomaly(view, '2024-03-19', '2024-03-21', { Country: 'US' }),
    ]);
    expect(commentIds(a)).toEqual([wildcard.id]);
  });

  it('attaches nothing to an anomaly outside every window', async () => {
    const [a] = await attachVisibleComments(t.db, ann, [
      anomaly(view, '2024-04-01', '2024-04-02', { Country: 'DE' }),
    ]);
    expect(a.comments).toEqual([]);
  });

  it('never attaches a comment of a data view the caller cannot see', async () => {
    const [a] = await attachVisibleComments(t.db, ann, [anomaly(hiddenView, '2024-03-05', '2024-03-05', {})]);
    expect(a.comments).toEqual([]);
    const [b] = await attachVisibleComments(t.db, admin, [
      anomaly(hiddenView, '2024-03-05', '2024-03-05', {}),
    ]);
    expect(commentIds(b)).toEqual([hidden.id]);
  });

  it('returns the full comment records', async () => {
    const [a] = await attachVisibleComments(t.db, ann, [
      anomaly(view, '2024-03-06', '2024-03-06', { Country: 'DE' }),
    ]);
    expect(a.comments).toEqual([wide, germany]);
  });
});
