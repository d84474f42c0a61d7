/**
 * The order in which an image's tags are shown (reference §5.8, `Tag.display_order`): by category
 * in the order below, then every tag with no or another category; by name within each group.
 * The image JSON (`tags`, `tag_ids`), the view URL slugs and the oEmbed title all use it.
 */

export const DISPLAY_CATEGORY_ORDER = [
  'error',
  'rating',
  'origin',
  'character',
  'oc',
  'species',
  'body-type',
  'content-fanmade',
  'content-official',
  'spoiler',
] as const;

const rank: ReadonlyMap<string, number> = new Map(DISPLAY_CATEGORY_ORDER.map((c, i) => [c, i]));

/** Position of a category in the display order; no or an unknown category sorts last. */
export function categoryRank(category: string | null | undefined): number {
  return (category != null ? rank.get(category) : undefined) ?? DISPLAY_CATEGORY_ORDER.length;
}

export interface DisplayOrderTag {
  name: string;
  category: string | null;
}

/** Comparator of the display order. Names compare by code unit, like the reference's binaries. */
export function compareDisplayOrder(a: DisplayOrderTag, b: DisplayOrderTag): number {
  const byCategory = categoryRank(a.category) - categoryRank(b.category);
  if (byCategory !== 0) return byCategory;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** A sorted copy; the input is left alone. */
export function displayOrder<T extends DisplayOrderTag>(tags: readonly T[]): T[] {
  return [...tags].sort(compareDisplayOrder);
}
