import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CommentRecord,
  createComment,
  getComment,
  listCommentsByEmail,
  listDataViewComments,
  listDataViewCommentsInWindow,
  queryComments,
} from '../../../lib/comments/service';
import { AppError } from '../../../lib/shared/errors';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { adminCaller, body, dataUserCaller, insertDataView } from './fixtures';

async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof AppError)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e;
}
const ids = (list: CommentRecord[]) => list.map((c) => c.id);

describe(`comment reads on ${backendName}`, () => {
  let t: TestDatabase;
  let viewA: number;
  let viewB: number;
  const admin = adminCaller();
  let ann: ReturnType<typeof dataUserCaller>;
  let nobody: ReturnType<typeof dataUserCaller>;
  /** A: 1-7 March by ann; A: 10-12 March by admin; B: 1-7 March by ann (B is not assigned to ann). */
  let a1: CommentRecord;
  let a2: CommentRecord;
  let b1: CommentRecord;

  beforeAll(async () => {
    t = await createTestDatabase();
    viewA = await insertDataView(t.db);
    viewB = await insertDataView(t.db);
    ann = dataUserCaller('ann@example.com', [viewA]);
    nobody = dataUserCaller('nobody@example.com', []);
    a2 = await createComment(
      t.db,
      admin,
      body(viewA, { email: 'admin@example.com', dateFrom: '2024-03-10', dateTo: '2024-03-12' }),
      'api',
    );
    a1 = await createComment(t.db, admin, body(viewA, { email: 'ann@example.com' }), 'api');
    b1 = await createComment(t.db, admin, body(viewB, { email: 'ann@example.com' }), 'api');
  });
  afterAll(() => t.drop());

  describe('one comment', () => {
    it('is returned to a caller who sees its data view', async () => {
      expect(await getComment(t.db, ann, a1.id)).toEqual(a1);
    });

    it('is not found for a caller who does not see its data view', async () => {
      const e = await failure(getComment(t.db, ann, b1.id));
      expect(e.code).toBe('NOT_FOUND');
      expect(e.message).toBe(`Comment ${b1.id} was not found.`);
      expect(await getComment(t.db, admin, b1.id)).toEqual(b1);
    });
  });

  describe('by data view', () => {
    it('lists the comments of that data view only, ordered by dateFrom', async () => {
      expect(ids(await listDataViewComments(t.db, ann, viewA))).toEqual([a1.id, a2.id]);
    });

    it('answers 404 for a data view the caller cannot see, and for one that does not exist', async () => {
      expect((await failure(listDataViewComments(t.db, ann, viewB))).code).toBe('NOT_FOUND');
      expect((await failure(listDataViewComments(t.db, admin, 999_999))).code).toBe('NOT_FOUND');
    });

    it('in a date range returns the comments whose window overlaps it, edges included', async () => {
      expect(
        ids(
          await listDataViewCommentsInWindow(t.db, ann, viewA, {
            dateFrom: '2024-03-07',
            dateTo: '2024-03-09',
          }),
        ),
      ).toEqual([a1.id]);
      expect(
        ids(
          await listDataViewCommentsInWindow(t.db, ann, viewA, {
            dateFrom: '2024-03-08',
            dateTo: '2024-03-09',
          }),
        ),
      ).toEqual([]);
      expect(
        ids(
          await listDataViewCommentsInWindow(t.db, ann, viewA, {
            dateFrom: '2024-02-01',
            dateTo: '2024-03-10',
          }),
        ),
      ).toEqual([a1.id, a2.id]);
    });

    it('in a date range requires both dates, and dateFrom not after dateTo', async () => {
      const missing = await failure(
        listDataViewCommentsInWindow(t.db, ann, viewA, { dateFrom: '2024-03-01' }),
      );
      expect(missing.code).toBe('VALIDATION');
      expect(missing.errors?.map((f) => f.path)).toEqual(['dateTo']);
      const reversed = await failure(
        listDataViewCommentsInWindow(t.db, ann, viewA, { dateFrom: '2024-03-09', dateTo: '2024-03-08' }),
      );
      expect(reversed.errors?.map((f) => f.path)).toEqual(['dateTo']);
    });

    it('in a date range answers 404 for a data view the caller cannot see', async () => {
      const e = await failure(
        listDataViewCommentsInWindow(t.db, ann, viewB, { dateFrom: '2024-03-01', dateTo: '2024-03-31' }),
      );
      expect(e.code).toBe('NOT_FOUND');
    });
  });

  describe('flexible query', () => {
    it('refuses a query without dataViewId and without dates, with a clear message', async () => {
      const e = await failure(queryComments(t.db, ann, {}));
      expect(e.code).toBe('VALIDATION');
      expect(e.message).toBe('Give dataViewId and/or dateFrom/dateTo to query comments.');
    });

    it('filters by data view, by window overlap, or both', async () => {
      expect(ids(await queryComments(t.db, admin, { dataViewId: viewA }))).toEqual([a1.id, a2.id]);
      expect(ids(await queryComments(t.db, admin, { dateFrom: '2024-03-05', dateTo: '2024-03-06' }))).toEqual(
        [a1.id, b1.id],
      );
      expect(
        ids(
          await queryComments(t.db, admin, {
            dataViewId: viewB,
            dateFrom: '2024-03-05',
            dateTo: '2024-03-06',
          }),
        ),
      ).toEqual([b1.id]);
    });

    it('treats one date alone as an open-ended window', async () => {
      expect(ids(await queryComments(t.db, admin, { dataViewId: viewA, dateFrom: '2024-03-08' }))).toEqual([
        a2.id,
      ]);
      expect(ids(await queryComments(t.db, admin, { dataViewId: viewA, dateTo: '2024-03-09' }))).toEqual([
        a1.id,
      ]);
    });

    it('refuses dateFrom after dateTo', async () => {
      const e = await failure(queryComments(t.db, admin, { dateFrom: '2024-03-09', dateTo: '2024-03-08' }));
      expect(e.errors?.map((f) => f.path)).toEqual(['dateTo']);
    });

    it("returns only comments of the caller's data views", async () => {
      expect(ids(await queryComments(t.db, ann, { dateFrom: '2024-03-01', dateTo: '2024-03-31' }))).toEqual([
        a1.id,
        a2.id,
      ]);
      expect(await queryComments(t.db, ann, { dataViewId: viewB })).toEqual([]);
    });
  });

  describe('by e-mail', () => {
    it('lets a data user list their own comments, ignoring case, within their data views', async () => {
      expect(ids(await listCommentsByEmail(t.db, ann, 'Ann@Example.com'))).toEqual([a1.id]);
    });

    it('refuses a data user asking for another address, even one with no comments', async () => {
      const e = await failure(listCommentsByEmail(t.db, ann, 'admin@example.com'));
      expect(e.code).toBe('FORBIDDEN');
      expect((await failure(listCommentsByEmail(t.db, ann, 'ghost@example.com'))).code).toBe('FORBIDDEN');
    });

    it("lets an admin list anyone's comments", async () => {
      expect(ids(await listCommentsByEmail(t.db, admin, 'ann@example.com'))).toEqual([a1.id, b1.id]);
    });
  });

  describe('a caller with no data views', () => {
    it('gets empty lists, never another data view’s comment, even one written under its own address', async () => {
      await createComment(t.db, admin, body(viewA, { email: 'nobody@example.com' }), 'api');
      expect(await queryComments(t.db, nobody, { dateFrom: '2000-01-01', dateTo: '2100-01-01' })).toEqual([]);
      expect(await queryComments(t.db, nobody, { dataViewId: viewA })).toEqual([]);
      expect(await listCommentsByEmail(t.db, nobody, 'nobody@example.com')).toEqual([]);
    });

    it('gets 404 for a comment or a data view it asks for by id', async () => {
      expect((await failure(getComment(t.db, nobody, a1.id))).code).toBe('NOT_FOUND');
      expect((await failure(listDataViewComments(t.db, nobody, viewA))).code).toBe('NOT_FOUND');
    });
  });
});
