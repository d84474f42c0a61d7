/**
 * Parameters and answers of the search workbench: clause explanations of a query or a filter on
 * one image, the filter test bench, and tag autocomplete.
 */
import { z } from 'zod';
import { count, id } from './common.js';
import { first, optional, queryParams, RecordId, searchQuery, single } from './params.js';

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

/** Most ids or names in one inline tag list. */
export const MAX_INLINE_TAGS = 2000;
/** The test bench's sample: default and largest size. */
export const DEFAULT_SAMPLE = 1000;
export const MAX_SAMPLE = 5000;
export const MAX_SUGGESTIONS = 25;

export const ImageIdParam = RecordId.meta({ id: 'ImageId', description: 'The image to explain (a decimal id, 1..2147483647).' });
export const ExplainImageIdParam = RecordId.meta({
  id: 'ExplainImageId',
  description: 'Images only: an image whose match with each clause of `q` is reported (a decimal id).',
});

const tagIdList = (name: string, description: string) =>
  z
    .preprocess((value) => {
      const text = first(value);
      if (text === undefined || text.trim() === '') return [];
      const parts = text.split(',').map((p) => p.trim());
      return parts.every((p) => /^\d{1,10}$/.test(p)) ? parts.map(Number) : text;
    }, z.array(id(), { error: 'tag id lists are comma-separated ids' }).max(MAX_INLINE_TAGS))
    .meta({ id: name, description });

const text = (name: string, description: string) =>
  single(z.string({ error: `${name} must be a single string` }).max(16_384)).meta({ id: name, description });

/** A filter given in the query instead of by id; every part is optional. */
export const inlineFilterParams = {
  hidden_tag_ids: tagIdList('HiddenTagIds', 'Inline filter: hidden tag ids, comma-separated.'),
  spoilered_tag_ids: tagIdList('SpoileredTagIds', 'Inline filter: spoilered tag ids, comma-separated.'),
  hidden_tags: text('HiddenTags', 'Inline filter: hidden tag names, comma-separated (aliases count as their targets).'),
  spoilered_tags: text('SpoileredTags', 'Inline filter: spoilered tag names, comma-separated.'),
  hidden_complex: text('HiddenComplex', 'Inline filter: the hidden complex expression (one alternative a line).'),
  spoilered_complex: text('SpoileredComplex', 'Inline filter: the spoilered complex expression (one alternative a line).'),
};


export const SampleParam = z
  .preprocess((value) => {
    const text = first(value);
    return text === undefined || text === '' ? undefined : /^\d{1,7}$/.test(text) ? Number(text) : text;
  }, z.int({ error: `sample is a number of images, 1 to ${MAX_SAMPLE}` }).min(1).max(MAX_SAMPLE).default(DEFAULT_SAMPLE))
  .meta({ id: 'Sample', description: `How many images the bench looks at: the newest ones, or the first ones \`q\` finds; 1 to ${MAX_SAMPLE}, default ${DEFAULT_SAMPLE}.` });

export const TermParam = single(z.string({ error: 'term is required' }).max(1000)).meta({
  id: 'Term',
  description: 'What was typed: a tag name or its start, or a whole query (the term at `cursor` is completed).',
});

export const CursorParam = z
  .preprocess((value) => {
    const text = first(value);
    return text === undefined || text === '' ? undefined : /^\d{1,4}$/.test(text) ? Number(text) : text;
  }, z.int({ error: 'cursor is an offset into term' }).min(0).max(1000).optional())
  .meta({ id: 'Cursor', description: 'Offset of the caret in `term` (UTF-16); default its end.' });

export const FormatParam = z
  .preprocess((value) => first(value) ?? 'labels', z.enum(['labels', 'rich'], { error: 'format is `labels` or `rich`' }))
  .meta({ id: 'AutocompleteFormat', description: '`labels` (default): Philomena\'s `[{label, value}]`; `rich`: suggestions with kind, category, alias target and the range of `term` they replace.' });

export const SuggestionLimitParam = z
  .preprocess((value) => {
    const text = first(value);
    return text === undefined || text === '' ? undefined : /^\d{1,3}$/.test(text) ? Number(text) : text;
  }, z.int({ error: `limit is 1 to ${MAX_SUGGESTIONS}` }).min(1).max(MAX_SUGGESTIONS).default(10))
  .meta({ id: 'SuggestionLimit', description: `Most suggestions, 1 to ${MAX_SUGGESTIONS}, default 10.` });

export const workbenchQuery = {
  searchExplain: searchQuery({ index: queryParams.index, ...optional({ filter_id: queryParams.filter_id, q: queryParams.q, image_id: ExplainImageIdParam }) }),
  filterExplain: z.looseObject({ image_id: ImageIdParam, ...optional(inlineFilterParams) }),
  filterExplainById: z.looseObject({ image_id: ImageIdParam }),
  filterTest: searchQuery({ ...optional({ filter_id: queryParams.filter_id, q: queryParams.q }), sample: SampleParam, ...optional(inlineFilterParams) }),
  filterImages: searchQuery({
    ...optional({ filter_id: queryParams.filter_id, q: queryParams.q, page: queryParams.page, per_page: queryParams.per_page, sf: queryParams.sf, sd: queryParams.sd }),
    ...optional(inlineFilterParams),
  }),
  autocomplete: z.looseObject({ term: TermParam, cursor: CursorParam, format: FormatParam, limit: SuggestionLimitParam }),
} as const;

// ---------------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------------

const offset = () => z.int().min(0);

export const ClauseMatch: z.ZodType<ClauseMatchShape> = z
  .strictObject({
    kind: z.enum(['and', 'or', 'not', 'boost', 'term']).meta({ description: 'What the clause is: a chain, a negation, a boost or a single term.' }),
    text: z.string().meta({ description: 'The clause as written.' }),
    start: offset().meta({ description: 'Offset of the clause in the text it was written in.' }),
    end: offset().meta({ description: 'Offset just after the clause.' }),
    matched: z.boolean().meta({ description: 'Whether the image matches this clause.' }),
    get children() {
      return z.array(ClauseMatch).meta({ description: 'The operands of a chain, or the one clause a negation or boost wraps.' });
    },
  })
  .meta({ id: 'ClauseMatch', description: 'One clause of a query and whether an image matches it.' });

interface ClauseMatchShape {
  kind: 'and' | 'or' | 'not' | 'boost' | 'term';
  text: string;
  start: number;
  end: number;
  matched: boolean;
  children: ClauseMatchShape[];
}

/** `POST /filters` and `POST /filters/:filter_id`: a user's own filter, in the filter answer's field names. */
export const FilterWriteBody = z
  .strictObject({
    filter: z.strictObject({
      name: z.string().max(1_000).optional().meta({ description: 'Name (1 to 100 characters once trimmed); required to create.' }),
      description: z.string().max(20_000).optional().meta({ description: 'Description (at most 10,000 bytes).' }),
      public: z.boolean().optional().meta({ description: 'Whether anyone may use the filter; default false (private: only its owner sees it).' }),
      hidden_tag_ids: z.array(id()).max(MAX_INLINE_TAGS).optional().meta({ description: 'Tag ids to hide (an alias stands for its target).' }),
      spoilered_tag_ids: z.array(id()).max(MAX_INLINE_TAGS).optional().meta({ description: 'Tag ids to spoiler.' }),
      hidden_complex: z.string().max(16_384).optional().meta({ description: 'Hiding expression (one alternative a line); must compile for the key user.' }),
      spoilered_complex: z.string().max(16_384).optional().meta({ description: 'Spoilering expression (one alternative a line).' }),
    }),
  })
  .meta({ id: 'FilterWriteBody', description: 'A filter to create, or the fields of one to change (those left out stay as they are).' });

export const UnknownName = z
  .strictObject({
    term: z.string().meta({ description: 'The unknown name as written.' }),
    kind: z.enum(['tag', 'field']).meta({ description: '`tag`: no tag or alias has this name; `field`: no field has it, but fields with near names exist.' }),
    start: offset().meta({ description: 'Offset in `q` of the text a suggestion replaces.' }),
    end: offset().meta({ description: 'Offset just after it.' }),
    suggestions: z.array(z.string()).max(3).meta({ description: 'Up to three existing names, nearest first (tags ranked as autocomplete ranks them).' }),
  })
  .meta({ id: 'UnknownName', description: 'A name in a query that matches nothing, with what may have been meant.' });

export const ExplainImage = z
  .strictObject({
    id: id(),
    matched: z.boolean().meta({ description: 'Whether the image matches the whole query (before any filter).' }),
    clauses: ClauseMatch.nullable().meta({ description: 'The query\'s clauses; null for an empty query.' }),
  })
  .meta({ id: 'ExplainImage', description: 'How a query meets one image.' });

const FilterSource = z.strictObject({
  id: id().nullable().meta({ description: 'The filter\'s id; null for a filter given inline.' }),
});

const FilterPart = z.strictObject({
  tag_ids: z.array(id()).meta({ description: 'The filter\'s tags (of this list) that the image has.' }),
  complex: ClauseMatch.nullable().meta({ description: 'The complex expression (offsets into the written text, one alternative a line); null when empty.' }),
  matched: z.boolean().meta({ description: 'Whether the tags or the expression catch the image.' }),
});

export const FilterExplainResponse = z
  .strictObject({
    filter: FilterSource,
    image_id: id(),
    hidden: z.boolean().meta({ description: 'Whether the filter hides the image from searches.' }),
    spoilered: z.boolean().meta({ description: 'The image\'s `spoilered` flag under this filter: hidden or spoilered by it.' }),
    hidden_by: FilterPart.meta({ description: 'What hides it.' }),
    spoilered_by: FilterPart.meta({ description: 'What spoilers it.' }),
  })
  .meta({ id: 'FilterExplainResponse', description: 'Why a filter hides or spoilers one image.' });

const examples = () => z.array(id()).max(5).meta({ description: 'Up to five of those images, newest first.' });

export const BenchClause: z.ZodType<BenchClauseShape> = z
  .strictObject({
    kind: z.enum(['and', 'or', 'not', 'boost', 'term']),
    text: z.string(),
    start: offset(),
    end: offset(),
    images: count().meta({ description: 'Images of the sample that match this clause.' }),
    examples: examples(),
    get children() {
      return z.array(BenchClause);
    },
  })
  .meta({ id: 'BenchClause', description: 'One clause of a complex expression and what it matches in the sample.' });

interface BenchClauseShape {
  kind: 'and' | 'or' | 'not' | 'boost' | 'term';
  text: string;
  start: number;
  end: number;
  images: number;
  examples: number[];
  children: BenchClauseShape[];
}

const BenchTag = z.strictObject({
  id: id(),
  name: z.string().nullable().meta({ description: 'The tag\'s name; null for an id no tag has.' }),
  images: count().meta({ description: 'Images of the sample with this tag.' }),
  examples: examples(),
});

const BenchList = z.strictObject({
  images: count().meta({ description: 'Images of the sample this list catches (tags or expression).' }),
  tags: z.array(BenchTag).meta({ description: 'Each tag of the list, most images first.' }),
  complex: BenchClause.nullable().meta({ description: 'The expression\'s clauses; null when empty.' }),
});

export const FilterTestResponse = z
  .strictObject({
    filter: FilterSource,
    sample: z.strictObject({
      q: z.string().nullable().meta({ description: 'The query that chose the sample; null for the newest images.' }),
      size: count().meta({ description: 'Images in the sample.' }),
      evaluated: count().meta({ description: 'Images looked at before the time budget ran out (equal to `size` when `complete`).' }),
      complete: z.boolean().meta({ description: 'Whether every image of the sample was looked at.' }),
    }),
    hidden: count().meta({ description: 'Images the filter hides.' }),
    spoilered: count().meta({ description: 'Images it spoilers but does not hide.' }),
    hidden_by: BenchList,
    spoilered_by: BenchList,
  })
  .meta({ id: 'FilterTestResponse', description: 'What a filter would hide and spoiler in a sample of images.' });

export const AutocompleteLabels = z
  .array(z.strictObject({ label: z.string().meta({ description: '`name (images)`.' }), value: z.string().meta({ description: 'What to insert.' }) }))
  .meta({ id: 'AutocompleteLabels', description: 'Suggestions in the shape Philomena\'s site reads.' });

export const AutocompleteRich = z
  .strictObject({
    term: z.string().meta({ description: 'The term being completed (without a leading `-`, `!` or `NOT`).' }),
    replace: z.strictObject({ start: offset(), end: offset() }).meta({ description: 'The range of the given `term` parameter a suggestion replaces.' }),
    suggestions: z.array(
      z.strictObject({
        kind: z.enum(['tag', 'alias', 'field']).meta({ description: '`tag`, `alias` (a name that stands for another tag) or `field` (a field of the query language).' }),
        name: z.string().meta({ description: 'The matched name.' }),
        value: z.string().meta({ description: 'What to insert: the tag (an alias\'s target), or `field:` / `field.gte:`.' }),
        label: z.string(),
        images: count().nullable().meta({ description: 'Images with the tag; null for fields.' }),
        category: z.string().nullable().meta({ description: 'The tag\'s category.' }),
        alias_of: z.string().nullable().meta({ description: 'For an alias: the tag it stands for.' }),
        match: z.enum(['prefix', 'words', 'typo']).meta({ description: 'How it matched: by its start, by its words in any order, or within one or two typos.' }),
        distance: z.int().min(0).max(2).meta({ description: 'Edits between the term and the name\'s start (0 unless `typo`).' }),
      }),
    ),
  })
  .meta({ id: 'AutocompleteRich', description: 'Suggestions with what they are and how they matched.' });
