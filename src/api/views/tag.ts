/**
 * The tag object (spec "Tag response", reference §5.7). Related tags are given by slug; only
 * `listed` do-not-post entries are shown, with their reason withheld when asked to.
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import type { DnpEntry, Tag } from '../schemas/resources.js';
import { formatTime } from './time.js';
import { tagImageUrl } from './urls.js';
import type { DnpEntryRow, TagRow } from '../../contexts/tags/types.js';

export interface TagViewInput {
  tag: TagRow;
  aliasedTagSlug: string | null;
  aliasSlugs: readonly string[];
  impliedTagSlugs: readonly string[];
  impliedByTagSlugs: readonly string[];
  dnpEntries: readonly DnpEntryRow[];
}

export type DnpEntryJson = z.output<typeof DnpEntry>;

export type TagJson = z.output<typeof Tag>;

export function dnpEntryView(entry: DnpEntryRow): DnpEntryJson {
  return {
    id: entry.id,
    dnp_type: entry.dnpType,
    conditions: entry.conditions,
    reason: entry.hideReason ? null : entry.reason,
    created_at: formatTime(entry.createdAt),
  };
}

export function tagView(config: Pick<Config, 'cdnUrl'>, input: TagViewInput): TagJson {
  const { tag } = input;
  return {
    id: tag.id,
    name: tag.name,
    slug: tag.slug,
    description: tag.description,
    short_description: tag.shortDescription,
    images: tag.imagesCount,
    spoiler_image_uri: tag.image ? tagImageUrl(config, tag.image) : null,
    namespace: tag.namespace,
    name_in_namespace: tag.nameInNamespace,
    category: tag.category,
    aliased_tag: input.aliasedTagSlug,
    aliases: [...input.aliasSlugs],
    implied_tags: [...input.impliedTagSlugs],
    implied_by_tags: [...input.impliedByTagSlugs],
    dnp_entries: input.dnpEntries.filter((e) => e.state === 'listed').map(dnpEntryView),
  };
}
