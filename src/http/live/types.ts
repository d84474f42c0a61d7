/** What the HTTP side sees of the live machinery (service.ts implements it). */
import type { Query } from '../../../grammar/index.js';
import type { FilterRow } from '../../contexts/filters/types.js';

/** A firehose event as the socket sends it. */
export interface FirehoseEvent {
  event: string;
  payload: unknown;
}

export type FirehoseSubscriber = (events: readonly FirehoseEvent[]) => void;

/** One live search event: `data` is JSON text; `seq` its transaction's position in the change log. */
export interface LiveEvent {
  seq: number;
  event: 'image' | 'gone';
  data: string;
}

export type LiveSubscriber = (events: readonly LiveEvent[]) => void;

/** What a live search asks for: the full compiled request query and the filter it came from. */
export interface LiveQuery {
  query: Query;
  filter: FilterRow | null;
}

export interface Live {
  /** Follow the change log from its current end (idempotent). */
  start(): Promise<void>;
  /** The last change-log position delivered to subscribers. */
  readonly seq: number;
  /**
   * A place for one more open connection (a live search or a socket), or null when
   * `LIVE_MAX_CONNECTIONS` are open: each costs memory however idle, so their number is bounded.
   * The function given back frees the place (once, however often it is called). `close` ends the
   * connection when the live side stops (a stream resumes with Last-Event-ID, a socket
   * reconnects): an open stream never finishes on its own, so a server would wait for it for ever.
   */
  admit(close: () => void): (() => void) | null;
  subscribeFirehose(subscriber: FirehoseSubscriber): () => void;
  /** Throws if the query cannot be evaluated in process. */
  subscribeSearch(q: LiveQuery, subscriber: LiveSubscriber): () => void;
  /** The events of `q` after `afterSeq`, from the log (a resume), and the position read through. */
  replaySearch(q: LiveQuery, afterSeq: number): Promise<{ events: LiveEvent[]; through: number }>;
  /** Stop following and close every admitted connection. */
  stop(): Promise<void>;
}
