/**
 * Resource limits of one compile. The reference has none (reference §1.9: huge queries fail in
 * the engine with a 500); here they are clear 400 errors, checked before any deep work.
 */
export interface QueryLimits {
  /** Longest query text, in UTF-16 code units. */
  maxLength: number;
  /** Most terms in one query text. */
  maxTerms: number;
  /** Deepest parenthesis nesting (groups, and balanced parentheses inside a term); at most `MAX_DEPTH_CAP`. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: Readonly<QueryLimits> = Object.freeze({
  maxLength: 16_384,
  maxTerms: 1_024,
  maxDepth: 64,
});

/**
 * The parser recurses once per parenthesis level and the JavaScript stack holds a few hundred
 * levels, so nesting is capped whatever the options say.
 */
export const MAX_DEPTH_CAP = 200;

export function resolveLimits(limits?: Partial<QueryLimits>): QueryLimits {
  if (!limits) return DEFAULT_LIMITS;
  return {
    maxLength: limits.maxLength ?? DEFAULT_LIMITS.maxLength,
    maxTerms: limits.maxTerms ?? DEFAULT_LIMITS.maxTerms,
    maxDepth: Math.max(1, Math.min(limits.maxDepth ?? DEFAULT_LIMITS.maxDepth, MAX_DEPTH_CAP)),
  };
}

export const limitMessages = {
  length: (max: number) => `Search query is too long (the limit is ${max} characters).`,
  terms: (max: number) => `Search query has too many terms (the limit is ${max}).`,
  depth: (max: number) => `Search query is nested too deeply (the limit is ${max} levels).`,
};
