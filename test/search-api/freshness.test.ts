/**
 * Freshness in embedded mode: the in-process indexer follows the outbox, so a change written
 * straight to the database (as the admin CLI and imports do) is found by search within a second.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/admin.js';
import * as s from '../../src/db/schema/index.js';
import { insertFilter, insertImage, insertKey, insertTag, insertUser } from '../http/harness.js';
import { idsOf, qs, startSearchHarness, untilSearchShows, type SearchHarness } from './harness.js';

let h: SearchHarness;
let safe: typeof s.tags.$inferSelect;

const LIMIT_MS = 1000;

beforeAll(async () => {
  h = await startSearchHarness();
  safe = await insertTag(h.db, 'safe', { category: 'rating' });
  await insertFilter(h.db, { name: 'Default', system: true });
  await insertImage(h.db, { tags: [safe] });
  await h.reindex();
  h.indexer.start();
  // Warm the search paths up, so that the first measurement is not of loading and compiling code.
  for (let i = 0; i < 3; i++) {
    await h.ok('/search/images?q=safe');
    await h.ok('/search/filters?q=*');
    await h.ok('/search/comments?q=*');
  }
});

afterAll(async () => {
  await h?.close();
});

const imageIds = async (q: string) => idsOf((await h.ok(`/search/images${qs({ q, per_page: 50 })}`)).images);

describe('search sees database writes within a second', () => {
  it('a new image inserted with SQL, with its tags', async () => {
    const fresh = await insertTag(h.db, 'freshly made');
    // plain SQL, as a script or the admin CLI would write it, in one transaction
    const [row] = await h.db.$client.begin(async (tx) => {
      const inserted = await tx<{ id: number }[]>`
        insert into images (image_name, image_format, image_mime_type, image_width, image_height, processed, thumbnails_generated)
        values ('fresh.png', 'png', 'image/png', 10, 10, true, true) returning id`;
      await tx`insert into image_taggings (image_id, tag_id, position) values (${inserted[0]!.id}, ${fresh.id}, 0)`;
      return inserted;
    });
    const ms = await untilSearchShows(async () => (await imageIds('freshly made')).includes(row!.id));
    expect(ms).toBeLessThan(LIMIT_MS);
  });

  it('a tag added to an existing image, and the image hidden', async () => {
    const image = await insertImage(h.db, { tags: [safe] });
    const late = await insertTag(h.db, 'added later');
    await untilSearchShows(async () => (await imageIds('safe')).includes(image.id));

    await h.db.insert(s.imageTaggings).values({ imageId: image.id, tagId: late.id, position: 1 });
    expect(await untilSearchShows(async () => (await imageIds('added later')).includes(image.id))).toBeLessThan(LIMIT_MS);

    await h.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'gone' }).where(eq(s.images.id, image.id));
    expect(await untilSearchShows(async () => !(await imageIds('added later')).includes(image.id))).toBeLessThan(LIMIT_MS);
  });

  it('a fave: my:faves of its user', async () => {
    const user = await insertUser(h.db);
    const key = await insertKey(h.db, user.id);
    const image = await insertImage(h.db, { tags: [safe] });
    await untilSearchShows(async () => (await imageIds('safe')).includes(image.id));
    await h.db.insert(s.imageFaves).values({ imageId: image.id, userId: user.id });
    const ms = await untilSearchShows(async () =>
      idsOf((await h.ok(`/search/images${qs({ q: 'my:faves', key })}`)).images).includes(image.id),
    );
    expect(ms).toBeLessThan(LIMIT_MS);
  });

  it('a system filter created and renamed by the admin CLI', async () => {
    const out: string[] = [];
    const run = (argv: string[]) => runCommand(argv, { out: (l) => out.push(l) }, (fn) => fn(h.db));
    await run(['filter', 'system', 'create', 'Night Mode', '--hide', 'safe']);
    const id = Number(/id (\d+)/.exec(out.at(-1)!)![1]);
    const created = await untilSearchShows(async () => idsOf((await h.ok('/search/filters?q=night*')).filters).includes(id));
    expect(created).toBeLessThan(LIMIT_MS);

    await run(['filter', 'system', 'edit', String(id), '--name', 'Day Mode']);
    const renamed = await untilSearchShows(async () => idsOf((await h.ok(`/search/filters${qs({ q: 'day mode' })}`)).filters).includes(id));
    expect(renamed).toBeLessThan(LIMIT_MS);

    // and the image search uses the new filter at once: it hides `safe`
    const res = await h.ok(`/search/images${qs({ q: '*', filter_id: id })}`);
    expect(res.images.every((i: { tags: string[] }) => !i.tags.includes('safe'))).toBe(true);
  });

  it('a comment inserted with SQL', async () => {
    const image = await insertImage(h.db, { tags: [safe] });
    const [comment] = await h.db.insert(s.comments).values({ imageId: image.id, body: 'zebras are fresh' }).returning();
    const ms = await untilSearchShows(async () => idsOf((await h.ok('/search/comments?q=zebras')).comments).includes(comment!.id));
    expect(ms).toBeLessThan(LIMIT_MS);
  });
});
