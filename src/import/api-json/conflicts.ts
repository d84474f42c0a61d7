/**
 * Ids the file gives to records the board already holds as different records. An import keeps
 * ids, and it runs beside a live board: an id of the file may by now belong to an image uploaded
 * there, a tag created by a submission or an account opened there. Such an id is a conflict,
 * reported like every other problem (nothing is written), never an overwrite.
 *
 * An id held by the same record is the import running again (the same file, or a later export of
 * the same board): its rows are updated. The code tells the two apart by what a record keeps for
 * its whole life and a different record almost never shares: the moment an image or a user was
 * created (to the second, as the API shows it), and a tag's name.
 */
import { inArray } from 'drizzle-orm';
import type { Executor } from '../../db/executor.js';
import { images, tags, users } from '../../db/schema/index.js';
import type { ParsedBoard } from './schema.js';

const second = (d: Date) => Math.floor(d.getTime() / 1000);
const when = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

async function heldBy<T extends { id: number }>(ids: number[], read: (chunk: number[]) => Promise<T[]>): Promise<Map<number, T>> {
  const out = new Map<number, T>();
  for (let i = 0; i < ids.length; i += 5000) for (const row of await read(ids.slice(i, i + 5000))) out.set(row.id, row);
  return out;
}

/** `<resource> <id>: …` for every id of the file that the database holds as another record. */
export async function idConflicts(db: Executor, board: ParsedBoard): Promise<string[]> {
  const problems: string[] = [];
  const heldImages = await heldBy(board.images.map((r) => r.id), (ids) => db.select({ id: images.id, createdAt: images.createdAt }).from(images).where(inArray(images.id, ids)));
  for (const r of board.images) {
    const held = heldImages.get(r.id);
    if (held && second(held.createdAt) !== second(r.created_at)) {
      problems.push(`image ${r.id}: the board already has another image ${r.id} (created ${when(held.createdAt)}, this one ${when(r.created_at)}); it is not overwritten`);
    }
  }
  const heldUsers = await heldBy(board.users.map((r) => r.id), (ids) => db.select({ id: users.id, name: users.name, createdAt: users.createdAt }).from(users).where(inArray(users.id, ids)));
  for (const r of board.users) {
    const held = heldUsers.get(r.id);
    if (held && second(held.createdAt) !== second(r.created_at)) {
      problems.push(`user ${r.id}: the board already has another user ${r.id} (${JSON.stringify(held.name)}, created ${when(held.createdAt)}); it is not overwritten`);
    }
  }
  const heldTags = await heldBy(board.tags.map((r) => r.id), (ids) => db.select({ id: tags.id, name: tags.name }).from(tags).where(inArray(tags.id, ids)));
  for (const r of board.tags) {
    const held = heldTags.get(r.id);
    if (held && held.name !== r.name) problems.push(`tag ${r.id}: the board already has another tag ${r.id} (${JSON.stringify(held.name)}); it is not overwritten`);
  }
  return problems;
}
