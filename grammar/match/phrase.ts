/**
 * Sloppy phrases: the query terms match when some choice of distinct occurrences, one a term,
 * has offsets (document position − query position) that span at most `slop`.
 */
export function sloppyPhraseMatches(occurrences: readonly (readonly number[])[], queryPositions: readonly number[], slop: number): boolean {
  const m = occurrences.length;
  if (occurrences.some((l) => l.length === 0)) return false;
  const starts = new Set<number>();
  occurrences.forEach((l, k) => l.forEach((p) => starts.add(p - (queryPositions[k] as number))));
  const used = new Set<number>();
  const assign = (k: number, lo: number): boolean => {
    if (k === m) return true;
    for (const p of occurrences[k] as readonly number[]) {
      const off = p - (queryPositions[k] as number);
      if (off < lo || off > lo + slop || used.has(p)) continue;
      used.add(p);
      if (assign(k + 1, lo)) return true;
      used.delete(p);
    }
    return false;
  };
  for (const lo of starts) {
    used.clear();
    if (assign(0, lo)) return true;
  }
  return false;
}
