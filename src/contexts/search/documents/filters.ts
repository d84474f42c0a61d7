/**
 * The rows filters documents are built of (`filters-documents.ts`): one set-based query
 * per batch of ids, fetched as one JSON array.
 */
import type { Database } from '../../../db/client.js';
import { fetchDocumentRows, isoTime } from './rows.js';

const QUERY = `
select
  f.id, ${isoTime('f.created_at')} as created_at, f.user_id, lower(u.name) as creator, lower(f.name) as name,
  f.description, f.system, f.public or f.system as public, f.spoilered_tag_ids, f.hidden_tag_ids,
  lower(f.spoilered_complex_str) as spoilered_complex_str, lower(f.hidden_complex_str) as hidden_complex_str
from filters f
  left join users u on u.id = f.user_id
where f.id = any($1::int[])`;

export interface FilterDocumentRow {
  id: number;
  created_at: string;
  user_id: number | null;
  creator: string | null;
  name: string;
  description: string;
  system: boolean;
  public: boolean;
  spoilered_tag_ids: number[];
  hidden_tag_ids: number[];
  spoilered_complex_str: string;
  hidden_complex_str: string;
}

/** The rows of the filters with these ids, in id order; ids without a row are absent. */
export function filterDocumentRows(db: Database, ids: number[]): Promise<FilterDocumentRow[]> {
  return fetchDocumentRows<FilterDocumentRow>(db, QUERY, ids);
}
