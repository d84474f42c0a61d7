/**
 * What people type into a tag box, drawn from the board's own names (popular tags more often):
 * starts of names, starts with a typo (a swap, a wrong or a missing letter), whole names with a
 * typo, words in another order, namespaced starts, and starts with a typo in the first letter
 * (one query in ten, drawn apart so that the rest of the mix stays as it was).
 */
import { mulberry32 } from '../../src/lib/random.js';
import type { BenchTag } from './board.js';

export type QueryKind = 'prefix' | 'prefix-typo' | 'name-typo' | 'reordered' | 'namespaced' | 'first-letter';

export interface BenchQuery {
  kind: QueryKind;
  term: string;
}

function typo(text: string, random: () => number): string {
  if (text.length < 4) return text;
  const at = 1 + Math.floor(random() * (text.length - 2));
  const r = random();
  if (r < 0.4) return text.slice(0, at) + text[at + 1] + text[at] + text.slice(at + 2);
  if (r < 0.7) return `${text.slice(0, at)}x${text.slice(at + 1)}`;
  return text.slice(0, at) + text.slice(at + 1);
}

export function benchQueries(tags: readonly BenchTag[], count: number): BenchQuery[] {
  const random = mulberry32(7);
  const popular = () => tags[Math.floor(random() ** 3 * tags.length)]!;
  const out: BenchQuery[] = [];
  while (out.length < count) {
    const tag = popular();
    const name = tag.name;
    const r = random();
    if (r < 0.4) out.push({ kind: 'prefix', term: name.slice(0, 2 + Math.floor(random() * 6)) });
    else if (r < 0.6) out.push({ kind: 'prefix-typo', term: typo(name.slice(0, 6 + Math.floor(random() * 5)), random) });
    else if (r < 0.8) out.push({ kind: 'name-typo', term: typo(name, random) });
    else if (r < 0.9) {
      const words = name.split(' ');
      if (words.length < 2 || name.includes(':')) continue;
      out.push({ kind: 'reordered', term: [...words].reverse().join(' ').slice(0, -1) });
    } else {
      const ns = tags.find((t, i) => i >= Math.floor(random() * tags.length) && t.name.includes(':'));
      if (!ns) continue;
      out.push({ kind: 'namespaced', term: ns.name.slice(0, ns.name.indexOf(':') + 1 + 2) });
    }
  }
  return [...out, ...firstLetterTypos(tags, Math.ceil(count / 10))];
}

/** Starts of names (5 to 9 letters, no namespace) with the first letter wrong, missing or swapped with the second. */
function firstLetterTypos(tags: readonly BenchTag[], count: number): BenchQuery[] {
  const random = mulberry32(11);
  const out: BenchQuery[] = [];
  while (out.length < count) {
    const name = tags[Math.floor(random() ** 3 * tags.length)]!.name;
    if (name.includes(':') || name.length < 5) continue;
    const start = name.slice(0, 5 + Math.floor(random() * 5));
    const r = random();
    const term = r < 0.4 ? `x${start.slice(1)}` : r < 0.7 ? start.slice(1) : start[1]! + start[0]! + start.slice(2);
    out.push({ kind: 'first-letter', term });
  }
  return out;
}
