/**
 * The filter test bench: what a filter would hide and spoiler in a sample of images, how many
 * images each of its tags and each clause of its expressions catches, and a few of them. Every
 * image's index document is checked with the same clause predicates as `filter-explain.ts`.
 *
 * Bounded: the sample is at most `MAX_SAMPLE` images (the caller chose them), documents are
 * loaded in chunks, and evaluation stops when the time budget is spent; the answer then says how
 * many images it looked at.
 */
import type { ClausePredicates, Doc } from '../../../grammar/index.js';
import { tagNames } from '../../contexts/tags/by-name.js';
import type { Database } from '../../db/client.js';
import { loadImageDocuments } from '../../search/indexes/images/document.js';
import { FILTER_LISTS, inWrittenText, type CompiledFilter, type FilterList } from '../../contexts/search/filter-clauses.js';

const EXAMPLES = 5;
const CHUNK = 250;

/** Images counted, and the first few of them. */
class Tally {
  images = 0;
  examples: number[] = [];
  add(id: number) {
    this.images++;
    if (this.examples.length < EXAMPLES) this.examples.push(id);
  }
}

interface ClauseTally {
  tree: ClausePredicates;
  tally: Tally;
  children: ClauseTally[];
}

const tallyTree = (tree: ClausePredicates): ClauseTally => ({ tree, tally: new Tally(), children: tree.children.map(tallyTree) });

/** Count `doc` on every clause it matches; returns whether the root matched. */
function countClauses(node: ClauseTally, doc: Doc, id: number): boolean {
  const matched = node.tree.test(doc);
  if (matched) node.tally.add(id);
  for (const child of node.children) countClauses(child, doc, id);
  return matched;
}

export interface BenchClauseResult {
  kind: ClausePredicates['clause']['kind'];
  text: string;
  start: number;
  end: number;
  images: number;
  examples: number[];
  children: BenchClauseResult[];
}

const clauseResult = (node: ClauseTally): BenchClauseResult => {
  const { kind, text, start, end } = node.tree.clause;
  return { kind, text, start, end, images: node.tally.images, examples: node.tally.examples, children: node.children.map(clauseResult) };
};

export interface BenchResult {
  evaluated: number;
  complete: boolean;
  hidden: number;
  spoilered: number;
  hidden_by: BenchListResult;
  spoilered_by: BenchListResult;
}

export interface BenchListResult {
  images: number;
  tags: { id: number; name: string | null; images: number; examples: number[] }[];
  complex: BenchClauseResult | null;
}

/** Run `filter` over the images `ids` (newest first) within `budgetMs`. */
export async function runFilterBench(db: Database, filter: CompiledFilter, ids: readonly number[], budgetMs: number): Promise<BenchResult> {
  const deadline = performance.now() + budgetMs;
  const lists = Object.fromEntries(
    FILTER_LISTS.map((list) => {
      const complex = filter.complex[list];
      return [list, { caught: new Tally(), tags: new Map(filter.spec.tagIds[list].map((id) => [id, new Tally()])), clauses: complex && tallyTree(complex.tree) }];
    }),
  ) as Record<FilterList, { caught: Tally; tags: Map<number, Tally>; clauses: ClauseTally | null }>;
  let hidden = 0;
  let spoilered = 0;
  let evaluated = 0;
  let complete = true;
  scan: for (let at = 0; at < ids.length; at += CHUNK) {
    const chunk = ids.slice(at, at + CHUNK);
    const docs = new Map((await loadImageDocuments(db, chunk)).map((d) => [d.id, d]));
    for (const id of chunk) {
      if (performance.now() > deadline) {
        complete = false;
        break scan;
      }
      evaluated++;
      const doc = docs.get(id);
      // gone, or merged or deleted since the engine last heard of it: not counted nor named
      if (doc === undefined || doc.hidden_from_users === true) continue;
      const tagIds = Array.isArray(doc.tag_ids) ? (doc.tag_ids as number[]) : [];
      const caught = {} as Record<FilterList, boolean>;
      for (const list of FILTER_LISTS) {
        const l = lists[list];
        let hit = false;
        for (const tagId of tagIds) {
          const tally = l.tags.get(tagId);
          if (tally) {
            tally.add(id);
            hit = true;
          }
        }
        if (l.clauses !== null && countClauses(l.clauses, doc, id)) hit = true;
        if (hit) l.caught.add(id);
        caught[list] = hit;
      }
      if (caught.hidden) hidden++;
      else if (caught.spoilered) spoilered++;
    }
  }
  const names = await tagNames(db, FILTER_LISTS.flatMap((list) => filter.spec.tagIds[list]));
  const listResult = (list: FilterList): BenchListResult => {
    const l = lists[list];
    const complex = filter.complex[list];
    return {
      images: l.caught.images,
      tags: [...l.tags]
        .map(([id, t]) => ({ id, name: names.get(id) ?? null, images: t.images, examples: t.examples }))
        .sort((a, b) => b.images - a.images || a.id - b.id),
      complex: l.clauses === null || complex === null ? null : inWrittenText(clauseResult(l.clauses), complex),
    };
  };
  return { evaluated, complete, hidden, spoilered, hidden_by: listResult('hidden'), spoilered_by: listResult('spoilered') };
}
