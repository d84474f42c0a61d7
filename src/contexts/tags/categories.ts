/**
 * Tag categories derived from names, and the rating rules every image's tag list must satisfy
 * (reference §8.2 and §8.4).
 */
import type { TagCategory } from '../../db/schema/tags.js';

/** Namespaces that give a tag its category automatically when it is created. */
export const NAMESPACE_CATEGORIES: Readonly<Record<string, TagCategory>> = {
  artist: 'origin',
  colorist: 'origin',
  editor: 'origin',
  photographer: 'origin',
  'art pack': 'content-fanmade',
  comic: 'content-fanmade',
  fanfic: 'content-fanmade',
  series: 'content-fanmade',
  video: 'content-fanmade',
  oc: 'oc',
  spoiler: 'spoiler',
};

/** The seeded rating tags, in the order the site lists them. */
export const RATING_TAGS = ['safe', 'suggestive', 'questionable', 'explicit', 'semi-grimdark', 'grimdark', 'grotesque'] as const;
export type RatingTag = (typeof RATING_TAGS)[number];

const ratingSet: ReadonlySet<string> = new Set(RATING_TAGS);

export function isRatingTag(name: string): name is RatingTag {
  return ratingSet.has(name);
}

/** Ratings fall in groups; an image carries at most one rating of each group, and `safe` stands alone. */
export const RATING_GROUPS = {
  safe: ['safe'],
  sexual: ['suggestive', 'questionable', 'explicit'],
  horror: ['semi-grimdark', 'grimdark'],
  gross: ['grotesque'],
} as const satisfies Record<string, readonly RatingTag[]>;

/**
 * The category a new tag gets: `rating` for the rating tags, else the one its namespace implies,
 * else none.
 */
export function categoryFor(name: string, namespace: string | null | undefined): TagCategory | null {
  if (isRatingTag(name)) return 'rating';
  if (namespace == null) return null;
  return NAMESPACE_CATEGORIES[namespace] ?? null;
}

/** The rating problems of a list of tag names, with the reference's messages. */
export function ratingProblems(names: readonly string[]): string[] {
  const problems: string[] = [];
  const ratings = names.filter(isRatingTag);
  if (ratings.length === 0) problems.push('must contain at least one rating tag');
  if (ratings.includes('safe') && ratings.length > 1) problems.push('may not contain any other rating if safe');
  const count = (group: readonly string[]) => ratings.filter((r) => group.includes(r)).length;
  if (count(RATING_GROUPS.sexual) > 1) problems.push('may contain at most one sexual rating');
  if (count(RATING_GROUPS.horror) > 1) problems.push('may contain at most one grim rating');
  return problems;
}

/** Whether a set of rating tags (nothing else) is a valid rating of an image. */
export function isValidRatingCombination(ratings: readonly string[]): boolean {
  if (!ratings.every(isRatingTag) || new Set(ratings).size !== ratings.length) return false;
  return ratingProblems(ratings).length === 0;
}
