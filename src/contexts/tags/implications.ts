/**
 * Tag implications: a tag that implies others brings them along when it is added to an image
 * (one level, at tagging time; see get-or-create).
 */
import { inArray } from 'drizzle-orm';
import { tagImplications, tags } from '../../db/schema/index.js';
import type { Executor } from '../../db/executor.js';
import { TagRuleError } from '../errors.js';

/**
 * Record that the tag named `tagName` implies the tag named `impliedName`. Neither may be an
 * alias (the rule is stated on the real tags) and a tag does not imply itself. Idempotent.
 */
export async function addImplication(tx: Executor, tagName: string, impliedName: string): Promise<void> {
  const rows = await tx
    .select({ id: tags.id, name: tags.name, aliasedTagId: tags.aliasedTagId })
    .from(tags)
    .where(inArray(tags.name, [tagName, impliedName]));
  const tag = rows.find((r) => r.name === tagName);
  const implied = rows.find((r) => r.name === impliedName);
  if (!tag) throw new TagRuleError(`unknown tag ${tagName}`);
  if (!implied) throw new TagRuleError(`unknown tag ${impliedName}`);
  if (tag.id === implied.id) throw new TagRuleError(`${tagName} may not imply itself`);
  for (const t of [tag, implied]) {
    if (t.aliasedTagId !== null) throw new TagRuleError(`${t.name} is aliased; imply its target instead`);
  }
  await tx.insert(tagImplications).values({ tagId: tag.id, impliedTagId: implied.id }).onConflictDoNothing();
}

/** The tags implied by each of `tagIds` (one level). */
export async function impliedTagIds(tx: Executor, tagIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (tagIds.length === 0) return out;
  const rows = await tx
    .select({ tagId: tagImplications.tagId, impliedTagId: tagImplications.impliedTagId })
    .from(tagImplications)
    .where(inArray(tagImplications.tagId, [...tagIds]));
  for (const r of rows) {
    const list = out.get(r.tagId) ?? [];
    list.push(r.impliedTagId);
    out.set(r.tagId, list);
  }
  return out;
}
