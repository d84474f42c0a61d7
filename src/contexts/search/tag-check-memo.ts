/**
 * Where an image's holder keeps the last answer of the filter's tag check between requests
 * (`spoiler.ts`; the image cache keeps it by slot), so that a page listed again through the same
 * filter skips some thirty set lookups an image. `token` names one filter's tag set: a number no
 * other set had.
 */
export interface TagCheckMemo {
  /** The answer remembered for `token`, or undefined when there is none. */
  recallTagCheck(token: number): boolean | undefined;
  rememberTagCheck(token: number, meets: boolean): void;
}
