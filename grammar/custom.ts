/**
 * Transforms of the custom fields (reference §2): `my:`, `gallery_id:` and `filter_id:`. They
 * read the caller's `QueryContext` and never do I/O.
 */
import type { Query } from './dsl.js';
import type { CustomTransform, TransformInput } from './fields.js';
import { INT32_MAX } from './values/number-text.js';

export const customMessages = {
  loggedOut: "You must be logged in to use `my' queries.",
  unknownMy: "Unknown `my' value.",
  recursiveWatch: 'Recursive watchlists are not allowed.',
  invalidGallery: (value: string) => `Invalid gallery \`${value}'.`,
  invalidFilter: (value: string) => `Invalid filter \`${value}\`.`,
  filterInFilter: 'Filter queries inside filters are not allowed.',
};

function userIdOf(input: TransformInput): number {
  const id = input.context.userId;
  if (input.tier === 'anonymous' || id === undefined || id === null) return input.fail(customMessages.loggedOut);
  return id;
}

/**
 * `my:<value>`: `terms` maps each value to the index field that holds the searcher's user ID
 * (`faves` → `favourited_by_user_ids`); `special` handles values with their own shape.
 */
export function myTransform(terms: Readonly<Record<string, string>>, special: Readonly<Record<string, CustomTransform>> = {}): CustomTransform {
  return (input) => {
    const userId = userIdOf(input);
    if (Object.hasOwn(terms, input.value)) return { term: { [terms[input.value]!]: userId } };
    if (Object.hasOwn(special, input.value)) return special[input.value]!(input);
    return input.fail(customMessages.unknownMy);
  };
}

/**
 * Images `my:watched`: watched tags or the watch query, minus the exclude query (and, when the
 * user hides spoilers from the watch list, minus the current filter's spoilers). The strings are
 * compiled with `watch: true`, so a `my:watched` inside them is an error (and so compiles to
 * `match_none`).
 */
export const watchedTransform: CustomTransform = (input) => {
  const { context } = input;
  if (context.watch) return input.fail(customMessages.recursiveWatch);
  const list = context.watchList;
  const nested = { ...context, watch: true };
  const should: Query[] = [{ terms: { tag_ids: [...(list?.tagIds ?? [])] } }, input.compileNested(list?.include, nested)];
  const mustNot: Query[] = [];
  if (list?.spoilered) {
    mustNot.push({ terms: { tag_ids: [...list.spoilered.tagIds] } }, input.compileNested(list.spoilered.complex, nested));
  }
  mustNot.push(input.compileNested(list?.exclude, nested));
  return { bool: { should, must_not: mustNot } };
};

/** `gallery_id:N` (N a non-negative integer): images in that gallery. */
export const galleryIdTransform: CustomTransform = (input) => {
  // An integer as the reference's `Integer.parse` reads it (optional sign), at least 0 and (so
  // that the engine accepts it) at most 2^31-1.
  const m = /^([+-]?)(\d+)$/.exec(input.value);
  const id = m ? Number(m[2]) : NaN;
  const negative = m?.[1] === '-' && id !== 0;
  if (!m || negative || id > INT32_MAX) return input.fail(customMessages.invalidGallery(input.value));
  return { nested: { path: 'galleries', query: { term: { 'galleries.id': id } } } };
};

/**
 * `filter_id:N`: the images filter N would show, for a filter the searcher may use:
 * `must_not [terms tag_ids <hidden tags>, <hidden complex string>]`. The complex string is
 * compiled with `filter: true`; an empty or broken one compiles to `match_none`.
 */
export const filterIdTransform: CustomTransform = (input) => {
  const { context, value } = input;
  if (context.filter) return input.fail(customMessages.filterInFilter);
  const id = /^\d+$/.test(value) ? Number(value) : NaN;
  const rule = id <= INT32_MAX ? context.filters?.(id) : undefined;
  if (!rule) return input.fail(customMessages.invalidFilter(value));
  return {
    bool: {
      must_not: [
        { terms: { tag_ids: [...rule.hiddenTagIds] } },
        input.compileNested(rule.hiddenComplex, { ...context, filter: true }),
      ],
    },
  };
};
