/**
 * The size an image declares in its first bytes (src/media/declared-size.ts), against what libvips
 * reads from the whole file: images of each format written by sharp (a JPEG behind EXIF, XMP and an
 * ICC profile, progressive and baseline; lossy, lossless and extended WebP; PNG; GIF), fed whole,
 * one byte at a time and in odd chunks; hand-written frame headers libvips cannot write
 * (arithmetic-coded SOF10, lossless SOF3); and what it refuses to guess.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DeclaredSizeReader, MAX_JPEG_HEADER_BYTES, type DeclaredSize } from '../../src/media/declared-size.js';
import { IntakeGuard } from '../../src/media/intake-guard.js';
import { bombPng } from '../media/helpers.js';

function readInChunks(bytes: Uint8Array, size: number): { answer: DeclaredSize | null | undefined; fedBytes: number } {
  const reader = new DeclaredSizeReader();
  let fedBytes = 0;
  for (let at = 0; at < bytes.length; at += size) {
    const answer = reader.push(bytes.subarray(at, at + size));
    fedBytes = Math.min(bytes.length, at + size);
    if (answer !== undefined) return { answer, fedBytes };
  }
  return { answer: reader.answer, fedBytes };
}

const noise = (width: number, height: number) => {
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
  return sharp(data, { raw: { width, height, channels: 3 } });
};

const samples: Array<[string, () => Promise<Buffer>]> = [
  ['PNG', () => noise(301, 17).png().toBuffer()],
  ['GIF', () => noise(40, 333).gif().toBuffer()],
  ['baseline JPEG behind EXIF, XMP and an ICC profile', () => noise(640, 123).withMetadata({ icc: 'p3', exif: { IFD0: { Copyright: 'x'.repeat(20_000) } } }).withXmp(`<x:xmpmeta xmlns:x="adobe:ns:meta/">${'y'.repeat(30_000)}</x:xmpmeta>`).jpeg().toBuffer()],
  ['progressive JPEG', () => noise(99, 1001).jpeg({ progressive: true }).toBuffer()],
  ['lossy WebP', () => noise(257, 65).webp().toBuffer()],
  ['lossless WebP', () => noise(16_383, 2).webp({ lossless: true }).toBuffer()],
  ['extended WebP (alpha)', () => noise(70, 31).ensureAlpha(0.5).webp().toBuffer()],
];

describe('the declared size', () => {
  for (const [name, make] of samples) {
    it(`of a ${name} is what libvips reads, whole, byte by byte and in odd chunks`, async () => {
      const bytes = await make();
      const meta = await sharp(bytes).metadata();
      const expected = { width: meta.width, height: meta.height };
      for (const size of [bytes.length, 1, 7, 4093]) {
        const { answer } = readInChunks(bytes, size);
        expect(answer, `chunks of ${size}`).toMatchObject(expected);
      }
    });
  }

  it('is known from a PNG’s first 33 bytes and a JPEG’s frame header, not from the rest', async () => {
    const png = bombPng(16_000, 16_000, true);
    expect(readInChunks(png, 1)).toEqual({ answer: { format: 'png', width: 16_000, height: 16_000 }, fedBytes: 33 });
    const jpeg = await noise(640, 480).withMetadata({ icc: 'p3' }).jpeg().toBuffer();
    const { fedBytes } = readInChunks(jpeg, 1);
    const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
    expect(fedBytes).toBeLessThan(sos);
  });

  it('reads frame headers of every SOFn, arithmetic-coded and lossless included, after fill bytes and a restart marker', () => {
    const app0 = [0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0];
    for (const sof of [0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]) {
      // height 0x3A98 = 15000, width 0x4E20 = 20000
      const jpeg = Uint8Array.from([0xff, 0xd8, ...app0, 0xff, 0xff, 0xd0, 0xff, sof, 0x00, 0x0b, 0x08, 0x3a, 0x98, 0x4e, 0x20, 0x01, 0x01, 0x11, 0x00]);
      expect(readInChunks(jpeg, 3).answer, sof.toString(16)).toEqual({ format: 'jpg', width: 20_000, height: 15_000 });
    }
    // DHT (C4) is not a frame header: its payload is skipped
    const dhtFirst = Uint8Array.from([0xff, 0xd8, 0xff, 0xc4, 0x00, 0x06, 0xc0, 0xc0, 0xc0, 0xc0, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x02, 0x00, 0x03, 0x01, 0x01, 0x11, 0x00]);
    expect(readInChunks(dhtFirst, 1).answer).toEqual({ format: 'jpg', width: 3, height: 2 });
  });

  it('answers null for what it cannot read, and undefined while a prefix could still be an image', () => {
    expect(readInChunks(Buffer.from('GIF8'), 4).answer).toBeUndefined();
    expect(readInChunks(Buffer.from('hello, this is text'), 100).answer).toBeNull();
    expect(readInChunks(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 100).answer).toBeNull();
    // a PNG whose first chunk is not IHDR; a JPEG whose scan begins before any frame header
    const png = bombPng(10, 10, false);
    png.write('IDAT', 12, 'latin1');
    expect(readInChunks(png, 100).answer).toBeNull();
    // a PNG whose IHDR fails its CRC (bytes that only start like a PNG)
    const garbled = Buffer.concat([bombPng(10, 10, false).subarray(0, 16), Buffer.alloc(64, 0xee)]);
    expect(readInChunks(garbled, 100).answer).toBeNull();
    expect(readInChunks(Uint8Array.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 1, 2, 3, 4, 5, 6]), 100).answer).toBeNull();
    // a JPEG that keeps skipping segments is given up after MAX_JPEG_HEADER_BYTES
    const comment = Buffer.concat([Buffer.from([0xff, 0xfe, 0xff, 0xff]), Buffer.alloc(0xfffd)]);
    const endless = Buffer.concat([Buffer.from([0xff, 0xd8]), ...Array.from({ length: Math.ceil(MAX_JPEG_HEADER_BYTES / comment.length) + 1 }, () => comment)]);
    expect(readInChunks(endless, 65_536).answer).toBeNull();
  });
});

describe('the intake guard', () => {
  it('refuses a declared size over the pixel limit on image_width and image_height, and lets the limit itself through', async () => {
    const message = 'must be at most 100000000 pixels (width × height)';
    const over = new IntakeGuard();
    expect(() => over.push(bombPng(10_001, 10_000, false).subarray(0, 33))).toThrow(expect.objectContaining({ errors: { image_height: [message], image_width: [message] } }));
    const at = new IntakeGuard();
    expect(() => at.push(bombPng(10_000, 10_000, false))).not.toThrow();
    const small = new IntakeGuard();
    expect(() => small.push(Buffer.from('not an image at all'))).not.toThrow();
  });
});
