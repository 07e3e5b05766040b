/** Category constraints of a comment against the categories of its data view (pure). */
import type { FieldError } from '../shared/errors';

export type CommentCategories = Record<string, string | null>;

export interface CanonicalCategories {
  /** Names spelled as the data view spells them; names it does not know are kept as given, for rules.ts to report. */
  categories: CommentCategories;
  errors: FieldError[];
}

/** Category names of a stored data view definition (`definition.categories[].name`); [] when it has none. */
export function definitionCategoryNames(definition: unknown): string[] {
  const list = (definition as { categories?: unknown } | null)?.categories;
  if (!Array.isArray(list)) return [];
  return list
    .map((c) => (c as { name?: unknown } | null)?.name)
    .filter((n): n is string => typeof n === 'string' && n !== '');
}

/**
 * Matches names case-insensitively, because users type `country` for the column `Country`;
 * two spellings of one category in the same comment are refused rather than silently merged.
 */
export function canonicalCategories(
  input: CommentCategories | undefined,
  viewCategories: readonly string[],
): CanonicalCategories {
  const byLower = new Map(viewCategories.map((n) => [n.toLowerCase(), n]));
  const categories: CommentCategories = {};
  const errors: FieldError[] = [];
  for (const [given, value] of Object.entries(input ?? {})) {
    const name = byLower.get(given.toLowerCase()) ?? given;
    if (Object.hasOwn(categories, name)) {
      errors.push({ path: `categories.${given}`, message: `names the category ${name} a second time` });
      continue;
    }
    categories[name] = value;
  }
  return { categories, errors };
}

/** Only concrete values constrain a match, so a null (wildcard) is not stored; `{}` is a data-view-wide comment. */
export function constraintsOnly(categories: CommentCategories): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(categories))
    if (value !== null && value !== undefined) out[name] = value;
  return out;
}
