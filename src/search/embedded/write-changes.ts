/**
 * How a write changes documents already in an index: what the result cache (result-cache.ts)
 * compares with what its kept answers read (query/reads.ts) to tell which of them the write may
 * concern.
 */
import type { PhysicalIndex } from './index/physical-index.js';
import { fieldChanges } from './query/field-changes.js';
import type { FieldChanges } from './query/reads.js';

/**
 * How the documents `ids` names change from their indexed versions to their new versions `docs`,
 * all together (the comments of an image whose tags changed): null when that is not known (no new
 * versions given, not the same documents, or one of them not indexed yet).
 */
export function changesOf(index: PhysicalIndex, ids: readonly unknown[], docs: readonly Readonly<Record<string, unknown>>[] | undefined): FieldChanges | null {
  if (docs === undefined || docs.length !== ids.length || ids.length === 0) return null;
  const changes: FieldChanges = new Map();
  for (let i = 0; i < ids.length; i++) {
    const [id, now] = [ids[i], docs[i]!];
    const old = typeof id === 'number' ? index.docOf(id) : -1;
    if (old < 0 || now.id !== id) return null;
    const before = index.root.decode(old) as Record<string, unknown>;
    for (const [path, changed] of fieldChanges(before, now, keywordFieldOf(index))) {
      const known = changes.get(path);
      if (known === undefined) changes.set(path, changed);
      else if (known !== null) {
        if (changed === null) changes.set(path, null);
        else for (const term of changed) known.add(term);
      }
    }
  }
  return changes;
}

/** Whether a path names a keyword field of `index`. */
export const keywordFieldOf = (index: PhysicalIndex) => (path: string) => index.root.byPath.get(path)?.kind === 'keyword';

