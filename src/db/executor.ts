/** The handles queries run on: the pool or an open transaction of our Drizzle database. */
import type { Database } from './client.js';

/** A transaction of our Drizzle database. */
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Anything queries can run on: the pool or an open transaction. */
export type Executor = Database | Transaction;
