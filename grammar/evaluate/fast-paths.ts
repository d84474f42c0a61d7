/**
 * Fast paths for top-level fields: the hot loop compares values directly instead of calling a
 * leaf closure per element; anything unusual falls back to the general predicate.
 */
import type { Field } from './fields.js';
import { anyLeaf, type DocPredicate, type LeafPred } from './values.js';

export function topLevelKey(field: Field): string | null {
  return field.segs.length === 1 ? (field.segs[0] as string) : null;
}

/** `field` has the string `q` (strings compared directly; other value types go to `slow`). */
export function fastStringEquals(key: string, q: string, slow: LeafPred): DocPredicate {
  return (d) => {
    const v = d[key];
    if (v === q) return true;
    if (typeof v === 'string' || v === undefined || v === null) return false;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const e = v[i];
        if (e === q) return true;
        if (typeof e !== 'string' && e !== null && e !== undefined && anyLeaf(e, slow)) return true;
      }
      return false;
    }
    return slow(v);
  };
}

/** `field` has one of a few strings `qs` (or, for numbers in the source, one of `ns`). */
export function fastStringIn(key: string, qs: string[], ns: number[], slow: LeafPred): DocPredicate {
  const n = qs.length;
  const m = ns.length;
  const hasString = (e: string) => {
    for (let j = 0; j < n; j++) if (e === qs[j]) return true;
    return false;
  };
  const hasNumber = (e: number) => {
    for (let j = 0; j < m; j++) if (e === ns[j]) return true;
    return false;
  };
  return (d) => {
    const v = d[key];
    if (typeof v === 'string') return hasString(v);
    if (typeof v === 'number') return hasNumber(v);
    if (v === undefined || v === null) return false;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const e = v[i];
        if (typeof e === 'string') {
          if (hasString(e)) return true;
        } else if (typeof e === 'number') {
          if (hasNumber(e)) return true;
        } else if (e !== null && e !== undefined && anyLeaf(e, slow)) {
          return true;
        }
      }
      return false;
    }
    return slow(v);
  };
}

/** `field` has a number inside [lo, hi] (after `conv`, e.g. float32 rounding). */
export function fastNumberWithin(
  key: string,
  lo: number,
  loInc: boolean,
  hi: number,
  hiInc: boolean,
  conv: ((x: number) => number) | null,
  slow: DocPredicate,
): DocPredicate {
  return (d) => {
    const v = d[key];
    if (typeof v === 'number') {
      const x = conv === null ? v : conv(v);
      return (loInc ? x >= lo : x > lo) && (hiInc ? x <= hi : x < hi);
    }
    return v === undefined || v === null ? false : slow(d);
  };
}
