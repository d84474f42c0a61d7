/**
 * The demo's tags: every category (ratings first, so `safe` is tag 1), aliases, implications
 * and their closure, descriptions and spoiler images.
 */
import { cleanTagName, slugify, splitNamespace } from '../../../grammar/index.js';
import { RATING_TAGS, categoryFor } from '../../contexts/tags/categories.js';
import type { TagCategory } from '../../db/schema/index.js';
import { mixSeed } from '../random.js';
import { type Board, DAY, type DemoPlan, type DemoRow, add } from './board.js';
import { ALIASES, BODY_TYPES, CHARACTERS, ERROR_TAGS, FANMADE_CONTENT, FIXED_CATEGORIES, GENERAL, IMPLICATIONS, OFFICIAL_CONTENT, SPECIES, SPOILERS, inventName } from '../vocabulary.js';

/** Short descriptions of the rating tags. */
export const RATING_DESCRIPTIONS: Record<(typeof RATING_TAGS)[number], string> = {
  safe: 'Images with no sexual content, gore or otherwise disturbing content.',
  suggestive: 'Images that are sexually suggestive but not explicit.',
  questionable: 'Images with nudity or sexual themes that stop short of explicit.',
  explicit: 'Images with explicit sexual content.',
  'semi-grimdark': 'Mildly dark or unsettling images, with mild violence or injury.',
  grimdark: 'Dark, disturbing or violent images.',
  grotesque: 'Gross images: gore, bodily fluids and the like.',
};

export type TagNames = ReturnType<typeof planTags>;

/** Tags of every category (ratings first, so `safe` is tag 1), aliases, implications and their closure. */
export function planTags(b: Board) {
  const { seed, n, start, R, plannedUsers } = b;
  const tr = R('tags');
  const artistNames: string[] = [];
  const seenNames = new Set<string>();
  const uniqueName = (name: string): string | null => {
    const clean = cleanTagName(name);
    if (clean === '' || seenNames.has(clean)) return null;
    seenNames.add(clean);
    return clean;
  };
  const fixedNames: string[] = [];
  const pushFixed = (list: readonly string[]) => {
    for (const name of list) {
      const clean = uniqueName(name);
      if (clean) fixedNames.push(clean);
    }
  };
  pushFixed(RATING_TAGS);
  pushFixed(CHARACTERS);
  pushFixed(SPECIES);
  pushFixed(BODY_TYPES);
  pushFixed(ERROR_TAGS);
  pushFixed(OFFICIAL_CONTENT);
  pushFixed(['oc', 'oc only']);
  pushFixed(SPOILERS);
  pushFixed(FANMADE_CONTENT);
  pushFixed(GENERAL);
  for (const u of plannedUsers) if (u.artistTag) pushFixedArtist(u.artistTag);
  function pushFixedArtist(name: string) {
    const clean = uniqueName(name);
    if (clean) {
      fixedNames.push(clean);
      artistNames.push(clean);
    }
  }
  const artistCount = Math.max(12, Math.round(n / 25));
  while (artistNames.length < artistCount) pushFixedArtist(`artist:${inventName(tr, '_')}`);
  const extraOrigin: string[] = [];
  for (const ns of ['colorist', 'colorist', 'colorist', 'editor', 'editor', 'photographer']) {
    const clean = uniqueName(`${ns}:${inventName(tr, '_')}`);
    if (clean) {
      fixedNames.push(clean);
      extraOrigin.push(clean);
    }
  }
  const ocNames: string[] = [];
  const ocCount = Math.max(5, Math.round(n / 50));
  while (ocNames.length < ocCount) {
    const clean = uniqueName(`oc:${inventName(tr, ' ')}`);
    if (clean) {
      fixedNames.push(clean);
      ocNames.push(clean);
    }
  }
  const aliasNames: Array<[string, string]> = [];
  for (const [alias, target] of ALIASES) {
    const clean = uniqueName(alias);
    if (clean) aliasNames.push([clean, cleanTagName(target)]);
  }

  const fixedCategory = new Map<string, TagCategory>();
  for (const [list, category] of FIXED_CATEGORIES) for (const name of list) fixedCategory.set(cleanTagName(name), category);

  const tagRows: DemoRow<'tags'>[] = [];
  const tagId = new Map<string, number>();
  const tagCreated = add(start, -365 * DAY);
  const newTag = (name: string, aliasedTagId: number | null = null): DemoRow<'tags'> => {
    const { namespace, nameInNamespace } = splitNamespace(name);
    const id = tagRows.length + 1;
    const category = aliasedTagId === null ? (fixedCategory.get(name) ?? categoryFor(name, namespace)) : null;
    const row: DemoRow<'tags'> = {
      id,
      name,
      slug: slugify(name),
      namespace,
      nameInNamespace,
      category,
      description: '',
      shortDescription: '',
      imagesCount: 0,
      aliasedTagId,
      createdAt: add(tagCreated, id * 60_000),
      updatedAt: add(tagCreated, id * 60_000),
    };
    tagRows.push(row);
    tagId.set(name, id);
    return row;
  };
  for (const name of fixedNames) newTag(name);
  for (const [alias, target] of aliasNames) newTag(alias, tagId.get(target) ?? null);
  describeTags(tagRows);
  const tagImageFiles: DemoPlan['tagImageFiles'] = [];
  for (const name of ['spoiler:s09e26', 'grimdark']) {
    const row = tagRows.find((t) => t.name === name);
    if (!row) continue;
    row.image = `${row.slug.replace(/[^a-z0-9]+/g, '-')}.png`;
    tagImageFiles.push({ key: row.image, seed: mixSeed(seed, row.id!) });
  }

  const { implicationRows, closure } = planImplications(tagId);

  return { tagRows, tagId, artistNames, extraOrigin, ocNames, implicationRows, closure, tagImageFiles };
}

/** Short descriptions of the ratings, characters, artists and spoilers. */
function describeTags(tagRows: DemoRow<'tags'>[]): void {
  for (const row of tagRows) {
    if (row.name in RATING_DESCRIPTIONS) {
      row.shortDescription = RATING_DESCRIPTIONS[row.name as keyof typeof RATING_DESCRIPTIONS];
      row.description = row.shortDescription;
    } else if (row.category === 'character') {
      row.shortDescription = `The character ${row.name.replace(/\b\w/g, (c) => c.toUpperCase())}.`;
    } else if (row.namespace === 'artist') {
      row.shortDescription = `Art by ${row.nameInNamespace}.`;
    } else if (row.category === 'spoiler') {
      row.shortDescription = 'Contains spoilers; filter it out if you have not caught up.';
    }
  }
}

/** The implications among the board's tags, and the closure of a tag list under them. */
function planImplications(tagId: Map<string, number>) {
  const implicationRows: DemoRow<'tagImplications'>[] = [];
  const impliedBy = new Map<string, string[]>();
  for (const [name, implied] of IMPLICATIONS) {
    const from = tagId.get(cleanTagName(name));
    if (from === undefined) continue;
    for (const target of implied) {
      const to = tagId.get(cleanTagName(target));
      if (to === undefined) continue;
      implicationRows.push({ tagId: from, impliedTagId: to });
      const list = impliedBy.get(cleanTagName(name)) ?? [];
      list.push(cleanTagName(target));
      impliedBy.set(cleanTagName(name), list);
    }
  }
  /** Everything a tag list implies, transitively (the board is as if every tagging had been kept up to date). */
  const closure = (names: string[]): string[] => {
    const out = [...names];
    const seen = new Set(out);
    for (let i = 0; i < out.length; i++) {
      for (const implied of impliedBy.get(out[i]!) ?? []) {
        if (!seen.has(implied)) {
          seen.add(implied);
          out.push(implied);
        }
      }
    }
    return out;
  };
  return { implicationRows, closure };
}
