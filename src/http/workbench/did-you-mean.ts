/**
 * "Did you mean": the tags and fields of a query that do not exist, each with the nearest names
 * that do. A term that names no tag finds nothing, silently; a misspelt field (`scroe:5`) is read
 * as a tag name and finds nothing too. Tag names come from the autocomplete index (its typo and
 * word tiers), field names are those of the caller's role within two edits.
 */
import { editDistanceUpTo, fieldsForRole, parse, TAG_NAMESPACES, type Role, type TermNode } from '../../../grammar/index.js';
import type { LiveTagIndex } from '../../contexts/tags/autocomplete-index.js';
import { imageFields } from '../../search/indexes/images/fields.js';

export interface UnknownName {
  /** What was written. */
  term: string;
  kind: 'tag' | 'field';
  /** The range of the query text the suggestions replace. */
  start: number;
  end: number;
  suggestions: string[];
}

const SUGGESTIONS = 3;
const MAX_FIELD_EDITS = 2;
/** Terms looked at in one query (a long query's later terms go without). */
const MAX_TERMS = 32;

/** The query's unquoted terms in order; none when it does not parse. */
function termsOf(q: string): TermNode[] {
  const terms: TermNode[] = [];
  try {
    parse(q, { onTerm: (term) => void (terms.length < MAX_TERMS && !term.quoted && terms.push(term)) });
  } catch {
    return [];
  }
  return terms;
}

function nearFields(name: string, fields: readonly string[]): string[] {
  return fields
    .map((f) => ({ f, d: editDistanceUpTo(name, f, MAX_FIELD_EDITS) }))
    .filter(({ d }) => d <= MAX_FIELD_EDITS)
    .sort((a, b) => a.d - b.d || a.f.length - b.f.length)
    .slice(0, SUGGESTIONS)
    .map(({ f }) => f);
}

export async function unknownNames(tags: LiveTagIndex, q: string, role: Role): Promise<UnknownName[]> {
  const terms = termsOf(q);
  if (terms.length === 0) return [];
  const index = await tags.index();
  const fields = [...fieldsForRole(imageFields, role).byName.keys()];
  const out: UnknownName[] = [];
  for (const term of terms) {
    const written = term.raw.trim();
    const start = term.span!.start + (term.raw.length - term.raw.trimStart().length);
    const name = written.toLowerCase().replace(/\s+/g, ' ');
    if (name === '' || /[*?\\]/.test(name) || index.has(name)) continue;
    const field = /^([a-z_]+)(?:\.(?:gt|gte|lt|lte))?:/.exec(name)?.[1];
    if (field !== undefined && fields.includes(field)) continue;
    if (field !== undefined && !TAG_NAMESPACES.includes(field)) {
      // `scroe:5`: no such tag, and what comes before the colon is near a field's name.
      const near = nearFields(field, fields);
      if (near.length > 0) {
        out.push({ term: written.slice(0, field.length), kind: 'field', start, end: start + field.length, suggestions: near });
        continue;
      }
    }
    const suggestions = index.suggest(name, SUGGESTIONS).map((s) => s.tag.name);
    out.push({ term: written, kind: 'tag', start, end: start + written.length, suggestions });
  }
  return out;
}
