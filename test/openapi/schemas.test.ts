/**
 * The zod schemas against the shared shape checker: the schemas agree with
 * test/support/spec-shapes.ts (the spec's tables as strict shapes) on fields, optional fields and
 * nulls, and reject what clients would choke on. (The views' JSON types are the schemas' output
 * types, so the compiler keeps the views in line with the schemas.)
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as S from '../../src/api/schemas/index.js';
import { RESOURCE_PAIRS } from '../support/resources.js';

// ---------------------------------------------------------------------------------------------
// Against the spec shapes
// ---------------------------------------------------------------------------------------------

const fieldsOf = (schema: z.ZodObject) => Object.keys(schema.shape).sort();
const acceptsNull = (field: z.ZodType) => field.safeParse(null).success;
const isOptional = (field: z.ZodType) => field.safeParse(undefined).success;


describe('schemas', () => {
  it.each(RESOURCE_PAIRS)('%s has the fields, optional fields and nulls of the shared spec shape', (_name, schema, shape) => {
    const all = { ...shape.fields, ...shape.extras };
    expect(fieldsOf(schema)).toEqual(Object.keys(all).sort());
    const optional = Object.entries(schema.shape as Record<string, z.ZodType>).filter(([, f]) => isOptional(f)).map(([k]) => k).sort();
    expect(optional).toEqual([...(shape.optional ?? [])].sort());
    for (const [field, type] of Object.entries(all)) {
      if (typeof type !== 'string') continue; // predicates: checked by the conformance tests
      expect(acceptsNull(schema.shape[field] as z.ZodType), `${_name}.${field} (${type})`).toBe(type.endsWith('?'));
    }
  });

  it('accept a valid image and reject what strict clients reject', () => {
    const url = (name: string) => `https://cdn.test/img/2024/5/1/1/${name}.png`;
    const image = {
      id: 1, created_at: '2024-05-01T10:20:30Z', updated_at: '2024-05-01T10:20:30Z', first_seen_at: '2024-05-01T10:20:30Z',
      width: 10, height: 10, mime_type: 'image/png', size: 1, orig_size: 1, duration: 0.04, animated: false, format: 'png',
      aspect_ratio: 1, name: 'a.png', sha512_hash: 'a', orig_sha512_hash: 'b', tags: ['safe'], tag_ids: [1], tag_count: 1,
      uploader: null, uploader_id: null, wilson_score: 0, intensities: null, score: 0, upvotes: 0, downvotes: 0, faves: 0,
      hides: 0, comment_count: 0, description: '', source_url: '', source_urls: [], view_url: url('view'),
      representations: Object.fromEntries(['full', 'large', 'medium', 'small', 'tall', 'thumb', 'thumb_small', 'thumb_tiny'].map((k) => [k, url(k)])),
      spoilered: false, thumbnails_generated: true, processed: true, deletion_reason: null, duplicate_of: null, hidden_from_users: false,
    };
    expect(S.Image.safeParse(image).error?.issues ?? []).toEqual([]);
    const bad: [string, object][] = [
      ['an unlisted field', { ...image, extra: 1 }],
      ['a missing field', { ...image, uploader: undefined }],
      ['an offset datetime', { ...image, created_at: '2024-05-01T10:20:30+00:00' }],
      ['fractional seconds', { ...image, updated_at: '2024-05-01T10:20:30.123Z' }],
      ['a relative view URL', { ...image, view_url: '/img/view/2024/5/1/1.png' }],
      ['a protocol-relative representation', { ...image, representations: { ...image.representations, thumb: '//cdn.test/x.png' } }],
      ['a missing representation', { ...image, representations: { ...image.representations, tall: undefined } }],
      ['an ftp representation', { ...image, representations: { ...image.representations, full: 'ftp://cdn.test/x.png' } }],
      ['an unknown format', { ...image, format: 'bmp' }],
      ['a float id', { ...image, id: 1.5 }],
      ['a null description', { ...image, description: null }],
    ];
    for (const [what, value] of bad) expect(S.Image.safeParse(value).success, what).toBe(false);
  });

  it('keep avatars strings, errors bodies exact, and withheld entries apart from visible ones', () => {
    const comment = {
      id: 1, image_id: 2, user_id: null, author: 'Background Pony #ABCD', avatar: 'data:image/svg+xml;base64,AAAA', body: 'x',
      created_at: '2024-05-01T10:20:30Z', updated_at: '2024-05-01T10:20:30Z', edited_at: null, edit_reason: null,
    };
    expect(S.Comment.safeParse(comment).success).toBe(true);
    expect(S.Comment.safeParse({ ...comment, avatar: null }).success).toBe(false);
    expect(S.Comment.safeParse({ ...comment, avatar: 'javascript:alert(1)' }).success).toBe(false);
    expect(S.Comment.safeParse({ ...comment, author: null }).success).toBe(false);
    expect(S.WithheldComment.safeParse(comment).success).toBe(false);
    expect(S.ErrorBody.safeParse({ error: 'Not found' }).success).toBe(true);
    expect(S.ErrorBody.safeParse({ error: 'x', detail: 1 }).success).toBe(false);
    expect(S.ImageErrorsBody.safeParse({ errors: { image_orig_sha512_hash: ['has already been taken'], url: ['is invalid'] } }).success).toBe(true);
    expect(S.ImageErrorsBody.safeParse({ errors: { tag_input: 'must be a list' } }).success).toBe(false);
    expect(S.Oembed.shape.provider_url.safeParse('http://booru.test').success).toBe(false);
  });

  it('describe every parameter a route reads', () => {
    expect(Object.keys(S.queryParams).sort()).toEqual(
      ['del', 'distance', 'filter_id', 'hidden', 'index', 'key', 'limit', 'page', 'per_page', 'q', 'sd', 'sf', 'url'].sort(),
    );
    for (const [name, schema] of Object.entries(S.queryParams)) {
      const meta = z.globalRegistry.get(schema) as { id?: string; description?: string } | undefined;
      expect(meta?.id, name).toEqual(expect.any(String));
      expect(meta?.description?.length, name).toBeGreaterThan(20);
    }
    // The readers are lenient, as the reference: clamped, or the default for junk.
    expect(S.PerPageParam.parse('51')).toBe(50);
    expect(S.PerPageParam.parse('junk')).toBeUndefined();
    expect(S.PageParam.parse(['3', '4'])).toBe(3);
    expect(S.DistanceParam.parse(undefined)).toBe(0.25);
    expect(S.LimitParam.safeParse('51').success).toBe(false);
    expect(S.workbenchQuery.searchExplain.safeParse({}).error?.issues[0]?.message).toMatch(/^index is required/);
    expect(S.routeQuery.search.safeParse({ 'q[]': 'a' }).error?.issues[0]?.message).toBe(S.QUERY_NOT_A_STRING);
  });
});
