/**
 * Stored fields: one variable-length byte record per document in a growable buffer, with an
 * offset per document. Records hold what the columns and term dictionaries cannot give back
 * (term ordinals and their JSON types, texts, nulls, unusual shapes); see
 * `index/field-values.ts` for the record layout. Also the byte reader and writer used for records
 * and snapshots.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class ByteWriter {
  buf: Uint8Array;
  len = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  private ensure(extra: number): void {
    const need = this.len + extra;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }

  /** Unsigned integer up to 2^53, 7 bits per byte. */
  varint(v: number): void {
    this.ensure(8);
    while (v >= 0x80) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
  }

  string(s: string): void {
    // worst case 3 bytes per UTF-16 unit, after a length of at most 5 bytes
    this.ensure(5 + s.length * 3);
    const start = this.len;
    const { written } = encoder.encodeInto(s, this.buf.subarray(start + 5));
    let v = written;
    while (v >= 0x80) {
      this.buf[this.len++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.len++] = v;
    this.buf.copyWithin(this.len, start + 5, start + 5 + written);
    this.len += written;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  result(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

export class ByteReader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  byte(): number {
    return this.buf[this.pos++]!;
  }

  varint(): number {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = this.buf[this.pos++]!;
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
  }

  string(): string {
    const n = this.varint();
    const s = decoder.decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }
}

/** Records by document number, appended in document order. */
export class RowStore {
  data: Uint8Array;
  /** Record of document d is data[offsets[d], offsets[d + 1]). */
  offsets: Float64Array;
  count = 0;
  size = 0;

  constructor(data?: Uint8Array, offsets?: Float64Array, count = 0) {
    this.data = data ?? new Uint8Array(1 << 12);
    this.offsets = offsets ?? new Float64Array(1024);
    this.count = count;
    this.size = count > 0 ? this.offsets[count]! : 0;
  }

  /** Append the record of document `doc` (documents without a record get empty ones). */
  put(doc: number, record: Uint8Array): void {
    while (this.count < doc) this.pushOffsetEnd();
    const need = this.size + record.length;
    if (need > this.data.length) {
      // doubling while small, then by a quarter (a few hundred MB of records must not double)
      let cap = this.data.length < 1 << 26 ? Math.max(1 << 12, this.data.length * 2) : Math.ceil(this.data.length * 1.25);
      while (cap < need) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.data.subarray(0, this.size));
      this.data = next;
    }
    this.data.set(record, this.size);
    this.size = need;
    this.pushOffsetEnd();
  }

  private pushOffsetEnd(): void {
    if (this.count + 2 > this.offsets.length) {
      const next = new Float64Array(this.offsets.length * 2);
      next.set(this.offsets);
      this.offsets = next;
    }
    this.count++;
    this.offsets[this.count] = this.size;
  }

  reader(doc: number): ByteReader {
    if (doc >= this.count) return new ByteReader(this.data, 0, 0);
    return new ByteReader(this.data, this.offsets[doc]!, this.offsets[doc + 1]!);
  }

  record(doc: number): Uint8Array {
    if (doc >= this.count) return new Uint8Array(0);
    return this.data.subarray(this.offsets[doc]!, this.offsets[doc + 1]!);
  }

  /** Give back the room grown ahead of appends (after a bulk load). */
  trim(): void {
    if (this.data.length > this.size) this.data = this.data.slice(0, this.size);
    if (this.offsets.length > this.count + 2) this.offsets = this.offsets.slice(0, this.count + 2);
  }

  byteSize(): number {
    return this.data.byteLength + this.offsets.byteLength;
  }
}
