/**
 * Content sniffing: the type of a file comes from its bytes, never from a name or a header
 * (philomena.md §8.2 item 4). Binary formats are recognised by `file-type`; SVG, which is text, by
 * our own check of the document's root element. The two corrections of the reference apply:
 * `image/svg` → `image/svg+xml` and `audio/webm` → `video/webm`.
 */
import { fileTypeFromBuffer } from 'file-type';
import { formatForMimeType, type MediaFormat, type MediaMimeType } from './formats.js';

/** How many leading bytes the SVG check looks at (prologs with long comments still fit). */
const SVG_SCAN_BYTES = 64 * 1024;

/** The reference's corrections of sniffed types. */
export function trueMimeType(mime: string): string {
  if (mime === 'image/svg') return 'image/svg+xml';
  if (mime === 'audio/webm') return 'video/webm';
  return mime;
}

/**
 * The MIME type of `bytes`, corrected as the reference does. Any type may come back, accepted or
 * not: `application/x-empty` for no bytes, `text/plain` for other text, `application/octet-stream`
 * for unrecognised binary data.
 */
export async function sniffMimeType(bytes: Uint8Array): Promise<string> {
  if (bytes.length === 0) return 'application/x-empty';
  if (isSvg(bytes)) return 'image/svg+xml';
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) return trueMimeType(detected.mime);
  return looksLikeText(bytes) ? 'text/plain' : 'application/octet-stream';
}

export interface SniffResult {
  /** The corrected MIME type, accepted or not. */
  mimeType: string;
  /** The accepted format, or null when the type is not accepted. */
  format: MediaFormat | null;
}

export async function sniff(bytes: Uint8Array): Promise<SniffResult> {
  const mimeType = await sniffMimeType(bytes);
  return { mimeType, format: formatForMimeType(mimeType) };
}

/** Like `sniff`, but only for accepted types. */
export async function sniffFormat(bytes: Uint8Array): Promise<{ mimeType: MediaMimeType; format: MediaFormat } | null> {
  const { mimeType, format } = await sniff(bytes);
  return format === null ? null : { mimeType: mimeType as MediaMimeType, format };
}

/**
 * Whether the bytes are an SVG document: (after an optional byte-order mark, XML declaration,
 * processing instructions, comments, whitespace and a DOCTYPE) the root element is `<svg` or a
 * prefixed `<x:svg`.
 */
export function isSvg(bytes: Uint8Array): boolean {
  const text = decodeHead(bytes);
  if (text === null) return false;
  let i = 0;
  const n = text.length;
  for (;;) {
    while (i < n && isXmlSpace(text.charCodeAt(i))) i++;
    if (i >= n || text[i] !== '<') return false;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end < 0) return false;
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return false;
      i = end + 3;
    } else if (text.startsWith('<!DOCTYPE', i) || text.startsWith('<!doctype', i)) {
      const end = doctypeEnd(text, i + 9);
      if (end < 0) return false;
      i = end;
    } else {
      return isSvgRootTag(text, i + 1);
    }
  }
}

function isSvgRootTag(text: string, start: number): boolean {
  let end = start;
  while (end < text.length && isNameChar(text.charCodeAt(end))) end++;
  const name = text.slice(start, end);
  const local = name.includes(':') ? name.slice(name.lastIndexOf(':') + 1) : name;
  if (local !== 'svg') return false;
  if (end >= text.length) return false;
  const next = text.charCodeAt(end);
  return isXmlSpace(next) || next === 0x3e /* > */ || next === 0x2f /* / */;
}

/** Index just past a DOCTYPE declaration, skipping an internal subset in brackets and quoted strings. */
function doctypeEnd(text: string, from: number): number {
  let depth = 0;
  let quote = '';
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '[') {
      depth++;
    } else if (c === ']') {
      depth--;
    } else if (c === '>' && depth <= 0) {
      return i + 1;
    }
  }
  return -1;
}

function decodeHead(bytes: Uint8Array): string | null {
  const head = bytes.subarray(0, SVG_SCAN_BYTES);
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return decode('utf-16be', head.subarray(2));
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return decode('utf-16le', head.subarray(2));
  const body = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head;
  // Quick reject: the first non-space byte of an XML/SVG document is '<'.
  let k = 0;
  while (k < body.length && isXmlSpace(body[k] ?? 0)) k++;
  if (k >= body.length || body[k] !== 0x3c) return null;
  return decode('utf-8', body);
}

function decode(encoding: string, bytes: Uint8Array): string | null {
  try {
    // Not fatal: the scanned head may end in the middle of a multi-byte character.
    return new TextDecoder(encoding).decode(bytes);
  } catch {
    return null;
  }
}

function isXmlSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isNameChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x3a ||
    c === 0x5f ||
    c === 0x2d ||
    c === 0x2e ||
    c > 0x7f
  );
}

/** No NUL bytes and mostly printable in the first 8 KiB. */
function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8192);
  let control = 0;
  for (const b of head) {
    if (b === 0) return false;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
  }
  return control * 10 < head.length;
}
