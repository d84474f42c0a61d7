/**
 * The order of eviction of a cache kept in a `Map`, by second chance (the CLOCK algorithm over the
 * map's insertion order): a hit only sets its entry's `used` flag, and eviction passes over used
 * entries once, clearing the flag and moving them to the young end.
 *
 * Why not move an entry on every hit (delete and set again)? Each move leaves a hole in the map's
 * table, and when holes fill it V8 rebuilds the whole table at once: with hundreds of thousands
 * of entries, a pause of tens to hundreds of milliseconds on whichever request made the last move,
 * every few seconds under load. Moves now happen only at eviction, at most `MAX_PASSES` for each
 * entry dropped, so a cache that fits its working set never rebuilds its table.
 *
 * `bounded-map.ts` keeps the same rule over a queue of its own; this form, over the `Map` itself,
 * is for the image cache, whose entries are no objects (slots in typed arrays).
 */

/** What the order needs of an entry: whether it was used since eviction last passed it. */
export interface SecondChanceEntry {
  used: boolean;
}

/**
 * Used entries passed over (and moved) at most for one eviction: beyond that the oldest is
 * dropped although used, so that no single eviction walks a whole hot cache.
 */
export const MAX_PASSES = 32;

/**
 * The key to drop next: the oldest entry not used since it was last passed, the used ones before
 * it given their second chance (flag cleared, moved to the young end). Undefined when empty.
 */
export function nextToEvict<K, E extends SecondChanceEntry>(entries: Map<K, E>): K | undefined {
  return nextToEvictBy(entries, (entry) => {
    const used = entry.used;
    entry.used = false;
    return used;
  });
}

/**
 * `nextToEvict` for a map whose values keep their flag elsewhere (a cache whose entries live in
 * typed arrays): `takeUse` tells whether the entry was used and clears its flag.
 */
export function nextToEvictBy<K, V>(entries: Map<K, V>, takeUse: (value: V) => boolean): K | undefined {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const oldest = entries.entries().next();
    if (oldest.done) return undefined;
    const [key, value] = oldest.value;
    if (!takeUse(value)) return key;
    entries.delete(key);
    entries.set(key, value);
  }
  return entries.keys().next().value;
}
