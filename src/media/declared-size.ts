/**
 * The pixel size an image declares in its first bytes, read as the bytes stream in, so that an
 * image over the pixel limit is refused before the rest of it is received or buffered.
 *
 * Where each format states its size:
 * - PNG: the IHDR chunk, which must come first (bytes 16–23, big-endian width then height), and
 *   whose CRC must hold (bytes that merely start like a PNG are left to the sniffer);
 * - GIF: the logical screen descriptor (bytes 6–9, little-endian width then height), the canvas
 *   every frame is drawn on;
 * - WebP: the first chunk after the RIFF header: `VP8 ` (the key frame's 14-bit sizes after its
 *   start code), `VP8L` (14-bit sizes minus one after the signature byte) or `VP8X` (24-bit canvas
 *   sizes minus one);
 * - JPEG: the first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC: C4, C8, CC), after
 *   any number of other segments (EXIF, ICC profiles, comments), whose payloads are skipped by
 *   their length without being held.
 *
 * The reader never holds more than the bytes of the segment header it is looking at (a few dozen),
 * whatever the size of the segments it skips. It is written here rather than taken from a library
 * because the libraries that read sizes from a buffer want the whole header region in one buffer
 * (a JPEG's EXIF and ICC segments can be hundreds of KB), and the common one reads only SOF0–SOF2,
 * so an arithmetic-coded or lossless JPEG would pass unread. It answers a size only; whether the
 * file is otherwise valid is for the full analysis (analyze.ts) to judge.
 */
import { crc32 } from 'node:zlib';

export type DeclaredFormat = 'png' | 'gif' | 'webp' | 'jpg';

export interface DeclaredSize {
  format: DeclaredFormat;
  width: number;
  height: number;
}

/**
 * Bytes of a JPEG read before the reader gives up looking for its frame header (markers and
 * skipped segments included): beyond this, the full analysis decides.
 */
export const MAX_JPEG_HEADER_BYTES = 4 * 1024 * 1024;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const startsWith = (b: Uint8Array, bytes: readonly number[], at = 0) => bytes.every((x, i) => b[at + i] === x);
const ascii = (b: Uint8Array, at: number, text: string) => [...text].every((ch, i) => b[at + i] === ch.charCodeAt(0));
const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);

/** A JPEG marker that carries a frame header (SOFn): C0–CF except C4 (DHT), C8 (JPG), CC (DAC). */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/** JPEG markers that stand alone, without a length: TEM and RST0–RST7. */
const isStandalone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);

/** What a parse of the held bytes found: a size, `null` (no size can be read), or more bytes needed. */
type Found = DeclaredSize | null | 'more';

/**
 * Feed it the stream's chunks in order; `push` answers the declared size as soon as the bytes
 * hold it, `null` once it is clear that they never will (not one of the four formats, a header out
 * of order, a JPEG whose frame header is too far in), and `undefined` while more bytes are needed.
 */
export class DeclaredSizeReader {
  /** The bytes held: the file's start until the format is known, then (JPEG) the current marker on. */
  #held = new Uint8Array(0);
  /** JPEG: bytes of a segment's payload still to pass over. */
  #skip = 0;
  /** Bytes of the file consumed before `#held` begins (JPEG). */
  #offset = 0;
  #format: DeclaredFormat | null | undefined;
  #answer: DeclaredSize | null | undefined;

  get answer(): DeclaredSize | null | undefined {
    return this.#answer;
  }

  push(chunk: Uint8Array): DeclaredSize | null | undefined {
    if (this.#answer !== undefined) return this.#answer;
    let bytes = chunk;
    if (this.#skip > 0) {
      const passed = Math.min(this.#skip, bytes.length);
      this.#skip -= passed;
      this.#offset += passed;
      bytes = bytes.subarray(passed);
    }
    if (bytes.length > 0) {
      const joined = new Uint8Array(this.#held.length + bytes.length);
      joined.set(this.#held);
      joined.set(bytes, this.#held.length);
      this.#held = joined;
    }
    const found = this.#parse();
    if (found !== 'more') this.#answer = found;
    else if (this.#offset + this.#held.length > MAX_JPEG_HEADER_BYTES) this.#answer = null;
    return this.#answer;
  }

  #parse(): Found {
    const b = this.#held;
    if (this.#format === undefined) {
      if (b.length < 12) return startsWithAnyPrefix(b) ? 'more' : null;
      this.#format = formatOf(b);
      if (this.#format === null) return null;
      if (this.#format === 'jpg') this.#consume(2); // SOI
    }
    switch (this.#format) {
      case 'png':
        // IHDR: length (4), type (4), data (13), CRC (4); a header that fails its CRC is not believed
        if (b.length < 33) return 'more';
        if (!ascii(b, 12, 'IHDR') || crc32(b.subarray(12, 29)) !== u32be(b, 29)) return null;
        return { format: 'png', width: u32be(b, 16), height: u32be(b, 20) };
      case 'gif':
        return { format: 'gif', width: u16le(b, 6), height: u16le(b, 8) };
      case 'webp':
        return webpSize(b);
      case 'jpg':
        return this.#jpegSize();
      default:
        return null;
    }
  }

  /** Walks the JPEG's segments from `#held`'s start, skipping payloads, up to the frame header. */
  #jpegSize(): Found {
    for (;;) {
      const b = this.#held;
      // fill bytes (any number of 0xFF) may precede a marker
      let at = 0;
      while (at < b.length && b[at] === 0xff) at++;
      if (at === b.length) return 'more';
      if (at === 0) return null; // not a marker where one must be
      const marker = b[at]!;
      if (marker === 0xd9 || marker === 0xda) return null; // the image ended or its scan began: no frame header
      if (isStandalone(marker)) {
        this.#consume(at + 1);
        continue;
      }
      if (b.length < at + 3) return 'more';
      const length = u16be(b, at + 1);
      if (length < 2) return null;
      if (isStartOfFrame(marker)) {
        // length, precision (1 byte), height, width
        if (b.length < at + 8) return 'more';
        return { format: 'jpg', height: u16be(b, at + 4), width: u16be(b, at + 6) };
      }
      const end = at + 1 + length;
      if (end <= b.length) {
        this.#consume(end);
      } else {
        this.#skip = end - b.length;
        this.#consume(b.length);
        return 'more';
      }
    }
  }

  #consume(n: number): void {
    this.#offset += n;
    this.#held = this.#held.subarray(n);
  }
}

const PREFIXES: readonly (readonly number[])[] = [PNG_SIGNATURE, [0x47, 0x49, 0x46, 0x38], [0x52, 0x49, 0x46, 0x46], [0xff, 0xd8, 0xff]];

/** Whether fewer than 12 bytes could still be the start of one of the formats. */
function startsWithAnyPrefix(b: Uint8Array): boolean {
  return PREFIXES.some((p) => startsWith(b, p.slice(0, Math.min(p.length, b.length))));
}

function formatOf(b: Uint8Array): DeclaredFormat | null {
  if (startsWith(b, PNG_SIGNATURE)) return 'png';
  if (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) return 'gif';
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) return 'webp';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpg';
  return null;
}

function webpSize(b: Uint8Array): Found {
  if (b.length < 30) return 'more';
  if (ascii(b, 12, 'VP8 ')) {
    // frame tag (3 bytes) at 20, start code 9D 01 2A at 23, then 14-bit width and height
    if (!startsWith(b, [0x9d, 0x01, 0x2a], 23)) return null;
    return { format: 'webp', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  }
  if (ascii(b, 12, 'VP8L')) {
    if (b[20] !== 0x2f) return null;
    const bits = (b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)) >>> 0;
    return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (ascii(b, 12, 'VP8X')) return { format: 'webp', width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  return null;
}
