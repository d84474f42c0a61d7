/**
 * What document builders may keep between the batches of one reindex (names of tags and users,
 * by id), keyed by index. It lives as long as the reindex; the follower never passes one, so a
 * change is always built from fresh rows.
 */
export type DocumentCache = Map<string, unknown>;
