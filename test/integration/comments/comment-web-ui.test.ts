import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComment, deleteComment, getComment, updateComment } from '../../../lib/comments/service';
import { AppError } from '../../../lib/shared/errors';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { adminCaller, body, dataUserCaller, insertDataView } from './fixtures';

async function code(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof AppError)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e.code;
}

describe(`comment writes from the web UI on ${backendName}`, () => {
  let t: TestDatabase;
  let assigned: number;
  let unassigned: number;
  const admin = adminCaller();
  let ann: ReturnType<typeof dataUserCaller>;
  let bob: ReturnType<typeof dataUserCaller>;

  beforeAll(async () => {
    t = await createTestDatabase();
    assigned = await insertDataView(t.db);
    unassigned = await insertDataView(t.db);
    ann = dataUserCaller('ann@example.com', [assigned]);
    bob = dataUserCaller('bob@example.com', [assigned]);
  });
  afterAll(() => t.drop());

  it('lets a signed-in data user comment on an assigned data view, as the author, whatever the body says', async () => {
    const c = await createComment(t.db, ann, body(assigned, { email: 'someone-else@example.com' }), 'web-ui');
    expect(c.email).toBe('ann@example.com');
    expect(c.dataViewId).toBe(assigned);
  });

  it('does not need an e-mail in the body', async () => {
    const c = await createComment(t.db, ann, body(assigned, { email: undefined }), 'web-ui');
    expect(c.email).toBe('ann@example.com');
  });

  it('applies the same rules as the API: dates and categories', async () => {
    expect(
      await code(
        createComment(t.db, ann, body(assigned, { dateFrom: '2024-05-02', dateTo: '2024-05-01' }), 'web-ui'),
      ),
    ).toBe('VALIDATION');
    expect(
      await code(createComment(t.db, ann, body(assigned, { categories: { Nope: 'x' } }), 'web-ui')),
    ).toBe('VALIDATION');
  });

  it('refuses an id in a create body', async () => {
    expect(await code(createComment(t.db, ann, body(assigned, { id: 5 }), 'web-ui'))).toBe('VALIDATION');
  });

  it('answers 404 to a data user writing on a data view not assigned to them', async () => {
    expect(await code(createComment(t.db, ann, body(unassigned), 'web-ui'))).toBe('NOT_FOUND');
    const mine = await createComment(t.db, ann, body(assigned), 'web-ui');
    expect(await code(updateComment(t.db, ann, mine.id, body(unassigned), 'web-ui'))).toBe('NOT_FOUND');
    expect((await getComment(t.db, ann, mine.id)).dataViewId).toBe(assigned);
  });

  it("lets a data user edit and delete their own comments but not another user's", async () => {
    const mine = await createComment(t.db, ann, body(assigned), 'web-ui');
    const edited = await updateComment(
      t.db,
      ann,
      mine.id,
      body(assigned, { text: 'edited', email: 'x@example.com' }),
      'web-ui',
    );
    expect(edited).toMatchObject({ text: 'edited', email: 'ann@example.com' });
    expect(
      await code(updateComment(t.db, bob, mine.id, body(assigned, { text: 'hijacked' }), 'web-ui')),
    ).toBe('FORBIDDEN');
    expect(await code(deleteComment(t.db, bob, mine.id, 'web-ui'))).toBe('FORBIDDEN');
    expect((await getComment(t.db, admin, mine.id)).text).toBe('edited');
    await deleteComment(t.db, ann, mine.id, 'web-ui');
    expect(await code(getComment(t.db, admin, mine.id))).toBe('NOT_FOUND');
  });

  it("answers 404, not 403, for another user's comment on a data view the caller cannot see", async () => {
    const hidden = await createComment(t.db, admin, body(unassigned), 'api');
    expect(await code(updateComment(t.db, ann, hidden.id, body(assigned), 'web-ui'))).toBe('NOT_FOUND');
    expect(await code(deleteComment(t.db, ann, hidden.id, 'web-ui'))).toBe('NOT_FOUND');
  });

  it("lets an admin edit anyone's comment from the web UI and keeps its author", async () => {
    const annS = await createComment(t.db, ann, body(assigned), 'web-ui');
    const edited = await updateComment(t.db, admin, annS.id, body(assigned, { text: 'moderated' }), 'web-ui');
    expect(edited).toMatchObject({ text: 'moderated', email: 'ann@example.com' });
    await deleteComment(t.db, admin, annS.id, 'web-ui');
  });

  it('refuses web UI writes made with a data user API key (REST writes need admin)', async () => {
    const viaKey = dataUserCaller('ann@example.com', [assigned], 'api-key');
    expect(await code(createComment(t.db, viaKey, body(assigned), 'web-ui'))).toBe('FORBIDDEN');
  });
});
