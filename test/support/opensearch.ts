/** Helpers for the suites that run against a live OpenSearch node (OPENSEARCH_URL). */
import { Client } from '@opensearch-project/opensearch';

/** Deletes every index whose name starts with `prefix` (the indices one suite created). */
export async function deleteIndices(url: string, prefix: string): Promise<void> {
  const admin = new Client({ node: url });
  try {
    const res = await admin.cat.indices({ index: `${prefix}*`, format: 'json', h: ['index'], expand_wildcards: 'all' });
    const names = (res.body as { index?: string }[]).map((r) => r.index).filter((n): n is string => !!n);
    if (names.length > 0) await admin.indices.delete({ index: names });
  } finally {
    await admin.close();
  }
}
