/**
 * The autocomplete benchmark's board: N tags (names of one to three invented words, a tenth of
 * them namespaced, one in twenty an alias, image counts falling off like real boards' do) in the
 * tags table of their own embedded PostgreSQL under `bench/.cache/autocomplete-<N>/`, built once
 * and reused while the count matches.
 */
import { join } from 'node:path';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { mulberry32 } from '../../src/lib/random.js';

const SYLLABLES = ['ka', 'ri', 'to', 'mo', 'sa', 'lu', 'ne', 'shi', 'ra', 'po', 'ven', 'dor', 'an', 'el', 'ty', 'qui', 'bel', 'mar', 'zo', 'fi', 'gle', 'sp', 'ark', 'in'];
const NAMESPACES = ['artist', 'oc', 'character', 'series', 'comic'];

export interface BenchTag {
  name: string;
  images: number;
  aliasOf: number | null;
}

/** The board's tags, deterministic for `n`. */
export function benchTags(n: number): BenchTag[] {
  const random = mulberry32(20);
  const word = () => {
    const parts = 2 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < parts; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    return w;
  };
  const vocabulary = Array.from({ length: 6000 }, word);
  const pick = () => vocabulary[Math.floor(random() ** 1.5 * vocabulary.length)]!;
  const names = new Set<string>();
  const out: BenchTag[] = [];
  while (out.length < n) {
    const words = 1 + Math.floor(random() * 3);
    let name = Array.from({ length: words }, pick).join(' ');
    if (random() < 0.1) name = `${NAMESPACES[Math.floor(random() * NAMESPACES.length)]}:${name}`;
    if (names.has(name)) continue;
    names.add(name);
    const rank = out.length + 1;
    const alias = out.length > 100 && random() < 0.05;
    out.push({ name, images: alias ? 0 : Math.floor(2_000_000 / rank ** 1.1), aliasOf: alias ? 1 + Math.floor(random() * out.length) : null });
  }
  return out;
}

/** The board's database, filled with `benchTags(n)` (ids 1..n in order) unless it already is. */
export async function openTagBoard(root: string, n: number, log: (m: string) => void): Promise<DatabaseHandle> {
  const handle = await openDatabase({ dataDir: join(root, `autocomplete-${n}`), max: 4 });
  const sql = handle.db.$client;
  const [row] = await sql.unsafe<{ n: number }[]>('select count(*)::int as n from tags');
  if (row?.n === n) return handle;
  log(`building a board of ${n.toLocaleString('en')} tags`);
  await sql.unsafe('truncate tags restart identity cascade');
  const tags = benchTags(n);
  const CHUNK = 20_000;
  for (let at = 0; at < tags.length; at += CHUNK) {
    const chunk = tags.slice(at, at + CHUNK);
    const names = chunk.map((t) => t.name);
    const slugs = chunk.map((_, i) => `t${at + i + 1}`);
    const inNamespace = chunk.map((t) => t.name.slice(t.name.indexOf(':') + 1));
    const counts = chunk.map((t) => t.images);
    await sql`insert into tags (name, slug, name_in_namespace, images_count)
      select * from unnest(${names}::text[], ${slugs}::text[], ${inNamespace}::text[], ${counts}::int[])`;
  }
  const aliases = tags.flatMap((t, i) => (t.aliasOf === null ? [] : [[i + 1, t.aliasOf]]));
  await sql`update tags set aliased_tag_id = a.target from unnest(${aliases.map((a) => a[0]!)}::int[], ${aliases.map((a) => a[1]!)}::int[]) as a(id, target) where tags.id = a.id`;
  return handle;
}
