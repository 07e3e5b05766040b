/** Which deploy-locked parts of a definition an update would change (answered with a 409 while deployed). */

interface LockedParts {
  metadata: { name: string; domain: string };
  categories: ReadonlyArray<{ name: string; parent?: string | null }>;
}

/**
 * The locked paths that differ between `before` and `after`: metadata.name, metadata.domain and
 * categories. Categories compare by name, parent and order (the deployed tables and series depend
 * on them); a label is display text only and may change while deployed.
 */
export function lockedFieldsChanged(before: LockedParts, after: LockedParts): string[] {
  const changed: string[] = [];
  if (before.metadata.name !== after.metadata.name) changed.push('metadata.name');
  if (before.metadata.domain !== after.metadata.domain) changed.push('metadata.domain');
  const shape = (d: LockedParts) => JSON.stringify(d.categories.map((c) => [c.name, c.parent ?? null]));
  if (shape(before) !== shape(after)) changed.push('categories');
  return changed;
}
