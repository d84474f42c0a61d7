import { appendFile, mkdir, open, readdir, readFile, rename, rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { DatabaseMark, IndexDocument } from '../../engine.js';
import type { IndexMapping } from '../../mapping.js';
import { Bitmap } from '../postings/bitmap.js';
import type { Field, FieldSet } from '../index/field-set.js';
import { HexTerms } from '../terms/hex-terms.js';
import { TermDictionary } from '../terms/term-dictionary.js';
import { type IndexCacheCounts, PhysicalIndex } from '../index/physical-index.js';
import { RowStore } from '../store/row-store.js';
import type { TermStore } from '../terms/term-store.js';

/*
 * Snapshots, under `<dataDir>/index/`:
 *
 *   <physical>.snap   one per physical index:
 *     8 bytes   magic "TWSNAP02"
 *     4 bytes   header length H (u32, little-endian)
 *     4 bytes   CRC-32 of the header
 *     H bytes   header JSON { name, mapping, generation, position, meta,
 *               sections: [{ name, type, offset, length, crc }] }
 *     padding   to a multiple of 8; the data region starts here
 *     sections  at 8-byte aligned offsets from the data region start: little-endian typed
 *               arrays (`u8`, `u32`, `i32`, `f64`) or UTF-8 JSON (`json`), each with its CRC-32
 *               in the header
 *   <physical>.<generation>.log   changes since that snapshot, one record per line: the CRC-32 of
 *                     the JSON in 8 hex digits, a space, and the JSON: {"w": document} (written),
 *                     {"d": id} (removed) or {"p": position} (the outbox position the index covers
 *                     from here on); appended and fsynced by each flush
 *   aliases.json      { aliases: { alias: physical }, indices: [physical…], database: mark }
 *                     (mark: the database the indices reflect, see `DatabaseMark`)
 *
 * Nothing on disk is trusted. A load verifies every checksum; a torn last line of a log (a crash
 * while appending) is cut off the file, so the next append starts on a clean line; any other
 * damage (a missing or corrupt snapshot, a bad line inside a log) discards that index, which the
 * indexer then rebuilds from PostgreSQL. Each index records the outbox position it covers (the
 * highest outbox id applied to it when it was flushed), so the indexer can tell at start whether
 * an index missed writes whose outbox rows are already gone (a deleted log) and rebuild it too.
 *
 * A flush appends the documents changed since the previous flush to the log of the current
 * snapshot; when the log holds more than a tenth of the index (or the index has no snapshot
 * yet, e.g. after a compaction) it writes a new snapshot with a new generation instead. A load
 * replays only the log of the snapshot's own generation, so a log left behind by a crash right
 * after a new snapshot is never applied to it.
 *
 * Sections name the internal structures, not documents, so a load copies arrays instead of
 * re-indexing: per FieldSet (prefix `` for the root, `f<i>.` under nested field i) the stored
 * records (`rows.data`, `rows.offsets`), per numeric field its values, presence bits and
 * multi-values, per keyword-like field its terms (JSON; packed content hashes as bytes in
 * `terms.hex` with `terms.others` beside them), term order, documents with a term and
 * postings in CSR form (`post.offsets` per term, `post.docs`), per text field the same over its
 * tokens plus position streams (`pos.offsets`, `pos.data`), per nested field the parent/child
 * links. At the root: ids by document number and the live documents.
 *
 * Every snapshot is written to `<file>.tmp` and renamed, index files first, aliases.json last;
 * files of dropped versions and stale logs are deleted after that.
 */

const MAGIC = 'TWSNAP02';

type SectionType = 'u8' | 'u32' | 'i32' | 'f64' | 'json';

interface SectionInfo {
  name: string;
  type: SectionType;
  offset: number;
  length: number;
  crc: number;
}

/** Index files that do not verify: the index is discarded and rebuilt. */
export class CorruptIndexError extends Error {
  override name = 'CorruptIndexError';
}

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
  throw new Error('the embedded engine snapshots need a little-endian machine');
}

class Capture {
  readonly sections: { name: string; type: SectionType; bytes: Uint8Array }[] = [];
  readonly meta: Record<string, unknown> = {};

  add(name: string, type: SectionType, view: ArrayBufferView): void {
    this.sections.push({ name, type, bytes: new Uint8Array(view.buffer, view.byteOffset, view.byteLength) });
  }

  json(name: string, value: unknown): void {
    this.sections.push({ name, type: 'json', bytes: new TextEncoder().encode(JSON.stringify(value)) });
  }
}

class Sections {
  private readonly table = new Map<string, SectionInfo>();

  constructor(
    private readonly buf: Buffer,
    private readonly dataStart: number,
    infos: SectionInfo[],
    readonly meta: Record<string, unknown>,
  ) {
    for (const s of infos) {
      const start = dataStart + s.offset;
      if (start + s.length > buf.length || crc32(buf.subarray(start, start + s.length)) !== s.crc) {
        throw new CorruptIndexError(`section ${s.name} does not verify`);
      }
      this.table.set(s.name, s);
    }
  }

  private bytes(name: string): Uint8Array {
    const s = this.table.get(name);
    if (!s) throw new Error(`snapshot lacks section ${name}`);
    const start = this.dataStart + s.offset;
    return this.buf.subarray(start, start + s.length);
  }

  private copy(name: string): ArrayBuffer {
    const b = this.bytes(name);
    const ab = new ArrayBuffer(b.length);
    new Uint8Array(ab).set(b);
    return ab;
  }

  u8(name: string): Uint8Array {
    return new Uint8Array(this.copy(name));
  }
  u32(name: string): Uint32Array {
    return new Uint32Array(this.copy(name));
  }
  i32(name: string): Int32Array {
    return new Int32Array(this.copy(name));
  }
  f64(name: string): Float64Array {
    return new Float64Array(this.copy(name));
  }
  json<T>(name: string): T {
    return JSON.parse(this.bytes(name).toString()) as T;
  }
  type(name: string): SectionType | undefined {
    return this.table.get(name)?.type;
  }
}

// ------------------------------------------------------------------ capture

/**
 * Lists of numbers packed in CSR form: all of them end to end in `data`, list i at
 * `data[offsets[i]]` up to `data[offsets[i + 1]]`. Two sections instead of one per list.
 */
function packLists(lists: Uint32Array[]): { offsets: Uint32Array; data: Uint32Array } {
  const offsets = new Uint32Array(lists.length + 1);
  let total = 0;
  for (let i = 0; i < lists.length; i++) {
    offsets[i] = total;
    total += lists[i]!.length;
  }
  offsets[lists.length] = total;
  const data = new Uint32Array(total);
  for (let i = 0; i < lists.length; i++) data.set(lists[i]!, offsets[i]!);
  return { offsets, data };
}

/** The terms as JSON, or, when packed, their bytes and the terms of other shapes. */
function captureTerms(store: TermStore, q: string, w: Capture): void {
  if (store instanceof HexTerms) {
    const { bytes, others } = store.packed();
    w.meta[q + 'terms.hexLength'] = store.length;
    w.add(q + 'terms.hex', 'u8', bytes);
    w.json(q + 'terms.others', others);
  } else {
    w.json(q + 'terms', Array.from({ length: store.size }, (_, o) => store.at(o)));
  }
}

function restoreTerms(q: string, count: number, r: Sections): TermStore | string[] {
  if (r.type(q + 'terms.hex') === undefined) return r.json<string[]>(q + 'terms');
  const length = r.meta[q + 'terms.hexLength'] as number;
  return HexTerms.fromPacked(length, count, r.u8(q + 'terms.hex'), r.json<[number, string][]>(q + 'terms.others'));
}

function captureDict(dict: TermDictionary, q: string, w: Capture): void {
  captureTerms(dict.termStore, q, w);
  w.add(q + 'sorted', 'u32', dict.sortedOrds().slice());
  w.add(q + 'docs', 'u32', dict.docs.toArray());
  const postings = packLists(Array.from({ length: dict.size }, (_, ord) => dict.docsOf(ord)));
  w.add(q + 'post.offsets', 'u32', postings.offsets);
  w.add(q + 'post.docs', 'u32', postings.data);
}

/**
 * Each field of a set with the prefix of its sections: `f<i>.` after the set's own prefix, so a
 * nested field's child set (captured under the field's prefix) names its sections apart.
 */
function forEachField(set: FieldSet, p: string, fn: (f: Field, q: string) => void): void {
  for (const f of set.fields) if (f) fn(f, `${p}f${f.index}.`);
}

function captureSet(set: FieldSet, p: string, w: Capture): void {
  w.meta[p + 'length'] = set.length;
  w.add(p + 'rows.data', 'u8', set.rows.data.subarray(0, set.rows.size));
  w.add(p + 'rows.offsets', 'f64', set.rows.offsets.slice(0, set.rows.count + 1));
  forEachField(set, p, (f, q) => {
    switch (f.kind) {
      case 'numeric': {
        const col = f.col;
        w.add(q + 'values', col.isInt32 ? 'i32' : 'f64', col.values.subarray(0, col.length));
        w.add(q + 'present', 'u32', col.present.slice(0, (col.length + 31) >>> 5));
        w.meta[q + 'length'] = col.length;
        w.meta[q + 'multi'] = [...col.multi].map(([d, vals]) => [d, Array.from(vals)]);
        break;
      }
      case 'keyword':
      case 'boolean':
      case 'ip':
        captureDict(f.dict, q, w);
        break;
      case 'text': {
        captureDict(f.text.dict, q, w);
        w.add(q + 'present', 'u32', f.present.toArray());
        const positions = packLists(Array.from({ length: f.text.dict.size }, (_, ord) => f.text.positionData(ord)));
        w.add(q + 'pos.offsets', 'u32', positions.offsets);
        w.add(q + 'pos.data', 'u32', positions.data);
        break;
      }
      case 'nested': {
        const n = Math.min(set.length, f.first.length);
        w.add(q + 'first', 'u32', f.first.slice(0, n));
        w.add(q + 'count', 'u32', f.count.slice(0, n));
        w.add(q + 'parentOf', 'u32', f.parentOf.slice(0, f.child.length));
        captureSet(f.child, q, w);
        break;
      }
      default:
        break;
    }
  });
}

function capture(index: PhysicalIndex): Capture {
  const w = new Capture();
  captureSet(index.root, '', w);
  w.add('ids', 'f64', index.ids.slice(0, index.docCount));
  w.add('live', 'u32', index.live.toArray());
  return w;
}

// ------------------------------------------------------------------ restore

function restoreDict(dict: TermDictionary, q: string, r: Sections): void {
  const offsets = r.u32(q + 'post.offsets');
  const docs = r.u32(q + 'post.docs');
  dict.restore(restoreTerms(q, offsets.length - 1, r), offsets, docs, Bitmap.fromSorted(r.u32(q + 'docs')), r.u32(q + 'sorted'));
}

function grown(a: Uint32Array, min: number): Uint32Array {
  const out = new Uint32Array(Math.max(16, min, a.length));
  out.set(a);
  return out;
}

function restoreSet(set: FieldSet, p: string, r: Sections): void {
  set.length = r.meta[p + 'length'] as number;
  const offsets = r.f64(p + 'rows.offsets');
  set.rows = new RowStore(r.u8(p + 'rows.data'), grownF64(offsets), set.length);
  forEachField(set, p, (f, q) => {
    switch (f.kind) {
      case 'numeric': {
        const col = f.col;
        const length = r.meta[q + 'length'] as number;
        const values = r.type(q + 'values') === 'i32' ? r.i32(q + 'values') : r.f64(q + 'values');
        const present = r.u32(q + 'present');
        const multi = r.meta[q + 'multi'] as [number, number[]][];
        col.values = values.length > 0 ? values : col.values;
        col.present = present.length > 0 ? present : col.present;
        col.length = length;
        col.multi = new Map(multi.map(([d, vals]) => [d, Float64Array.from(vals)]));
        if (col.terms) {
          col.terms.clear();
          col.rebuildTerms();
        }
        break;
      }
      case 'keyword':
      case 'boolean':
      case 'ip':
        restoreDict(f.dict, q, r);
        break;
      case 'text': {
        restoreDict(f.text.dict, q, r);
        f.present = Bitmap.fromSorted(r.u32(q + 'present'));
        const po = r.u32(q + 'pos.offsets');
        const data = r.u32(q + 'pos.data');
        const streams: Uint32Array[] = [];
        for (let i = 0; i + 1 < po.length; i++) streams.push(data.slice(po[i]!, po[i + 1]!));
        f.text.restorePositions(streams);
        break;
      }
      case 'nested': {
        f.first = grown(r.u32(q + 'first'), set.length);
        f.count = grown(r.u32(q + 'count'), set.length);
        restoreSet(f.child, q, r);
        f.parentOf = grown(r.u32(q + 'parentOf'), f.child.length);
        const parents: number[] = [];
        for (let d = 0; d < set.length; d++) if (f.count[d]! > 0) parents.push(d);
        f.parents = Bitmap.fromSorted(parents);
        break;
      }
      default:
        break;
    }
  });
}

function grownF64(a: Float64Array): Float64Array {
  const out = new Float64Array(Math.max(1024, a.length * 2));
  out.set(a);
  return out;
}

function restore(r: Sections, name: string, mapping: IndexMapping, generation: string | null, counts?: IndexCacheCounts): PhysicalIndex {
  const index = new PhysicalIndex(name, mapping, counts);
  restoreSet(index.root, '', r);
  const ids = r.f64('ids');
  index.ids = grownF64(ids);
  for (let i = 0; i < ids.length; i++) index.noteId(ids[i]!);
  const live = r.u32('live');
  index.live = Bitmap.fromSorted(live);
  index.liveCount = live.length;
  for (let i = 0; i < live.length; i++) index.idMap.set(ids[live[i]!]!, live[i]!);
  index.dirty = false;
  index.generation = generation;
  return index;
}

// ------------------------------------------------------------------ files

function align8(n: number): number {
  return (n + 7) & ~7;
}

async function writeAtomic(path: string, parts: Uint8Array[]): Promise<void> {
  const tmp = path + '.tmp';
  const fh = await open(tmp, 'w');
  try {
    for (const part of parts) {
      let off = 0;
      while (off < part.length) {
        const { bytesWritten } = await fh.write(part, off, Math.min(part.length - off, 1 << 26));
        off += bytesWritten;
      }
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
}

export interface LoadedState {
  indices: PhysicalIndex[];
  aliases: Record<string, string>;
  /** Indices whose files did not verify, each with the reason; they are left out. */
  discarded: string[];
  /** The database the files were written beside, when recorded. */
  mark?: DatabaseMark;
}

/** One log record as a line: its checksum, then its JSON. */
function logLine(record: unknown): string {
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** A log line's record, or undefined when it does not verify. */
function parseLogLine(line: string): { w?: IndexDocument; d?: number; p?: number } | undefined {
  const json = line.slice(9);
  if (line[8] !== ' ' || Number.parseInt(line.slice(0, 8), 16) !== crc32(json) || !/^[0-9a-f]{8}$/.test(line.slice(0, 8))) return undefined;
  try {
    return JSON.parse(json) as { w?: IndexDocument; d?: number; p?: number };
  } catch {
    return undefined;
  }
}

export class SnapshotStore {
  readonly dir: string;

  /** `counts`: where the caches of the indexes it loads count (the engine's, see `PhysicalIndex`). */
  constructor(
    dataDir: string,
    private readonly counts?: IndexCacheCounts,
  ) {
    this.dir = join(dataDir, 'index');
  }

  private file(name: string): string {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`invalid index name [${name}]`);
    return join(this.dir, `${name}.snap`);
  }

  async load(): Promise<LoadedState> {
    let listing: { aliases: Record<string, string>; indices: string[]; database?: DatabaseMark };
    try {
      listing = JSON.parse(await readFile(join(this.dir, 'aliases.json'), 'utf8'));
      if (typeof listing.aliases !== 'object' || !Array.isArray(listing.indices)) throw new CorruptIndexError('aliases.json is malformed');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { indices: [], aliases: {}, discarded: [] };
      // without the listing nothing can be placed: every index is rebuilt
      return { indices: [], aliases: {}, discarded: [`aliases.json: ${(e as Error).message}`] };
    }
    const indices: PhysicalIndex[] = [];
    const discarded: string[] = [];
    for (const name of listing.indices) {
      try {
        indices.push(await this.loadIndex(name));
      } catch (e) {
        discarded.push(`${name}: ${(e as Error).message}`);
      }
    }
    return { indices, aliases: listing.aliases, discarded, ...(listing.database ? { mark: listing.database } : {}) };
  }

  private async loadIndex(name: string): Promise<PhysicalIndex> {
    const buf = await readFile(this.file(name));
    if (buf.length < 16 || buf.subarray(0, 8).toString('latin1') !== MAGIC) throw new CorruptIndexError(`${name}.snap is not a snapshot of this format`);
    const headerLength = buf.readUInt32LE(8);
    const headerBytes = buf.subarray(16, 16 + headerLength);
    if (headerBytes.length !== headerLength || crc32(headerBytes) !== buf.readUInt32LE(12)) throw new CorruptIndexError(`${name}.snap header does not verify`);
    const header = JSON.parse(headerBytes.toString()) as {
      name: string;
      mapping: IndexMapping;
      generation: string;
      position: number;
      meta: Record<string, unknown>;
      sections: SectionInfo[];
    };
    const sections = new Sections(buf, align8(16 + headerLength), header.sections, header.meta);
    const index = restore(sections, header.name, header.mapping, header.generation, this.counts);
    index.position = header.position;
    await this.replayLog(index);
    return index;
  }

  private logFile(name: string, generation: string): string {
    return join(this.dir, `${name}.${generation}.log`);
  }

  /** Apply the snapshot's log; a torn last line is cut off the file, any other bad line throws. */
  private async replayLog(index: PhysicalIndex): Promise<void> {
    const file = this.logFile(index.name, index.generation!);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    const lines = text.split('\n');
    const last = lines.pop()!; // '' when the file ends with a newline
    let batch: IndexDocument[] = [];
    const apply = () => {
      if (batch.length > 0) index.write(batch);
      batch = [];
    };
    let entries = 0;
    let goodBytes = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const entry = parseLogLine(line);
      if (entry === undefined) {
        // the last complete line may be a torn append that happened to end in a newline
        if (i === lines.length - 1 && last === '') break;
        throw new CorruptIndexError(`${index.name} log line ${i + 1} does not verify`);
      }
      goodBytes += Buffer.byteLength(line) + 1;
      if (entry.w) {
        batch.push(entry.w);
        entries++;
      } else if (entry.d !== undefined) {
        apply();
        index.remove([entry.d]);
        entries++;
      } else if (entry.p !== undefined) index.position = Math.max(index.position, entry.p);
    }
    apply();
    if (goodBytes < Buffer.byteLength(text)) await truncate(file, goodBytes);
    index.pendingIds.clear();
    index.dirty = false;
    index.logEntries = entries;
  }

  /**
   * Write the changes of changed indices (log or snapshot) and the outbox `position` they cover
   * now, then the alias map with the database mark, then drop stale files. With `raise`, unchanged indices that record a
   * lower position get the new one too (the indexer applied everything up to it).
   */
  async save(
    indices: PhysicalIndex[],
    listing: { aliases: Record<string, string>; mark: DatabaseMark | undefined },
    position: number,
    raise: boolean,
  ): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    for (const index of indices) {
      if (!index.dirty && (!raise || index.position >= position)) continue;
      const changes = index.pendingIds.size;
      if (index.generation !== null && index.logEntries + changes <= Math.max(1000, index.liveCount / 10)) {
        await this.appendLog(index, position);
        continue;
      }
      const w = capture(index);
      const generation = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
      w.meta.generation = generation;
      const pending = [...index.pendingIds];
      index.dirty = false;
      index.pendingIds.clear();
      try {
        await this.writeIndex(index, w, generation, position);
      } catch (e) {
        index.dirty = true;
        for (const id of pending) index.pendingIds.add(id);
        throw e;
      }
      index.generation = generation;
      index.logEntries = 0;
      index.position = position;
    }
    const names = indices.map((i) => i.name);
    const { aliases, mark } = listing;
    await writeAtomic(join(this.dir, 'aliases.json'), [new TextEncoder().encode(JSON.stringify({ aliases, indices: names, database: mark }))]);
    const keep = new Set(names.map((n) => `${n}.snap`));
    for (const i of indices) if (i.generation !== null) keep.add(`${i.name}.${i.generation}.log`);
    for (const f of await readdir(this.dir)) {
      if (f === 'aliases.json' || keep.has(f)) continue;
      if (f.endsWith('.snap') || f.endsWith('.log') || f.endsWith('.tmp')) await rm(join(this.dir, f), { force: true });
    }
  }

  /** Append the documents changed since the last flush, then the position, to the current snapshot's log. */
  private async appendLog(index: PhysicalIndex, position: number): Promise<void> {
    const ids = [...index.pendingIds];
    const docs = index.get(ids);
    let text = '';
    for (const id of ids) {
      const doc = docs.get(id);
      text += logLine(doc ? { w: doc } : { d: id });
    }
    text += logLine({ p: position });
    index.pendingIds.clear();
    index.dirty = false;
    const file = this.logFile(index.name, index.generation!);
    try {
      await appendFile(file, text);
      const fh = await open(file, 'r+');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (e) {
      index.dirty = true;
      for (const id of ids) index.pendingIds.add(id);
      throw e;
    }
    index.logEntries += ids.length;
    index.position = position;
  }

  private async writeIndex(index: PhysicalIndex, w: Capture, generation: string, position: number): Promise<void> {
    const infos: SectionInfo[] = [];
    let offset = 0;
    for (const s of w.sections) {
      infos.push({ name: s.name, type: s.type, offset, length: s.bytes.length, crc: crc32(s.bytes) });
      offset = align8(offset + s.bytes.length);
    }
    const header = new TextEncoder().encode(
      JSON.stringify({ name: index.name, mapping: index.mapping, generation, position, meta: w.meta, sections: infos }),
    );
    const head = new Uint8Array(align8(16 + header.length));
    head.set(new TextEncoder().encode(MAGIC), 0);
    new DataView(head.buffer).setUint32(8, header.length, true);
    new DataView(head.buffer).setUint32(12, crc32(header), true);
    head.set(header, 16);
    const parts: Uint8Array[] = [head];
    let at = 0;
    for (const s of w.sections) {
      parts.push(s.bytes);
      at += s.bytes.length;
      const pad = align8(at) - at;
      if (pad > 0) parts.push(new Uint8Array(pad));
      at += pad;
    }
    await writeAtomic(this.file(index.name), parts);
  }
}
