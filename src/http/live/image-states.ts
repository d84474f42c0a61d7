/**
 * An image's search document before and after each transaction of a batch, for deciding whether
 * it started or stopped matching a query. The document is read once, as it is now, with the log
 * rows sealed since the batch in the same snapshot; undoing those, then walking the batch backwards, each transaction's tag and visibility changes are undone
 * (the log carries the tag ids and names), which gives the document as each transaction left it.
 * Other fields (score, counts) are taken as they are now: live searches react to new images, tag
 * changes, hiding and deletion.
 */
import type { DocPredicate } from '../../../grammar/index.js';
import type { ChangeGroup, ChangeRow } from '../../contexts/changes/types.js';
import type { IndexDocument } from '../../search/engine.js';

type Doc = Parameters<DocPredicate>[0];

/** One image in one transaction: its document before and after (null: it did not exist). */
export interface ImageTransition {
  imageId: number;
  before: Doc | null;
  after: Doc | null;
  /** Deleted: what it was is unknown, so every query that may have shown it hears `gone`. */
  deleted: boolean;
}

/** Image ids a batch touches. */
export function touchedImages(groups: readonly ChangeGroup[]): number[] {
  const ids = new Set<number>();
  for (const g of groups) for (const r of g.rows) if (r.kind === 'image') ids.add(r.recordId);
  return [...ids];
}

function undo(doc: Doc, rows: readonly ChangeRow[]): Doc {
  let tagIds = doc.tag_ids as number[];
  let tags = doc.tags as string[];
  let hidden = doc.hidden_from_users as boolean;
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]!;
    const id = Number(r.detail?.tag_id);
    const name = typeof r.detail?.tag === 'string' ? r.detail.tag : null;
    if (r.change === 'tag_added') {
      tagIds = tagIds.filter((t) => t !== id);
      if (name !== null) tags = tags.filter((t) => t !== name);
    } else if (r.change === 'tag_removed') {
      tagIds = [...tagIds, id];
      if (name !== null) tags = [...tags, name];
    } else if (r.change === 'hidden' || r.change === 'merged') {
      // A merge hides the duplicate (its own `hidden` row is not logged beside `merged`).
      hidden = false;
    } else if (r.change === 'unhidden') {
      hidden = true;
    }
  }
  return { ...doc, tag_ids: tagIds, tag_count: tagIds.length, tags, hidden_from_users: hidden };
}

/** For each group of the batch, the transitions of the images it touched. */
export function imageTransitions(groups: readonly ChangeGroup[], current: ReadonlyMap<number, IndexDocument>, tail: readonly ChangeRow[] = []): ImageTransition[][] {
  const out: ImageTransition[][] = groups.map(() => []);
  const state = new Map<number, Doc | null>();
  for (const id of touchedImages(groups)) {
    // Changes sealed after the batch that the documents already show are undone first.
    const later = tail.filter((r) => r.recordId === id);
    const doc = current.get(id) ?? null;
    state.set(id, doc === null || later.some((r) => r.change === 'created') ? null : undo(doc, later));
  }
  for (let g = groups.length - 1; g >= 0; g--) {
    const byImage = new Map<number, ChangeRow[]>();
    for (const r of groups[g]!.rows) {
      if (r.kind !== 'image') continue;
      const list = byImage.get(r.recordId);
      if (list) list.push(r);
      else byImage.set(r.recordId, [r]);
    }
    for (const [imageId, rows] of byImage) {
      const after = state.get(imageId) ?? null;
      const created = rows.some((r) => r.change === 'created');
      const deleted = rows.some((r) => r.change === 'deleted');
      const before = created || after === null ? null : undo(after, rows);
      out[g]!.push({ imageId, before, after: deleted ? null : after, deleted: deleted && !created });
      state.set(imageId, before);
    }
  }
  return out;
}
