/** Document predicates combined: all of them, any of them, with fixed-arity fast paths. */
import { MATCH_ALL, MATCH_NONE, type DocPredicate } from './values.js';

export function allOf(preds: DocPredicate[]): DocPredicate {
  switch (preds.length) {
    case 0:
      return MATCH_ALL;
    case 1:
      return preds[0] as DocPredicate;
    case 2: {
      const [a, b] = preds as [DocPredicate, DocPredicate];
      return (d) => a(d) && b(d);
    }
    case 3: {
      const [a, b, c] = preds as [DocPredicate, DocPredicate, DocPredicate];
      return (d) => a(d) && b(d) && c(d);
    }
    default:
      return (d) => {
        for (let i = 0; i < preds.length; i++) if (!(preds[i] as DocPredicate)(d)) return false;
        return true;
      };
  }
}

export function anyOf(preds: DocPredicate[]): DocPredicate {
  switch (preds.length) {
    case 0:
      return MATCH_NONE;
    case 1:
      return preds[0] as DocPredicate;
    case 2: {
      const [a, b] = preds as [DocPredicate, DocPredicate];
      return (d) => a(d) || b(d);
    }
    default:
      return (d) => {
        for (let i = 0; i < preds.length; i++) if ((preds[i] as DocPredicate)(d)) return true;
        return false;
      };
  }
}
