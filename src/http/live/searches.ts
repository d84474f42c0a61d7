/**
 * Live searches: one matcher per distinct query and filter (the compiled request of
 * `/search/images`, evaluated in process by the grammar's evaluator), shared by every subscriber
 * who asked the same, whether over SSE or on the socket. For each transaction of the change log,
 * each matcher compares the touched images' documents before and after it: an image that starts
 * matching is an `image` event (its JSON rendered once per matcher, for an anonymous caller with
 * the matcher's filter), one that stops matching is `gone`. Events carry the transaction's
 * position in the log, which a subscriber can resume from (`replay`).
 */
import { compileEvaluator, type DocPredicate } from '../../../grammar/index.js';
import { changeGroupsAfter, changesAfter } from '../../contexts/changes/log.js';
import type { ChangeGroup, ChangeRow } from '../../contexts/changes/types.js';
import type { Database } from '../../db/client.js';
import type { IndexDocument } from '../../search/engine.js';
import type { FilterRow } from '../../contexts/filters/types.js';
import { imagesIndex } from '../../search/indexes/images/index.js';
import { loadImageDocuments } from '../../contexts/search/documents/images-documents.js';
import type { RenderDeps } from '../render/deps.js';
import { ApiError } from '../answers/errors.js';
import { renderImages } from '../render/images.js';
import { imageTransitions, touchedImages, type ImageTransition } from './image-states.js';
import type { LiveEvent, LiveQuery, LiveSubscriber } from './types.js';

interface Matcher {
  key: string;
  matches: DocPredicate;
  filter: FilterRow | null;
  subscribers: Set<LiveSubscriber>;
}

/** Rows read per round of a replay. */
const REPLAY_ROWS = 2000;
/** Rows sealed after a batch that are read to undo them (the follower catches up long before). */
const MAX_TAIL_ROWS = 20_000;

const keyOf = (q: LiveQuery) => `${q.filter?.id ?? ''}\u0000${JSON.stringify(q.query)}`;

export class LiveSearches {
  private readonly matchers = new Map<string, Matcher>();

  constructor(private readonly deps: RenderDeps) {}

  /** Distinct matchers and subscribers now (for metrics and the benchmark). */
  get size(): { matchers: number; subscribers: number } {
    let subscribers = 0;
    for (const m of this.matchers.values()) subscribers += m.subscribers.size;
    return { matchers: this.matchers.size, subscribers };
  }

  /** Subscribe; returns the unsubscribe function. A query the evaluator cannot run is an ApiError (400). */
  subscribe(q: LiveQuery, subscriber: LiveSubscriber): () => void {
    const matcher = this.matcherFor(q);
    matcher.subscribers.add(subscriber);
    return () => {
      matcher.subscribers.delete(subscriber);
      if (matcher.subscribers.size === 0) this.matchers.delete(matcher.key);
    };
  }

  /** A matcher of its own for `q` (shared if one exists), without subscribing. */
  private matcherFor(q: LiveQuery): Matcher {
    const key = keyOf(q);
    let matcher = this.matchers.get(key);
    if (matcher === undefined) {
      matcher = { key, matches: evaluatorOf(q), filter: q.filter, subscribers: new Set() };
      this.matchers.set(key, matcher);
    }
    return matcher;
  }

  /** The change follower's subscriber: evaluate every matcher on the batch and deliver. */
  async onChanges(groups: ChangeGroup[]): Promise<void> {
    if (this.matchers.size === 0) return;
    const matchers = [...this.matchers.values()];
    for (const [matcher, events] of await this.eventsOf(groups, matchers)) {
      if (events.length === 0) continue;
      for (const subscriber of matcher.subscribers) subscriber(events);
    }
  }

  /**
   * The events of `q` after position `afterSeq` to the log's end, read from the log (a resume):
   * the same decisions the live path makes, against the images as they are now.
   */
  async replay(q: LiveQuery, afterSeq: number): Promise<{ events: LiveEvent[]; through: number }> {
    const key = keyOf(q);
    const matcher: Matcher = this.matchers.get(key) ?? { key, matches: evaluatorOf(q), filter: q.filter, subscribers: new Set() };
    const events: LiveEvent[] = [];
    let through = afterSeq;
    for (;;) {
      const groups = await changeGroupsAfter(this.deps.db, through, REPLAY_ROWS);
      if (groups.length === 0) return { events, through };
      events.push(...((await this.eventsOf(groups, [matcher])).get(matcher) ?? []));
      through = groups[groups.length - 1]!.seq;
    }
  }

  private documentsAfter(seq: number, ids: number[]) {
    return documentsIn(this.deps.db, seq, ids);
  }

  private async eventsOf(groups: readonly ChangeGroup[], matchers: readonly Matcher[]): Promise<Map<Matcher, LiveEvent[]>> {
    const out = new Map<Matcher, LiveEvent[]>();
    const ids = touchedImages(groups);
    if (ids.length === 0) return out;
    const { docs, tail } = await this.documentsAfter(groups[groups.length - 1]!.seq, ids);
    const transitions = imageTransitions(groups, docs, tail);
    const decisions = new Map<Matcher, { seq: number; imageId: number; starts: boolean }[]>();
    // Image JSON depends on the filter only (the spoiler flag): rendered once per filter.
    const toRender = new Map<number | null, { filter: FilterRow | null; ids: Set<number> }>();
    for (const matcher of matchers) {
      const decided: { seq: number; imageId: number; starts: boolean }[] = [];
      groups.forEach((group, g) => {
        for (const t of transitions[g]!) {
          const change = decide(matcher, t);
          if (change === null) continue;
          decided.push({ seq: group.seq, imageId: t.imageId, starts: change });
          if (!change) continue;
          const filterId = matcher.filter?.id ?? null;
          let entry = toRender.get(filterId);
          if (entry === undefined) toRender.set(filterId, (entry = { filter: matcher.filter, ids: new Set() }));
          entry.ids.add(t.imageId);
        }
      });
      if (decided.length > 0) decisions.set(matcher, decided);
    }
    const rendered = new Map<number | null, Map<number, string>>();
    for (const [filterId, { filter, ids: wanted }] of toRender) {
      const images = await renderImages(this.deps, [...wanted], { filter, user: null });
      // An image merged or deleted since (a replay reads images as they are now) is no `image`
      // event: its stub shows nothing to follow, and its `gone` comes with the change that hid it.
      const shown = images.filter((image) => !image.hidden_from_users);
      rendered.set(filterId, new Map(shown.map((image) => [image.id, JSON.stringify(image)])));
    }
    for (const [matcher, decided] of decisions) {
      const json = rendered.get(matcher.filter?.id ?? null);
      out.set(
        matcher,
        decided.flatMap((d): LiveEvent[] => {
          if (!d.starts) return [{ seq: d.seq, event: 'gone', data: `{"id":${d.imageId}}` }];
          const data = json?.get(d.imageId);
          return data === undefined ? [] : [{ seq: d.seq, event: 'image', data }];
        }),
      );
    }
    return out;
  }
}

/**
 * The images' documents as they are now, and the log rows sealed after `seq` that they already
 * reflect: read in one snapshot, so undoing those rows gives the documents as of `seq`.
 */
async function documentsIn(db: Database, seq: number, ids: number[]): Promise<{ docs: Map<number, IndexDocument>; tail: ChangeRow[] }> {
  return db.transaction(
    async (tx) => {
      const scoped = tx as unknown as Database;
      const docs = new Map((await loadImageDocuments(scoped, ids)).map((d) => [d.id, d]));
      const wanted = new Set(ids);
      const tail = (await changesAfter(scoped, seq, MAX_TAIL_ROWS)).filter((r) => r.kind === 'image' && wanted.has(r.recordId));
      return { docs, tail };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/** The query as a predicate; one the evaluator cannot run is the caller's 400. */
function evaluatorOf(q: LiveQuery): DocPredicate {
  try {
    return compileEvaluator(q.query, imagesIndex.mapping);
  } catch (err) {
    throw new ApiError(400, `this query cannot be followed live: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** true: starts matching; false: stops; null: no change for this query. */
function decide(matcher: Matcher, t: ImageTransition): boolean | null {
  const before = t.before !== null && matcher.matches(t.before);
  if (t.deleted) return false;
  const after = t.after !== null && matcher.matches(t.after);
  if (after && !before) return true;
  if (before && !after) return false;
  return null;
}
