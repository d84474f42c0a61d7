import type { Database } from '../db/client.js';

/** A transaction of our Drizzle database. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Anything queries can run on: the pool or an open transaction. */
export type Executor = Database | Transaction;

/** A rule of the tag system was broken; the message is fit to show to whoever asked. */
export class TagRuleError extends Error {
  override name = 'TagRuleError';
}
