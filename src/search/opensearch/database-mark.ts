/**
 * The database an OpenSearch index reflects (`DatabaseMark`), kept in the index's mapping
 * metadata (`_meta.tagwise_database`), so that an indexer starting beside another database, or
 * beside this one restored from an older backup, rebuilds the indices instead of trusting them.
 * A new version gets the mark in the mapping it is created with; `markDatabase` puts it on the
 * versions behind the aliases.
 */
import type { Client } from '@opensearch-project/opensearch';
import type { DatabaseMark } from '../engine.js';
import { asRecord, type Call } from './errors.js';

const KEY = 'tagwise_database';

/** The `_meta` of a mapping that carries `mark`. */
export function markMeta(mark: DatabaseMark): Record<string, unknown> {
  return { [KEY]: mark };
}

/** Put `mark` on every index behind `aliases` (physical names). */
export async function putMark(client: Client, call: Call, aliases: readonly string[], mark: DatabaseMark): Promise<void> {
  if (aliases.length === 0) return;
  await call(`mark [${aliases.join(',')}]`, () => client.indices.putMapping({ index: [...aliases], body: { _meta: markMeta(mark) } }));
}

function isMark(value: unknown): value is DatabaseMark {
  const v = asRecord(value);
  return typeof v?.database === 'string' && typeof v.changeSeq === 'number';
}

/**
 * The mark of the indices behind `aliases`: the one that claims the most (the highest change-log
 * position) among those recorded, since every alias is marked at once; undefined when none is.
 */
export async function readMark(client: Client, call: Call, aliases: readonly string[]): Promise<DatabaseMark | undefined> {
  if (aliases.length === 0) return undefined;
  const res = await call(`read marks of [${aliases.join(',')}]`, () => client.indices.getMapping({ index: [...aliases] }, { ignore: [404] }));
  if (res.statusCode === 404) return undefined;
  let found: DatabaseMark | undefined;
  for (const index of Object.values(asRecord(res.body) ?? {})) {
    const mark = asRecord(asRecord(asRecord(index)?.mappings)?._meta)?.[KEY];
    if (isMark(mark) && (found === undefined || mark.changeSeq > found.changeSeq)) found = mark;
  }
  return found;
}
