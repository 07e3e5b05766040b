/**
 * The explorer page's model with categories named like Object.prototype members (`constructor`,
 * `toString`, `__proto__`): read from the address, offered as dimensions and named in titles by their own
 * keys only.
 */
import { describe, expect, it } from 'vitest';
import {
  explorerHref,
  openDimensions,
  readState,
  sameCategories,
  seriesTitle,
} from '../../../web/src/components/explorer/model';

const categories = [
  { name: 'constructor', label: 'C', parent: null },
  { name: '__proto__', label: 'P', parent: 'constructor' },
  { name: 'toString', label: 'T', parent: null },
];

describe('explorer model with category names of Object.prototype', () => {
  it('reads __proto__ from the address as a category and writes it back', () => {
    const s = readState(new URLSearchParams('view=1&c.constructor=a&c.__proto__=b'));
    expect(Object.entries(s.categories)).toEqual([
      ['constructor', 'a'],
      ['__proto__', 'b'],
    ]);
    expect(explorerHref(s)).toBe('/explorer?view=1&c.constructor=a&c.__proto__=b');
  });

  it('offers the unset ones as dimensions and compares by own keys', () => {
    expect(openDimensions(categories, {})).toEqual(['constructor', 'toString']);
    const set = Object.fromEntries([['constructor', 'a']]);
    expect(openDimensions(categories, set)).toEqual(['__proto__', 'toString']);
    expect(sameCategories({ toString: 'x' }, { valueOf: 'x' })).toBe(false);
  });

  it('names a series by its own values only', () => {
    expect(seriesTitle({ toString: 'x' }, categories)).toBe('x');
    expect(seriesTitle({}, categories)).toBe('All (total)');
  });
});
