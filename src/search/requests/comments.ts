import type { Query } from '../../../grammar/index.js';
import type { SearchRequest } from '../engine.js';
import { pageWindow, type Page } from './paging.js';

export interface CommentSearchOptions extends Page {
  query: Query;
  /** Hidden tag ids of the current filter: comments on such images are left out. */
  hiddenTagIds: readonly number[];
  userId?: number;
  /** Assistants, moderators and admins also see hidden and unapproved comments. */
  staff: boolean;
}

/**
 * The request body of `/search/comments` (reference §3.2), with the evident intent of the
 * "own unapproved comments" exemption: it matches on `true_author_id`, a field the index has.
 */
export function buildCommentSearch(o: CommentSearchOptions): SearchRequest {
  const mustNot: Query[] = [];
  if (!o.staff) {
    const unapproved: Query[] = [{ term: { approved: false } }, { term: { 'image.approved': false } }];
    if (o.userId === undefined) mustNot.push(...unapproved);
    else mustNot.push({ bool: { should: unapproved, must_not: [{ term: { true_author_id: o.userId } }] } });
    mustNot.push({ term: { hidden_from_users: true } }, { term: { 'image.hidden_from_users': true } });
  }
  if (o.hiddenTagIds.length > 0) mustNot.push({ terms: { 'image.tag_ids': [...o.hiddenTagIds] } });
  return {
    query: { bool: { must: o.query, must_not: mustNot } },
    sort: [{ created_at: 'desc' }, { id: 'desc' }],
    ...pageWindow(o),
  };
}
