import type { FieldMapping } from '../../mapping.js';
import { CacheCounts } from '../../../lib/cache-registry.js';
import { Bitmap } from '../postings/bitmap.js';
import { NumericColumn } from '../columns/columns.js';
import { ipKey, isPlainObject, toEpochMillis } from '../../../../grammar/index.js';
import { TermDictionary } from '../terms/term-dictionary.js';
import { ByteReader, ByteWriter, RowStore } from '../store/row-store.js';
import { TextField } from '../terms/text-index.js';
import { parseFail, Shape, toNumber, toTerm, type NumericType, type TermKind } from './field-values.js';

/*
 * A FieldSet indexes and stores the fields of one document space: the root documents of an
 * index, or the objects of one nested path (each object is a document of its own, with a pointer
 * to its parent). Object fields are flattened to dotted paths (`image.tags`).
 */

interface Base {
  /** Position in `FieldSet.fields` (≥ 1; 0 is the extras entry). */
  index: number;
  path: string;
  segments: string[];
  /** Multi-fields indexed from this field's values (`analyzed_name.nlp`). */
  subfields: LeafField[];
  /** Set on a multi-field: it has no stored entry of its own. */
  multiOf?: LeafField;
}

export interface NumericField extends Base {
  kind: 'numeric';
  type: NumericType;
  col: NumericColumn;
}

export interface TermField extends Base {
  kind: TermKind;
  dict: TermDictionary;
}

export interface TextFieldDef extends Base {
  kind: 'text';
  text: TextField;
  /** Documents with a non-null value (even one without tokens). */
  present: Bitmap;
}

export interface ObjectField extends Base {
  kind: 'object';
}

export interface NestedField extends Base {
  kind: 'nested';
  child: FieldSet;
  /** First child and number of children of each parent document. */
  first: Uint32Array;
  count: Uint32Array;
  /** Parent of each child document. */
  parentOf: Uint32Array;
  /** Parents with at least one child. */
  parents: Bitmap;
}

export type LeafField = NumericField | TermField | TextFieldDef;
export type Field = LeafField | ObjectField | NestedField;

function growU32(a: Uint32Array, index: number): Uint32Array {
  if (index < a.length) return a;
  let cap = Math.max(16, a.length * 2);
  while (cap <= index) cap *= 2;
  const next = new Uint32Array(cap);
  next.set(a);
  return next;
}

/** The two shapes of `Date.prototype.toISOString()` text (with and without milliseconds), years 0–9999. */
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ISO_S = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export class FieldSet {
  readonly fields: Field[] = [undefined as never];
  readonly byPath = new Map<string, Field>();
  rows = new RowStore();
  private readonly writer = new ByteWriter(1024);
  private readonly scratch: DocValues = { raw: new Map() };
  /** Number of documents (one more than the largest document number). */
  length = 0;

  /** Path prefix of the fields (`galleries.` for the objects of nested field `galleries`). */
  readonly base: string;

  /** `unionCounts`: where its dictionaries count the hits of their kept unions (see `PhysicalIndex`). */
  constructor(
    properties: Record<string, FieldMapping>,
    prefix = '',
    private readonly unionCounts = new CacheCounts(),
  ) {
    this.base = prefix;
    this.register(properties, prefix);
  }

  private register(properties: Record<string, FieldMapping>, prefix: string, parent?: LeafField): void {
    for (const [name, m] of Object.entries(properties)) {
      const path = prefix + name;
      const f = this.makeField(path, m);
      if (parent) {
        (f as LeafField).multiOf = parent;
        parent.subfields.push(f as LeafField);
      }
      f.index = this.fields.length;
      this.fields.push(f);
      this.byPath.set(path, f);
      if (m.type === 'object') this.register(m.properties, path + '.');
      if (m.type === 'text' && m.fields) this.register(m.fields, path + '.', f as LeafField);
    }
  }

  private makeField(path: string, m: FieldMapping): Field {
    const base = { index: 0, path, segments: path.slice(this.base.length).split('.'), subfields: [] as LeafField[] };
    switch (m.type) {
      case 'integer':
      case 'long':
      case 'float':
      case 'date':
        return { ...base, kind: 'numeric', type: m.type, col: new NumericColumn(m.type === 'integer', false, m.type === 'float') };
      case 'keyword':
      case 'boolean':
      case 'ip':
        return { ...base, kind: m.type, dict: new TermDictionary(this.unionCounts) };
      case 'text':
        return { ...base, kind: 'text', text: new TextField(m.analyzer, this.unionCounts), present: new Bitmap() };
      case 'object':
        return { ...base, kind: 'object' };
      case 'nested': {
        const child = new FieldSet(m.properties, path + '.', this.unionCounts);
        // id-like integer fields of nested objects get a value → documents index
        for (const f of child.fields) {
          if (f && f.kind === 'numeric' && f.type !== 'date' && f.type !== 'float' && f.path.endsWith('.id')) {
            f.col = new NumericColumn(f.type === 'integer', true);
          }
        }
        return {
          ...base,
          kind: 'nested',
          child,
          first: new Uint32Array(16),
          count: new Uint32Array(16),
          parentOf: new Uint32Array(16),
          parents: new Bitmap(),
        };
      }
      default:
        throw new Error(`Unsupported mapping type: ${(m as { type: string }).type}`);
    }
  }

  /** Leaf fields under an object path (or the field itself). */
  leavesUnder(path: string): Field[] {
    const out: Field[] = [];
    for (const f of this.fields) if (f && (f.path === path || f.path.startsWith(path + '.'))) out.push(f);
    return out;
  }

  // ------------------------------------------------------------------ indexing

  /** Index and store `src` as document `doc` (= this.length). */
  addDoc(doc: number, src: Record<string, unknown>): void {
    if (doc !== this.length) throw new Error(`documents must be added in order (${doc}, expected ${this.length})`);
    const w = this.writer;
    w.len = 0;
    const values = this.scratch;
    values.raw.clear();
    const extras: Record<string, unknown> = {};
    try {
      this.visit(doc, src, this.base, w, values, extras);
    } catch (e) {
      // the number is spent: terms interned so far stay, the document is never live
      this.length = doc + 1;
      this.rows.put(doc, new Uint8Array(0));
      throw e;
    }
    this.length = doc + 1;
    for (const [f, vals] of values.raw) this.indexRaw(doc, f, vals);
    for (const _ in extras) {
      w.varint(0);
      w.byte(Shape.Json);
      w.string(JSON.stringify(extras));
      break;
    }
    this.rows.put(doc, w.result());
  }

  private internRaw(f: TermField, x: unknown): number {
    if (typeof x === 'number' && f.kind === 'keyword' && Number.isFinite(x)) return f.dict.internNumber(x);
    const term = toTerm(f.kind, x);
    if (term === undefined || term === null) parseFail(f, x, f.kind);
    if (f.kind === 'ip' && ipKey(term) === undefined) parseFail(f, x, 'ip');
    return f.dict.intern(term);
  }

  private visit(
    doc: number,
    obj: Record<string, unknown>,
    prefix: string,
    w: ByteWriter,
    values: DocValues,
    extras: Record<string, unknown>,
  ): void {
    for (const key in obj) {
      const v = obj[key];
      if (v === undefined) continue;
      const path = prefix === '' ? key : prefix + key;
      const f = this.byPath.get(path);
      if (!f || f.multiOf) {
        extras[path.slice(this.base.length)] = v;
        continue;
      }
      switch (f.kind) {
        case 'object':
          if (v === null) {
            w.varint(f.index);
            w.byte(Shape.Null);
          } else if (isPlainObject(v)) {
            w.varint(f.index);
            w.byte(Shape.Object);
            this.visit(doc, v, path + '.', w, values, extras);
          } else if (Array.isArray(v)) {
            extras[path.slice(this.base.length)] = v;
            for (const el of v) if (isPlainObject(el)) this.collect(el, path + '.', values);
          } else parseFail(f, v, 'object');
          break;
        case 'nested':
          this.addNested(doc, f, v, w);
          break;
        default:
          this.storeLeaf(doc, f, v, w, values, extras);
      }
    }
  }

  /** Index-only walk of an object inside an array of objects (stored verbatim as an extra). */
  private collect(obj: Record<string, unknown>, prefix: string, values: DocValues): void {
    for (const key in obj) {
      const v = obj[key];
      const f = this.byPath.get(prefix + key);
      if (!f || v === undefined || v === null || f.multiOf) continue;
      if (f.kind === 'object') {
        const items = Array.isArray(v) ? v : [v];
        for (const el of items) if (isPlainObject(el)) this.collect(el, prefix + key + '.', values);
      } else if (f.kind !== 'nested') {
        this.pushRaw(f, v, values);
      }
    }
  }

  private pushRaw(f: LeafField, v: unknown, values: DocValues): void {
    let list = values.raw.get(f);
    if (!list) values.raw.set(f, (list = []));
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && x !== undefined) list.push(x);
    } else if (v !== null) list.push(v);
    for (const sub of f.subfields) this.pushRaw(sub, v, values);
  }

  private storeLeaf(doc: number, f: LeafField, v: unknown, w: ByteWriter, values: DocValues, extras: Record<string, unknown>): void {
    if (v === null) {
      w.varint(f.index);
      w.byte(Shape.Null);
      return;
    }
    if (f.kind === 'numeric') {
      if (typeof v === 'number' && Number.isFinite(v) && (Number.isInteger(v) || f.type === 'float')) {
        // the common case: the column holds the value and there is no stored entry
        f.col.setOne(doc, v);
        return;
      }
      w.varint(f.index);
      if (f.type === 'date' && typeof v === 'string') {
        const ms = toEpochMillis(v);
        if (ms === ms && ISO_MS.test(v)) {
          // exactly what toISOString() gives back: the column holds it all
          w.byte(Shape.DateIso);
          f.col.setOne(doc, ms);
          return;
        }
        if (ms === ms && ISO_S.test(v) && ms % 1000 === 0) {
          w.byte(Shape.DateIsoS);
          f.col.setOne(doc, ms);
          return;
        }
        w.byte(Shape.Json);
        w.string(JSON.stringify(v));
      } else if (v instanceof Date) w.byte(Shape.DateObj);
      else {
        w.byte(Shape.Json);
        w.string(JSON.stringify(v));
      }
      this.pushRaw(f, v, values);
      return;
    }
    if (f.kind === 'text') {
      if (typeof v === 'string') {
        w.varint(f.index);
        w.byte(Shape.Scalar);
        w.string(v);
      } else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
        w.varint(f.index);
        w.byte(Shape.Array);
        w.varint(v.length);
        for (const x of v) w.string(x);
      } else extras[f.segments.join('.')] = v;
      this.pushRaw(f, v, values);
      return;
    }
    // keyword, boolean, ip: items are stored as term ordinals with their JSON kind, and go
    // straight to the dictionary's pending postings
    if (!Array.isArray(v)) {
      const ord = this.internRaw(f, v);
      w.varint(f.index);
      w.byte(Shape.Scalar);
      w.varint(ord * 4 + (typeof v === 'string' ? 0 : typeof v === 'number' ? 1 : 2));
      f.dict.addOne(doc, ord);
    } else {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (x !== null && typeof x === 'object') {
          extras[f.segments.join('.')] = v;
          this.pushRaw(f, v, values);
          return;
        }
      }
      w.varint(f.index);
      w.byte(Shape.Array);
      w.varint(v.length);
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (x === null || x === undefined) {
          w.varint(3);
          continue;
        }
        const ord = this.internRaw(f, x);
        w.varint(ord * 4 + (typeof x === 'string' ? 0 : typeof x === 'number' ? 1 : 2));
        f.dict.addOne(doc, ord);
      }
    }
    for (const sub of f.subfields) this.pushRaw(sub, v, values);
  }

  private indexRaw(doc: number, f: LeafField, vals: unknown[]): void {
    if (f.kind === 'numeric') {
      if (vals.length === 0) return;
      const nums: number[] = [];
      for (const x of vals) {
        const n = toNumber(f.type, x);
        if (!Number.isFinite(n)) parseFail(f, x, f.type);
        nums.push(f.type === 'integer' || f.type === 'long' ? Math.trunc(n) : n);
      }
      f.col.set(doc, nums);
    } else if (f.kind === 'text') {
      if (vals.length === 0) return;
      f.present.append(doc);
      const texts: string[] = [];
      for (const x of vals) texts.push(typeof x === 'string' ? x : String(x));
      f.text.add(doc, texts);
    } else {
      for (const x of vals) f.dict.addOne(doc, this.internRaw(f, x));
    }
  }

  private addNested(doc: number, f: NestedField, v: unknown, w: ByteWriter): void {
    w.varint(f.index);
    if (v === null) {
      w.byte(Shape.Null);
      return;
    }
    const items = Array.isArray(v) ? v : [v];
    if (!items.every(isPlainObject)) parseFail(f, v, 'nested');
    if (Array.isArray(v)) {
      w.byte(Shape.Nested);
      w.varint(items.length);
    } else w.byte(Shape.NestedOne);
    const start = f.child.length;
    f.first = growU32(f.first, doc);
    f.count = growU32(f.count, doc);
    f.first[doc] = start;
    f.count[doc] = items.length;
    for (const item of items as Record<string, unknown>[]) {
      const c = f.child.length;
      f.parentOf = growU32(f.parentOf, c);
      f.parentOf[c] = doc;
      f.child.addDoc(c, item);
    }
    if (items.length > 0) f.parents.append(doc);
  }

  // ------------------------------------------------------------------ stored documents

  /** The document as it was written (up to key order). */
  decode(doc: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const r = this.rows.reader(doc);
    const seen = new Set<number>();
    while (!r.done) {
      const index = r.varint();
      const shape = r.byte() as Shape;
      if (index === 0) {
        const extras = JSON.parse(r.string()) as Record<string, unknown>;
        for (const [path, v] of Object.entries(extras)) setPath(out, path.split('.'), v);
        continue;
      }
      const f = this.fields[index]!;
      seen.add(index);
      setPath(out, f.segments, this.decodeEntry(doc, f, shape, r));
    }
    for (const f of this.fields) {
      if (f && f.kind === 'numeric' && !f.multiOf && !seen.has(f.index) && f.col.has(doc)) {
        setPath(out, f.segments, f.col.min(doc));
      }
    }
    return out;
  }

  private decodeEntry(doc: number, f: Field, shape: Shape, r: ByteReader): unknown {
    switch (shape) {
      case Shape.Null:
        return null;
      case Shape.Object:
        return {};
      case Shape.Json:
        return JSON.parse(r.string());
      case Shape.DateIso:
        return new Date((f as NumericField).col.min(doc)!).toISOString();
      case Shape.DateIsoS:
        return new Date((f as NumericField).col.min(doc)!).toISOString().slice(0, -5) + 'Z';
      case Shape.DateObj:
        return new Date((f as NumericField).col.min(doc)!);
      case Shape.Nested:
      case Shape.NestedOne: {
        const nf = f as NestedField;
        const n = shape === Shape.Nested ? r.varint() : 1;
        const items: unknown[] = [];
        for (let i = 0; i < n; i++) items.push(nf.child.decode(nf.first[doc]! + i));
        return shape === Shape.Nested ? items : items[0];
      }
      case Shape.Scalar:
        return f.kind === 'text' ? r.string() : this.decodeItem(f as TermField, r.varint());
      case Shape.Array: {
        const n = r.varint();
        const items: unknown[] = [];
        for (let i = 0; i < n; i++) items.push(f.kind === 'text' ? r.string() : this.decodeItem(f as TermField, r.varint()));
        return items;
      }
      default:
        throw new Error(`corrupt stored record (shape ${String(shape)})`);
    }
  }

  private decodeItem(f: TermField, item: number): unknown {
    const kind = item % 4;
    if (kind === 3) return null;
    const term = f.dict.termAt(Math.floor(item / 4));
    return kind === 0 ? term : kind === 1 ? Number(term) : term === 'true';
  }

  /**
   * Term ordinals of a keyword-like field in a document's stored record (for sorting by a
   * keyword field and for rebuilding), or null when the field has no entry.
   */
  storedOrds(doc: number, f: TermField): number[] | null {
    const r = this.rows.reader(doc);
    while (!r.done) {
      const index = r.varint();
      const shape = r.byte() as Shape;
      if (index === f.index && (shape === Shape.Scalar || shape === Shape.Array)) {
        const n = shape === Shape.Array ? r.varint() : 1;
        const out: number[] = [];
        for (let i = 0; i < n; i++) {
          const item = r.varint();
          if (item % 4 !== 3) out.push(Math.floor(item / 4));
        }
        return out;
      }
      this.skipEntry(index, shape, r);
    }
    return null;
  }

  private skipEntry(index: number, shape: Shape, r: ByteReader): void {
    const f = this.fields[index];
    switch (shape) {
      case Shape.Json:
        r.string();
        return;
      case Shape.Nested:
        r.varint();
        return;
      case Shape.Scalar:
        if (f?.kind === 'text') r.string();
        else r.varint();
        return;
      case Shape.Array: {
        const n = r.varint();
        for (let i = 0; i < n; i++) {
          if (f?.kind === 'text') r.string();
          else r.varint();
        }
        return;
      }
      default:
        return;
    }
  }

  trim(): void {
    this.rows.trim();
    for (const f of this.fields) {
      if (!f) continue;
      if (f.kind === 'keyword' || f.kind === 'boolean' || f.kind === 'ip') f.dict.trim();
      else if (f.kind === 'numeric') f.col.trim();
      else if (f.kind === 'text') f.text.trim();
      else if (f.kind === 'nested') {
        f.child.trim();
        f.first = f.first.slice(0, Math.max(1, this.length));
        f.count = f.count.slice(0, Math.max(1, this.length));
        f.parentOf = f.parentOf.slice(0, Math.max(1, f.child.length));
      }
    }
  }

  byteSize(): number {
    let n = 0;
    for (const bytes of this.byteSizes().values()) n += bytes;
    return n;
  }

  /**
   * Bytes by structure: `rows` (stored records), `<path> column`, `<path> terms`,
   * `<path> postings`, `<path> other` (a dictionary's orders and caches), `<path> text`
   * (analyzed text with positions), nested paths' links and their children's structures.
   */
  byteSizes(into = new Map<string, number>()): Map<string, number> {
    const add = (key: string, bytes: number) => into.set(key, (into.get(key) ?? 0) + bytes);
    add(this.base === '' ? 'rows' : `${this.base}rows`, this.rows.byteSize());
    for (const f of this.fields) {
      if (!f) continue;
      if (f.kind === 'numeric') add(`${f.path} column`, f.col.byteSize());
      else if (f.kind === 'keyword' || f.kind === 'boolean' || f.kind === 'ip') {
        const b = f.dict.byteSizes();
        add(`${f.path} terms`, b.terms);
        add(`${f.path} postings`, b.postings);
        add(`${f.path} other`, b.other);
      } else if (f.kind === 'text') add(`${f.path} text`, f.text.byteSize());
      else if (f.kind === 'nested') {
        add(`${f.path} links`, f.first.byteLength + f.count.byteLength + f.parentOf.byteLength + f.parents.byteSize());
        f.child.byteSizes(into);
      }
    }
    return into;
  }
}

interface DocValues {
  /**
   * Values indexed once the document is read: numeric values that are not plain numbers, texts,
   * multi-fields, and fields reached through arrays of objects.
   */
  raw: Map<LeafField, unknown[]>;
}

function setPath(obj: Record<string, unknown>, segments: string[], value: unknown): void {
  let o = obj;
  for (let i = 0; i < segments.length - 1; i++) {
    const k = segments[i]!;
    let next = o[k];
    if (!isPlainObject(next)) {
      next = {};
      o[k] = next;
    }
    o = next as Record<string, unknown>;
  }
  const last = segments[segments.length - 1]!;
  const existing = o[last];
  if (isPlainObject(existing) && isPlainObject(value)) Object.assign(existing, value);
  else o[last] = value;
}
