import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComment, deleteComment, getComment, updateComment } from '../../../lib/comments/service';
import { AppError } from '../../../lib/shared/errors';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { adminCaller, body, dataUserCaller, insertDataView } from './fixtures';

/** The error a promise rejects with, for asserting code and field paths. */
async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof AppError)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e;
}
const paths = (e: AppError) => (e.errors ?? []).map((f) => f.path);

describe(`comment writes on ${backendName}`, () => {
  let t: TestDatabase;
  let view: number;
  let other: number;
  const admin = adminCaller();
  const count = async () =>
    (await t.db.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM comments`))[0].n;

  beforeAll(async () => {
    t = await createTestDatabase();
    view = await insertDataView(t.db, ['Country', 'Product']);
    other = await insertDataView(t.db, ['Region']);
  });
  afterAll(() => t.drop());

  it('creates a comment and returns exactly the record fields', async () => {
    const c = await createComment(t.db, admin, body(view, { categories: { Country: 'DE' } }), 'api');
    expect(Object.keys(c).sort()).toEqual(
      [
        'categories',
        'createdAt',
        'dataViewId',
        'dateFrom',
        'dateTo',
        'email',
        'id',
        'text',
        'updatedAt',
      ].sort(),
    );
    expect(c).toMatchObject({
      text: 'Promotion week',
      email: 'author@example.com',
      dataViewId: view,
      dateFrom: '2024-03-01',
      dateTo: '2024-03-07',
      categories: { Country: 'DE' },
    });
    expect(await getComment(t.db, admin, c.id)).toEqual(c);
  });

  it('refuses a window whose dateFrom is after dateTo, at dateTo, and writes nothing', async () => {
    const before = await count();
    const e = await failure(
      createComment(t.db, admin, body(view, { dateFrom: '2024-03-08', dateTo: '2024-03-07' }), 'api'),
    );
    expect(e.code).toBe('VALIDATION');
    expect(paths(e)).toEqual(['dateTo']);
    expect(await count()).toBe(before);
  });

  it('accepts a one-day window', async () => {
    const c = await createComment(
      t.db,
      admin,
      body(view, { dateFrom: '2024-03-07', dateTo: '2024-03-07' }),
      'api',
    );
    expect(c.dateFrom).toBe(c.dateTo);
  });

  it('refuses a category that the data view does not have, naming it', async () => {
    const e = await failure(
      createComment(t.db, admin, body(view, { categories: { Region: 'North' } }), 'api'),
    );
    expect(e.code).toBe('VALIDATION');
    expect(paths(e)).toEqual(['categories.Region']);
    // Region is a category of another data view, which does not make it one of this view.
    await expect(
      createComment(t.db, admin, body(other, { categories: { Region: 'North' } }), 'api'),
    ).resolves.toBeTruthy();
  });

  it('refuses an unknown category name even when its value is a wildcard', async () => {
    const e = await failure(createComment(t.db, admin, body(view, { categories: { Colour: null } }), 'api'));
    expect(paths(e)).toEqual(['categories.Colour']);
  });

  it('stores category names in the spelling of the data view, whatever case the body uses', async () => {
    const c = await createComment(
      t.db,
      admin,
      body(view, { categories: { country: 'DE', PRODUCT: 'Tea' } }),
      'api',
    );
    expect(c.categories).toEqual({ Country: 'DE', Product: 'Tea' });
  });

  it('refuses one category named twice in different cases', async () => {
    const e = await failure(
      createComment(t.db, admin, body(view, { categories: { Country: 'DE', country: 'FR' } }), 'api'),
    );
    expect(e.code).toBe('VALIDATION');
    expect(paths(e)).toEqual(['categories.country']);
  });

  it('drops wildcard (null) categories, so a comment without constraints is data-view-wide', async () => {
    const c = await createComment(
      t.db,
      admin,
      body(view, { categories: { Country: null, Product: 'Tea' } }),
      'api',
    );
    expect(c.categories).toEqual({ Product: 'Tea' });
    const wide = await createComment(t.db, admin, body(view, { categories: { Country: null } }), 'api');
    expect(wide.categories).toEqual({});
  });

  it('answers 404 for a data view that does not exist', async () => {
    const e = await failure(createComment(t.db, admin, body(999_999), 'api'));
    expect(e.code).toBe('NOT_FOUND');
    expect(e.message).toBe('Data view 999999 was not found.');
  });

  it('requires an e-mail on create through the API', async () => {
    const e = await failure(createComment(t.db, admin, body(view, { email: undefined }), 'api'));
    expect(e.code).toBe('VALIDATION');
    expect(paths(e)).toEqual(['email']);
  });

  it('refuses REST writes by a data user, even on an assigned data view', async () => {
    const user = dataUserCaller('ann@example.com', [view]);
    const c = await createComment(t.db, admin, body(view), 'api');
    expect((await failure(createComment(t.db, user, body(view), 'api'))).code).toBe('FORBIDDEN');
    expect((await failure(updateComment(t.db, user, c.id, body(view), 'api'))).code).toBe('FORBIDDEN');
    expect((await failure(deleteComment(t.db, user, c.id, 'api'))).code).toBe('FORBIDDEN');
    expect(await getComment(t.db, admin, c.id)).toEqual(c);
  });

  describe('update', () => {
    it('refuses a body id that differs from the route id, at id, and changes nothing', async () => {
      const c = await createComment(t.db, admin, body(view), 'api');
      const e = await failure(
        updateComment(t.db, admin, c.id, body(view, { id: c.id + 1, text: 'changed' }), 'api'),
      );
      expect(e.code).toBe('VALIDATION');
      expect(paths(e)).toEqual(['id']);
      expect((await getComment(t.db, admin, c.id)).text).toBe('Promotion week');
    });

    it('accepts a body id equal to the route id, and a body without id', async () => {
      const c = await createComment(t.db, admin, body(view), 'api');
      const same = await updateComment(t.db, admin, c.id, body(view, { id: c.id, text: 'first' }), 'api');
      expect(same.text).toBe('first');
      const none = await updateComment(
        t.db,
        admin,
        c.id,
        body(view, { text: 'second', email: undefined }),
        'api',
      );
      expect(none).toMatchObject({ id: c.id, text: 'second', email: 'author@example.com' });
    });

    it('checks the dates and categories of the new body', async () => {
      const c = await createComment(t.db, admin, body(view), 'api');
      const dates = await failure(
        updateComment(t.db, admin, c.id, body(view, { dateFrom: '2024-04-02', dateTo: '2024-04-01' }), 'api'),
      );
      expect(paths(dates)).toEqual(['dateTo']);
      const cats = await failure(
        updateComment(t.db, admin, c.id, body(view, { categories: { Region: 'x' } }), 'api'),
      );
      expect(paths(cats)).toEqual(['categories.Region']);
    });

    it('answers 404 for an unknown comment', async () => {
      expect((await failure(updateComment(t.db, admin, 999_999, body(view), 'api'))).code).toBe('NOT_FOUND');
    });
  });

  it('deletes a comment, after which it is not found', async () => {
    const c = await createComment(t.db, admin, body(view), 'api');
    await deleteComment(t.db, admin, c.id, 'api');
    expect((await failure(getComment(t.db, admin, c.id))).code).toBe('NOT_FOUND');
    expect((await failure(deleteComment(t.db, admin, c.id, 'api'))).code).toBe('NOT_FOUND');
  });
});
