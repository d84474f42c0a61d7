/**
 * The kept answers of one index by what their query and sort read (query/reads.ts), so that a
 * one-document edit finds the answers it may concern without looking at the others.
 *
 * Why: every tag edit looked at each kept answer of the index (up to 8,192) to tell that most of
 * them read nothing it changed; on a board edited once a second those looks, and the garbage they
 * left, were most of what the writes cost the engine's thread. An answer is listed under each
 * field it reads whole, each keyword term it reads and each pattern of a keyword field it reads
 * (a tag edit concerns a wildcard search only when the tag passes its pattern), by path (a
 * comment's `image.tag_ids` apart from its `image.approved`); answers that
 * read everything, or whose order is not settled by sort keys alone (a rewrite moves the
 * document among ties), are checked at every edit and listed apart.
 */
import type { FieldChanges, Reads } from './query/reads.js';

export class AnswersByReads {
  /** Answers every edit may concern. */
  private readonly always = new Set<string>();
  /** Answers by a top-level field they read whole. */
  private readonly byField = new Map<string, Set<string>>();
  /** Answers by a keyword field they read some terms of, and by term. */
  private readonly byTerm = new Map<string, Map<string, Set<string>>>();
  /** Answers by a keyword field they read the terms of a pattern of, and by pattern. */
  private readonly byPattern = new Map<string, Map<string, { test: (term: string) => boolean; keys: Set<string> }>>();

  /** List `key`, whose answer reads `reads`; `settled`: its order is settled by sort keys alone. */
  add(key: string, reads: Reads, settled: boolean): void {
    if (reads.everything || !settled) {
      this.always.add(key);
      return;
    }
    for (const field of reads.fields) setIn(this.byField, field).add(key);
    for (const [field, terms] of reads.terms) {
      let byTerm = this.byTerm.get(field);
      if (byTerm === undefined) this.byTerm.set(field, (byTerm = new Map()));
      for (const term of terms) setIn(byTerm, term).add(key);
    }
    for (const [field, patterns] of reads.patterns) {
      let byPattern = this.byPattern.get(field);
      if (byPattern === undefined) this.byPattern.set(field, (byPattern = new Map()));
      for (const [pattern, test] of patterns) {
        let listed = byPattern.get(pattern);
        if (listed === undefined) byPattern.set(pattern, (listed = { test, keys: new Set() }));
        listed.keys.add(key);
      }
    }
  }

  /** Take `key` out again, listed with the same `reads` and `settled`. */
  remove(key: string, reads: Reads, settled: boolean): void {
    if (reads.everything || !settled) {
      this.always.delete(key);
      return;
    }
    for (const field of reads.fields) deleteIn(this.byField, field, key);
    for (const [field, terms] of reads.terms) {
      const byTerm = this.byTerm.get(field);
      if (byTerm === undefined) continue;
      for (const term of terms) deleteIn(byTerm, term, key);
      if (byTerm.size === 0) this.byTerm.delete(field);
    }
    for (const [field, patterns] of reads.patterns) {
      const byPattern = this.byPattern.get(field);
      if (byPattern === undefined) continue;
      for (const pattern of patterns.keys()) {
        const listed = byPattern.get(pattern);
        listed?.keys.delete(key);
        if (listed?.keys.size === 0) byPattern.delete(pattern);
      }
      if (byPattern.size === 0) this.byPattern.delete(field);
    }
  }

  /**
   * The answers an edit with `changes` may concern: those that read a field it changed whole, a
   * term it added or took off or a pattern passing such a term (or any term or pattern of a
   * keyword field it changed whole), and those checked at every edit. A field read is concerned
   * by a change of itself, of a field inside it (an object read whole), or, when changed whole,
   * of the object it is in.
   */
  concerned(changes: FieldChanges): Set<string> {
    const out = new Set(this.always);
    const addAll = (keys: Iterable<string>) => {
      for (const key of keys) out.add(key);
    };
    for (const [path, changed] of changes) {
      for (const [field, keys] of this.byField) if (touches(path, changed === null, field)) addAll(keys);
      for (const [field, byTerm] of this.byTerm) {
        if (field === path && changed !== null) {
          for (const term of changed) addAll(byTerm.get(term) ?? []);
        } else if (touches(path, changed === null, field)) {
          for (const keys of byTerm.values()) addAll(keys);
        }
      }
      for (const [field, byPattern] of this.byPattern) {
        if (!touches(path, changed === null, field)) continue;
        for (const { test, keys } of byPattern.values()) {
          if (field === path && changed !== null && ![...changed].some(test)) continue;
          addAll(keys);
        }
      }
    }
    return out;
  }
}

/**
 * Whether an edit with `changes` may concern what `reads` reads (the test `concerned` makes of
 * every answer listed, for one answer's reads): of a query alone, whether the document still
 * matches it as before.
 */
export function readsConcerned(reads: Reads, changes: FieldChanges): boolean {
  if (reads.everything) return true;
  for (const [path, changed] of changes) {
    const whole = changed === null;
    for (const field of reads.fields) if (touches(path, whole, field)) return true;
    for (const [field, terms] of reads.terms) {
      if (field === path && changed !== null) {
        for (const term of changed) if (terms.has(term)) return true;
      } else if (touches(path, whole, field)) return true;
    }
    for (const [field, patterns] of reads.patterns) {
      if (!touches(path, whole, field)) continue;
      if (field !== path || changed === null) return true;
      for (const test of patterns.values()) if ([...changed].some(test)) return true;
    }
  }
  return false;
}

/**
 * Whether a change of the field at path `changed` (`whole`: changed as a whole, with whatever is
 * inside it) concerns what reads the field at path `read`: the same field, the object it is in,
 * or, changed whole, a field inside it.
 */
function touches(changed: string, whole: boolean, read: string): boolean {
  return read === changed || changed.startsWith(`${read}.`) || (whole && read.startsWith(`${changed}.`));
}

function setIn<K>(map: Map<K, Set<string>>, k: K): Set<string> {
  let set = map.get(k);
  if (set === undefined) map.set(k, (set = new Set()));
  return set;
}

function deleteIn<K>(map: Map<K, Set<string>>, k: K, key: string): void {
  const set = map.get(k);
  if (set === undefined) return;
  set.delete(key);
  if (set.size === 0) map.delete(k);
}
