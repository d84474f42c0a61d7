/**
 * The query fields of every index, written out from the reference's tables (reference §2.2–2.7)
 * independently of the field-set files: each field must compile against its index field for
 * the roles that see it, and be plain default-field text for the roles that do not.
 */
import { describe, expect, it } from 'vitest';
import { cleanTagName, fieldsForRole, type Query, type Role } from '../../grammar/index.js';
import { queryFields, indexNames, type IndexName } from '../../src/search/indexes/index.js';
import { dsl } from './helpers.js';

type Tier = 'anonymous' | 'user' | 'moderator';
const TIERS: Tier[] = ['anonymous', 'user', 'moderator'];
const RANK: Record<Tier, number> = { anonymous: 0, user: 1, moderator: 2 };

/** `name:type[>target][@tier]` */
const EXPECTED: Record<IndexName, { default: [string, 'literal' | 'ngram']; fields: string[] }> = {
  images: {
    default: ['tags', 'literal'],
    fields: [
      ...'id width height score upvotes downvotes hides faves pixels size orig_size comment_count source_count tag_count'.split(' ').map((f) => `${f}:int`),
      ...'body_type_tag_count error_tag_count character_tag_count content_fanmade_tag_count content_official_tag_count oc_tag_count origin_tag_count rating_tag_count species_tag_count spoiler_tag_count'
        .split(' ')
        .map((f) => `${f}:int`),
      'uploader_id:numeric',
      'duplicate_id:numeric',
      'faved_by_id:numeric>favourited_by_user_ids',
      'aspect_ratio:float',
      'wilson_score:float',
      'duration:float',
      'created_at:date',
      'updated_at:date',
      'first_seen_at:date',
      ...'orig_sha512_hash sha512_hash uploader source_url original_format mime_type file_name'.split(' ').map((f) => `${f}:literal`),
      'faved_by:literal>favourited_by_users',
      'animated:bool',
      'processed:bool',
      'thumbnails_generated:bool',
      'description:ngram',
      'upvoted_by_id:numeric>upvoter_ids@moderator',
      'downvoted_by_id:numeric>downvoter_ids@moderator',
      'true_uploader_id:numeric@moderator',
      'hidden_by_id:numeric>hidden_by_user_ids@moderator',
      'deleted_by_user_id:numeric@moderator',
      'fingerprint:literal@moderator',
      'upvoted_by:literal>upvoters@moderator',
      'downvoted_by:literal>downvoters@moderator',
      'true_uploader:literal@moderator',
      'hidden_by:literal>hidden_by_users@moderator',
      'deleted_by_user:literal@moderator',
      'deletion_reason:ngram@moderator',
      'scratchpad:ngram@moderator',
      'ip:ip@moderator',
      'anonymous:bool@moderator',
      'deleted:bool>hidden_from_users@moderator',
    ],
  },
  comments: {
    default: ['body', 'ngram'],
    fields: [
      'id:int',
      'author_id:numeric',
      'image_id:numeric',
      'created_at:date',
      'updated_at:date',
      'author:literal',
      'image.tags:literal',
      'body:ngram',
      'true_author_id:numeric@moderator',
      'deleted_by_user_id:numeric@moderator',
      'true_author:literal@moderator',
      'fingerprint:literal@moderator',
      'deleted_by_user:literal@moderator',
      'deletion_reason:ngram@moderator',
      'ip:ip@moderator',
      'anonymous:bool@moderator',
      'approved:bool@moderator',
      'image.approved:bool@moderator',
      'deleted:bool>hidden_from_users@moderator',
      'image.deleted:bool>image.hidden_from_users@moderator',
    ],
  },
  posts: {
    default: ['body', 'ngram'],
    fields: [
      'id:int',
      'topic_position:int',
      'author_id:numeric',
      'forum_id:numeric',
      'topic_id:numeric',
      'created_at:date',
      'updated_at:date',
      'author:literal',
      'forum:literal',
      'body:ngram',
      'subject:ngram',
      'true_author_id:numeric@moderator',
      'deleted_by_user_id:numeric@moderator',
      'true_author:literal@moderator',
      'fingerprint:literal@moderator',
      'deleted_by_user:literal@moderator',
      'deletion_reason:ngram@moderator',
      'ip:ip@moderator',
      'anonymous:bool@moderator',
      'destroyed_content:bool@moderator',
      'deleted:bool>hidden_from_users@moderator',
    ],
  },
  galleries: {
    default: ['title', 'literal'],
    fields: [
      'id:int',
      'image_count:int',
      'subscriber_count:int',
      'user_id:numeric>creator_id',
      'image_ids:numeric',
      'thumbnail_id:numeric',
      'title:literal',
      'user:literal>creator',
      'created_at:date',
      'updated_at:date',
      'description:ngram',
      'spoiler_warning:ngram',
      'true_creator_id:numeric@moderator',
      'true_creator:literal@moderator',
      'anonymous:bool@moderator',
    ],
  },
  tags: {
    default: ['name', 'literal'],
    fields: [
      'id:int',
      'images:int',
      ...'name slug name_in_namespace namespace aliases category analyzed_name'.split(' ').map((f) => `${f}:literal`),
      'implies:literal>implied_tags',
      'implied_by:literal>implied_by_tags',
      'alias_of:literal>aliased_tag',
      'aliased:bool',
      'description:ngram',
      'short_description:ngram',
    ],
  },
  filters: {
    default: ['name', 'literal'],
    fields: [
      'id:int',
      'spoilered_count:int',
      'hidden_count:int',
      'user_id:numeric',
      'created_at:date',
      'description:ngram',
      'name:literal',
      'creator:literal',
      'public:bool',
      'system:bool',
    ],
  },
};

const CUSTOM: Record<IndexName, string[]> = {
  images: ['gallery_id', 'filter_id', 'my'],
  comments: ['my@user'],
  posts: ['my@user'],
  galleries: ['my@user'],
  tags: [],
  filters: ['my@user'],
};

const SAMPLE: Record<string, [string, (target: string) => Query]> = {
  int: ['5', (f) => ({ term: { [f]: 5 } })],
  float: ['1.5', (f) => ({ term: { [f]: 1.5 } })],
  numeric: ['7', (f) => ({ term: { [f]: 7 } })],
  bool: ['true', (f) => ({ term: { [f]: 'true' } })],
  date: ['2020', (f) => ({ range: { [f]: { gte: '2020-01-01T00:00:00Z', lt: '2021-01-01T00:00:00Z' } } })],
  ip: ['10.0.0.1', (f) => ({ term: { [f]: '10.0.0.1' } })],
  literal: ['x', (f) => ({ term: { [f]: 'x' } })],
  ngram: ['x', (f) => ({ match_phrase: { [f]: 'x' } })],
};

function parseSpec(spec: string) {
  const m = /^([\w.]+):(\w+)(?:>([\w.]+))?(?:@(\w+))?$/.exec(spec)!;
  return { name: m[1]!, type: m[2]!, target: m[3] ?? m[1]!, tier: (m[4] ?? 'anonymous') as Tier };
}

describe.each(indexNames)('%s fields', (index) => {
  const expected = EXPECTED[index];
  const [defaultName, defaultType] = expected.default;
  const asDefault = (text: string): Query =>
    defaultType === 'ngram'
      ? { match_phrase: { [defaultName]: text.toLowerCase() } }
      : { term: { [defaultName]: index === 'images' ? cleanTagName(text) : text.toLowerCase() } };

  it.each(expected.fields.map(parseSpec))('$name ($type → $target, from $tier)', ({ name, type, target, tier }) => {
    const [value, build] = SAMPLE[type]!;
    for (const role of TIERS) {
      const q = dsl(`${name}:${value}`, { index, role });
      if (RANK[role] >= RANK[tier]) expect(q, role).toEqual(build(target));
      else expect(q, role).toEqual(asDefault(`${name}:${value}`));
    }
  });

  it('has exactly these fields, per role', () => {
    const listed = [...expected.fields.map(parseSpec), ...CUSTOM[index].map((c) => ({ name: c.split('@')[0]!, tier: (c.split('@')[1] ?? 'anonymous') as Tier }))];
    for (const role of TIERS) {
      const names = [...fieldsForRole(queryFields[index], role).byName.keys()].sort();
      const wanted = [...new Set(listed.filter((f) => RANK[role] >= RANK[f.tier]).map((f) => f.name))].sort();
      expect(names, role).toEqual(wanted);
    }
  });

  it(`searches ${defaultName} (${defaultType}) by default`, () => {
    expect(dsl('some text', { index })).toEqual(asDefault('some text'));
    expect(dsl(`${defaultName}:x`, { index })).toEqual(defaultName === 'tags' ? asDefault('tags:x') : SAMPLE[defaultType]![1](defaultName));
  });
});

describe('roles', () => {
  it.each<[Role, Tier]>([
    ['anonymous', 'anonymous'],
    ['user', 'user'],
    ['assistant', 'user'],
    ['moderator', 'moderator'],
    ['admin', 'moderator'],
  ])('%s searches with the %s fields', (role, tier) => {
    expect(fieldsForRole(queryFields.images, role).tier).toBe(tier);
    const moderatorOnly = dsl('ip:10.0.0.1', { role });
    expect(moderatorOnly).toEqual(tier === 'moderator' ? { term: { ip: '10.0.0.1' } } : { term: { tags: 'ip:10.0.0.1' } });
  });

  it('cleans comment image tags only for moderators', () => {
    expect(dsl('image.tags:Twilight_Sparkle', { index: 'comments' })).toEqual({ term: { 'image.tags': 'twilight_sparkle' } });
    expect(dsl('image.tags:Twilight_Sparkle', { index: 'comments', role: 'user' })).toEqual({ term: { 'image.tags': 'twilight_sparkle' } });
    expect(dsl('image.tags:Twilight_Sparkle', { index: 'comments', role: 'admin' })).toEqual({ term: { 'image.tags': 'twilight sparkle' } });
    expect(dsl('image.tags:Twi_*', { index: 'comments', role: 'moderator' })).toEqual({ wildcard: { 'image.tags': 'twi *' } });
  });

  it('keeps the case of image file names only', () => {
    expect(dsl('file_name:IMG_01.PNG')).toEqual({ term: { file_name: 'IMG_01.PNG' } });
    expect(dsl('mime_type:Image/PNG')).toEqual({ term: { mime_type: 'image/png' } });
  });

  it('lowercases but does not clean other literal fields', () => {
    expect(dsl('name:Twilight_Sparkle', { index: 'tags' })).toEqual({ term: { name: 'twilight_sparkle' } });
    expect(dsl('Twilight_Sparkle', { index: 'tags' })).toEqual({ term: { name: 'twilight_sparkle' } });
  });

  it('finds galleries by exact title (`title:chartreuse alpacas`)', () => {
    expect(dsl('title:Chartreuse Alpacas', { index: 'galleries' })).toEqual({ term: { title: 'chartreuse alpacas' } });
    expect(dsl('*chartreuse*', { index: 'galleries' })).toEqual({ wildcard: { title: '*chartreuse*' } });
  });

  it('tags: `artist:*` and `category:origin` (reference §9.1)', () => {
    expect(dsl('artist:*', { index: 'tags' })).toEqual({ wildcard: { name: 'artist:*' } });
    expect(dsl('category:origin', { index: 'tags' })).toEqual({ term: { category: 'origin' } });
    expect(dsl('namespace:artist', { index: 'tags' })).toEqual({ term: { namespace: 'artist' } });
  });
});
