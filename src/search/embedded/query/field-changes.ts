/**
 * How one document's fields changed between two versions of its source: for a keyword field
 * whose values are all strings or whole numbers, the terms added or taken off; for any other field
 * that differs, the whole field. An object field (`image` of a comment: its image's tags, tag ids
 * and flags) that is an object in both versions is compared field by field, by dotted path
 * (`image.tag_ids`); what reads it as one is concerned by a change of any field in it
 * (answers-by-reads.ts). Fields whose values are the same JSON are left out. Used to tell which kept answers a write may concern
 * (reads.ts, answers-by-reads.ts, result-cache.ts).
 */
import { exactTerm, type FieldChanges, type IsKeyword } from './reads.js';

export function fieldChanges(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>, isKeyword: IsKeyword): FieldChanges {
  const changes: FieldChanges = new Map();
  addChanges(changes, '', before, after, isKeyword);
  return changes;
}

function addChanges(changes: FieldChanges, prefix: string, before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>, isKeyword: IsKeyword): void {
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [a, b] = [before[key], after[key]];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const path = prefix + key;
    if (isPlainObject(a) && isPlainObject(b)) {
      addChanges(changes, `${path}.`, a, b, isKeyword);
      continue;
    }
    const [old, now] = isKeyword(path) ? [termsOf(a), termsOf(b)] : [undefined, undefined];
    changes.set(path, old === undefined || now === undefined ? null : symmetricDifference(old, now));
  }
}

const isPlainObject = (value: unknown): value is Readonly<Record<string, unknown>> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The terms of a keyword field's value, or undefined when one of them is not compared exactly. */
function termsOf(value: unknown): Set<string> | undefined {
  if (value === undefined || value === null) return new Set();
  const terms = new Set<string>();
  for (const item of Array.isArray(value) ? value : [value]) {
    if (item === null) continue;
    const term = exactTerm(item);
    if (term === undefined) return undefined;
    terms.add(term);
  }
  return terms;
}

function symmetricDifference(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const t of a) if (!b.has(t)) out.add(t);
  for (const t of b) if (!a.has(t)) out.add(t);
  return out;
}
