/**
 * The raw SQL behind `loadImageData`: image rows with everything their views need, in one round
 * trip per batch.
 *
 * Why raw SQL here: every image list (search, dumps, oEmbed, single images) hydrates its ids
 * through this, so it is the hot path of the API. Through drizzle the same data took five
 * queries, and a CPU profile of image search showed drizzle's result mapping (about 15 % of the
 * process) plus the parsing of one row per tagging. Here the taggings, their tags' fields and the
 * sources come back as arrays per image, in the same statement: a search page's images that are
 * not cached cost one query, and a tag met again in the batch is decoded once. The image columns are still derived
 * from the drizzle table and decoded with each column's own `mapFromDriverValue`, so the rows are
 * exactly `typeof images.$inferSelect` and a new column cannot be forgotten.
 */
import { getTableColumns, type Column } from 'drizzle-orm';
import { CasingCache } from 'drizzle-orm/casing';
import { sqlClientOf, type Database } from '../../db/client.js';
import { images } from '../../db/schema/index.js';
import type { ImageRow, ImageTag, Intensities } from './types.js';

/** The casing `createDatabase` gives drizzle (src/db/client.ts): JS keys become snake_case names. */
const casing = new CasingCache('snake_case');

interface ImageColumn {
  /** Key in `ImageRow`. */
  key: string;
  /** The column, which decodes its driver value like drizzle's own selects do. */
  column: Column;
}

const imageColumns: ImageColumn[] = Object.entries(getTableColumns(images)).map(([key, column]) => ({ key, column }));

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Per image: its columns (in `imageColumns` order), then the uploader's name, the intensities,
 * the sources in stored order, and its tags in tagging order as JSON (`[id, name, slug, category,
 * namespace, name in namespace]` each: JSON keeps a null namespace null, where the driver reads
 * the NULL of a text array of these column types as the string "NULL"). Read as value arrays,
 * so the extras sit at fixed positions after the columns. A tagging whose tag is deleted by a
 * concurrent transaction is left out by the join.
 */
const IMAGE_ROWS = `
select ${imageColumns.map((c) => `i.${quoted(casing.getColumnCasing(c.column))}`).join(', ')},
  u.name,
  ii.nw, ii.ne, ii.sw, ii.se,
  array(select s.source from image_sources s where s.image_id = i.id order by s.position, s.source),
  (
    select json_agg(json_build_array(g.id, g.name, g.slug, g.category, g.namespace, g.name_in_namespace) order by t.position, t.tag_id)
    from image_taggings t join tags g on g.id = t.tag_id
    where t.image_id = i.id
  )
from images i
  left join users u on u.id = i.user_id
  left join image_intensities ii on ii.image_id = i.id
where i.id = any($1::int[])
order by i.id`;

const EXTRAS = imageColumns.length;
const UPLOADER_NAME = EXTRAS;
const INTENSITIES = EXTRAS + 1;
const SOURCES = EXTRAS + 5;
const TAGS = EXTRAS + 6;

/**
 * Integer ids as an array literal for a `$n::int[]` parameter. postgres.js passes a string through
 * as it is, where it would escape a JS array element by element: a tenth of this module's CPU for
 * the few hundred tag ids of a page.
 */
const intArray = (ids: readonly number[]): string => `{${ids.join(',')}}`;

/** An image row with its relations, tags in tagging order. */
export interface RawImageData {
  image: ImageRow;
  tags: ImageTag[];
  sources: string[];
  intensities: Intensities | null;
  uploaderName: string | null;
}

/** The row as drizzle's `select().from(images)` decodes it: null stays null, the rest is mapped. */
function decodeImage(values: unknown[]): ImageRow {
  const image: Record<string, unknown> = {};
  imageColumns.forEach(({ key, column }, i) => {
    const value = values[i];
    image[key] = value === null ? null : column.mapFromDriverValue(value);
  });
  return image as ImageRow;
}

function decodeIntensities(values: unknown[]): Intensities | null {
  // The four are not null in their table, so a null means the image has no intensities row.
  if (values[INTENSITIES] === null) return null;
  const [nw, ne, sw, se] = values.slice(INTENSITIES, INTENSITIES + 4) as number[];
  return { nw: nw!, ne: ne!, sw: sw!, se: se! };
}

/** A tag of a row, as `IMAGE_ROWS` builds it. */
type TagValues = [id: number, name: string, slug: string, category: ImageTag['category'], namespace: string | null, nameInNamespace: string];

/** A row's tags, each tag of the batch made once (`known`). */
function decodeTags(values: unknown[], known: Map<number, ImageTag>): ImageTag[] {
  const list = values[TAGS] as TagValues[] | null;
  if (list === null) return [];
  return list.map(([id, name, slug, category, namespace, nameInNamespace]) => {
    let tag = known.get(id);
    if (tag === undefined) known.set(id, (tag = { id, name, slug, category, namespace, nameInNamespace }));
    return tag;
  });
}

/** The images of `ids` that exist (ids must be unique), by id ascending. */
export async function selectImageRows(db: Database, ids: readonly number[]): Promise<RawImageData[]> {
  const rows = await sqlClientOf(db).unsafe<unknown[][]>(IMAGE_ROWS, [intArray(ids)], { prepare: true }).values();
  const known = new Map<number, ImageTag>();
  return rows.map((values) => ({
    image: decodeImage(values),
    tags: decodeTags(values, known),
    sources: values[SOURCES] as string[],
    intensities: decodeIntensities(values),
    uploaderName: values[UPLOADER_NAME] as string | null,
  }));
}
