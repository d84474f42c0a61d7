/** Small images made in memory for the media tests. */
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** A PNG from 8-bit samples (`channels` 1–4). */
export function pngFromPixels(pixels: number[] | Uint8Array, width: number, height: number, channels: 1 | 2 | 3 | 4): Promise<Buffer> {
  return sharp(Buffer.from(pixels), { raw: { width, height, channels } }).png().toBuffer();
}

/** A JPEG of one flat colour. */
export function solidJpeg(width: number, height: number, background = '#3366aa'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } }).jpeg({ quality: 90 }).toBuffer();
}

export function solidPng(width: number, height: number, background = '#3366aa'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
}

/** An animated GIF whose frames are flat grays, with the given delays (ms). */
export async function grayGif(grays: number[], delays: number[], width = 8, height = 6): Promise<Buffer> {
  const frame = width * height * 4;
  const raw = Buffer.alloc(frame * grays.length);
  grays.forEach((g, f) => {
    for (let p = 0; p < width * height; p++) raw.set([g, g, g, 255], f * frame + p * 4);
  });
  return sharp(raw, { raw: { width, height: height * grays.length, channels: 4, pageHeight: height } })
    .gif({ delay: delays, loop: 0 })
    .toBuffer();
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A PNG whose header claims `width`×`height` (1-bit grayscale). With `fullData`, the IDAT really
 * holds every (zero) row, deflated: a highly compressible "decompression bomb". Without it, the
 * IDAT holds a single row, so the file is a few dozen bytes.
 */
export function bombPng(width: number, height: number, fullData: boolean): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // grayscale
  const rowBytes = 1 + Math.ceil(width / 8);
  const raw = Buffer.alloc(fullData ? rowBytes * height : rowBytes);
  const idat = deflateSync(raw, { level: 1 });
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** Inserts a `tEXt` chunk right after IHDR. */
export function withTextChunk(png: Buffer, keyword: string, text: string): Buffer {
  const ihdrEnd = 8 + 12 + png.readUInt32BE(8);
  const data = Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]);
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk('tEXt', data), png.subarray(ihdrEnd)]);
}

/** The smallest EBML header that says "webm": enough for sniffing, not a playable file. */
export function webmHeaderOnly(): Buffer {
  return Buffer.from([
    0x1a, 0x45, 0xdf, 0xa3, 0x9f,
    0x42, 0x86, 0x81, 0x01,
    0x42, 0xf7, 0x81, 0x01,
    0x42, 0xf2, 0x81, 0x04,
    0x42, 0xf3, 0x81, 0x08,
    0x42, 0x82, 0x84, 0x77, 0x65, 0x62, 0x6d,
    0x42, 0x87, 0x81, 0x02,
    0x42, 0x85, 0x81, 0x02,
  ]);
}

export async function rawOf(image: Buffer): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}
