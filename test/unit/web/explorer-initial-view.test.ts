/** The explorer opens a view at once: the last one used on this browser, else the only one. */
import { describe, expect, it } from 'vitest';
import { initialView } from '../../../web/src/components/explorer/model';

describe('initialView', () => {
  const views = [{ id: 3 }, { id: 7 }];

  it('opens the last used view while the caller may still read it', () => {
    expect(initialView(views, 7)).toBe(7);
    // A view no longer listed (deleted, or not assigned any more) is not opened.
    expect(initialView(views, 9)).toBeNull();
  });

  it('opens the only view, and asks when there are several or none', () => {
    expect(initialView([{ id: 5 }], null)).toBe(5);
    expect(initialView([{ id: 5 }], 9)).toBe(5);
    expect(initialView(views, null)).toBeNull();
    expect(initialView([], null)).toBeNull();
  });
});
