/**
 * GET /autocomplete/tags?term=… — tag suggestions for what is being typed. The default answer is
 * the list Philomena's site reads, `[{"label": "name (images)", "value": "name"}]`; `format=rich`
 * adds what each suggestion is (tag, alias or field of the query language), its category, an
 * alias's target, how it matched, and the range of `term` it replaces. `term` may be a whole
 * query: the term at `cursor` (default: the end) is completed, without a leading `-`, `!` or `NOT`.
 * Answered from the app's in-memory index (`AppDeps.autocomplete`, src/contexts/tags/autocomplete-index.ts).
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import { suggestFields } from '../../search/autocomplete/field-names.js';
import { termAtCursor } from '../../search/autocomplete/term-at-cursor.js';
import { imageFields } from '../../search/indexes/images/fields.js';
import type { AppEnv } from '../env/context.js';
import { cacheFor } from '../middleware/cache.js';
import type { AutocompleteLabels, AutocompleteRich } from '../../api/schemas/workbench.js';
import { workbenchQuery } from '../../api/schemas/workbench.js';
import { validQuery } from '../request/validate.js';

/** Field completions listed after the tags in the rich form. */
const FIELD_SUGGESTIONS = 5;

/** Suggestions change as tags are used: a few seconds of caching is plenty. */
const AUTOCOMPLETE_MAX_AGE = 10;

const labelOf = (name: string, images: number) => `${name} (${images})`;

export function autocompleteRoute(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/autocomplete/tags', validQuery(workbenchQuery.autocomplete), async (c) => {
    const { term: text, cursor, format, limit } = c.req.valid('query');
    const typed = termAtCursor(text, cursor);
    const term = typed.term.trim().toLowerCase().replace(/\s+/g, ' ');
    const index = await c.get('deps').autocomplete.index();
    const tags = index.suggest(term, limit);
    if (format === 'labels') {
      cacheFor(c, AUTOCOMPLETE_MAX_AGE);
      return c.json(tags.map((s) => ({ label: labelOf(s.tag.name, s.tag.images), value: s.tag.name })) satisfies z.output<typeof AutocompleteLabels>);
    }
    const role = c.get('user')?.role ?? 'anonymous';
    const fields = suggestFields(imageFields, role, term, FIELD_SUGGESTIONS);
    cacheFor(c, AUTOCOMPLETE_MAX_AGE, { dependsOnUser: true });
    return c.json({
      term: typed.term,
      replace: { start: typed.start, end: typed.end },
      suggestions: [
        ...tags.map((s) => ({
          kind: s.alias ? ('alias' as const) : ('tag' as const),
          name: s.name,
          value: s.tag.name,
          label: s.alias ? `${s.name} → ${labelOf(s.tag.name, s.tag.images)}` : labelOf(s.name, s.tag.images),
          images: s.tag.images,
          category: s.tag.category,
          alias_of: s.alias ? s.tag.name : null,
          match: s.match,
          distance: s.distance,
        })),
        ...fields.map((f) => ({ kind: 'field' as const, name: f, value: f, label: f, images: null, category: null, alias_of: null, match: 'prefix' as const, distance: 0 })),
      ],
    } satisfies z.output<typeof AutocompleteRich>);
  });
  return app;
}
