import { describe, expect, it } from 'vitest';
import schema from '../../../schemas/comment.schema.json' with { type: 'json' };
import { toFieldErrors } from '../../../lib/shared/validation';
import { schemaValidator } from '../filters/fixtures';

const ajv = schemaValidator(schema);
const check = (id: 'comment-create' | 'comment-update', body: unknown) => {
  const fn = ajv.getSchema(id)!;
  return fn(body) ? [] : toFieldErrors(fn.errors);
};
const paths = (id: 'comment-create' | 'comment-update', body: unknown) => [
  ...new Set(check(id, body).map((e) => e.path)),
];

const valid = {
  text: 'Promotion week',
  email: 'ann@example.com',
  dataViewId: 3,
  dateFrom: '2024-03-01',
  dateTo: '2024-03-07',
  categories: { Country: 'DE', Product: null },
};

describe('comment-create schema', () => {
  it('accepts a full comment', () => {
    expect(check('comment-create', valid)).toEqual([]);
  });

  it('requires text, email, dataViewId, dateFrom and dateTo', () => {
    expect(paths('comment-create', {}).sort()).toEqual(['dataViewId', 'dateFrom', 'dateTo', 'email', 'text']);
  });

  it('accepts 2000 characters of text and refuses 2001', () => {
    expect(check('comment-create', { ...valid, text: 'x'.repeat(2000) })).toEqual([]);
    expect(paths('comment-create', { ...valid, text: 'x'.repeat(2001) })).toEqual(['text']);
  });

  it('refuses empty or blank text', () => {
    expect(paths('comment-create', { ...valid, text: '' })).toContain('text');
    expect(paths('comment-create', { ...valid, text: '   \n' })).toEqual(['text']);
  });

  it('refuses a malformed e-mail, a zero data view id and impossible dates', () => {
    expect(paths('comment-create', { ...valid, email: 'ann' })).toEqual(['email']);
    expect(paths('comment-create', { ...valid, dataViewId: 0 })).toEqual(['dataViewId']);
    expect(paths('comment-create', { ...valid, dateFrom: '2024-02-30' })).toEqual(['dateFrom']);
    expect(paths('comment-create', { ...valid, dateTo: '01.03.2024' })).toEqual(['dateTo']);
  });

  it('refuses category names that are not identifiers and values that are not strings or null', () => {
    expect(paths('comment-create', { ...valid, categories: { 'Coun try': 'DE' } })).toContain('categories');
    expect(paths('comment-create', { ...valid, categories: { Country: 3 } })).toContain('categories.Country');
  });

  it('refuses unknown fields and an id on create', () => {
    expect(check('comment-create', { ...valid, colour: 'red' })).toEqual([
      { path: 'colour', message: 'is not a known field' },
    ]);
    expect(paths('comment-create', { ...valid, id: 4 })).toEqual(['id']);
  });
});

describe('comment-update schema', () => {
  it('accepts the body with an id and without an e-mail', () => {
    const { email: _email, ...noEmail } = valid;
    expect(check('comment-update', { ...noEmail, id: 4 })).toEqual([]);
  });

  it('still requires the text, data view and window', () => {
    expect(paths('comment-update', { id: 4 }).sort()).toEqual(['dataViewId', 'dateFrom', 'dateTo', 'text']);
  });

  it('refuses an id that is not a positive integer', () => {
    expect(paths('comment-update', { ...valid, id: 'x' })).toEqual(['id']);
  });
});
