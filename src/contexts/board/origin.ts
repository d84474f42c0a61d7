/**
 * The origin a Philomena import was told serves its images' files (`--origin-cdn`), stored with
 * the import; the server reads it at start-up into `Config.originCdnUrl`.
 */
import { sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/executor.js';

export async function importedImageOrigin(db: Executor): Promise<string | undefined> {
  const rows = await db.execute<{ origin: string | null }>(sql`select origin_cdn as origin from philomena_import where id = 1`);
  return rows[0]?.origin ?? undefined;
}

/** The configuration with the stored origin, if an import gave one. */
export async function withImportedOrigin<C extends Config>(db: Executor, config: C): Promise<C> {
  const origin = await importedImageOrigin(db);
  return origin === undefined ? config : { ...config, originCdnUrl: origin };
}
