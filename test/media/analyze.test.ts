import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MAX_IMAGE_SIZE,
  MediaError,
  analyzeImage,
  computeIntensities,
  dimensionError,
  generateDemoImage,
  imageNameError,
  makeRepresentations,
} from '../../src/media/index.js';
import { bombPng, grayGif, solidPng, webmHeaderOnly } from './helpers.js';

async function analysisError(promise: Promise<unknown>): Promise<MediaError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaError);
  return error as MediaError;
}

describe('analyzeImage', () => {
  it('analyses a PNG: dimensions, aspect ratio, still, size and SHA-512', async () => {
    const png = await solidPng(100, 50);
    const a = await analyzeImage(png);
    expect(a).toEqual({
      mimeType: 'image/png',
      format: 'png',
      width: 100,
      height: 50,
      aspectRatio: 2,
      animated: false,
      duration: 0,
      frameCount: 1,
      size: png.length,
      sha512: createHash('sha512').update(png).digest('hex'),
    });
  });

  it('analyses each generated kind', async () => {
    for (const kind of ['png', 'jpeg', 'gif', 'svg'] as const) {
      const demo = await generateDemoImage(11, kind);
      const a = await analyzeImage(demo.bytes);
      expect(a.format).toBe(kind === 'jpeg' ? 'jpg' : kind);
      expect([a.width, a.height]).toEqual([demo.width, demo.height]);
      expect(a.aspectRatio).toBeCloseTo(demo.width / demo.height, 12);
      expect(a.animated).toBe(kind === 'gif');
      if (kind === 'gif') {
        expect(a.frameCount).toBeGreaterThanOrEqual(4);
        expect(a.frameCount).toBeLessThanOrEqual(8);
        expect(a.duration).toBeGreaterThan(0);
      } else {
        expect(a.duration).toBe(0);
      }
    }
  });

  it('sums GIF frame delays into the duration, reading delays under 2 cs as 10 cs', async () => {
    const a = await analyzeImage(await grayGif([0, 80, 160], [100, 250, 50]));
    expect(a).toMatchObject({ mimeType: 'image/gif', format: 'gif', width: 8, height: 6, animated: true, frameCount: 3 });
    expect(a.duration).toBeCloseTo(0.4, 10);
    const fast = await analyzeImage(await grayGif([0, 255], [0, 10]));
    expect(fast.duration).toBeCloseTo(0.2, 10);
  });

  it('treats a one-frame GIF as a still', async () => {
    const a = await analyzeImage(await grayGif([128], [100]));
    expect(a).toMatchObject({ animated: false, duration: 0, frameCount: 1 });
  });

  it('rejects unaccepted types with the reference message and blank attributes', async () => {
    const error = await analysisError(analyzeImage(Buffer.from('hello, I am text')));
    expect(error.field).toBe('image_mime_type');
    expect(error.message).toBe('(text/plain) is invalid');
    expect(error.errors.image).toEqual(['contents corrupt, not recognized, or dimensions are too large to process', "can't be blank"]);
    expect(error.errors.image_width).toEqual(["can't be blank"]);
    expect(error.errors.image_mime_type).toEqual(['(text/plain) is invalid']);
    const empty = await analysisError(analyzeImage(Buffer.alloc(0)));
    expect(empty.message).toBe('(application/x-empty) is invalid');
  });

  it('rejects corrupt bytes that look like an accepted type', async () => {
    const png = await solidPng(10, 10);
    const broken = Buffer.from(png.subarray(0, 20)); // signature and half an IHDR
    const error = await analysisError(analyzeImage(broken));
    expect(error.field).toBe('image');
    expect(error.message).toBe('contents corrupt, not recognized, or dimensions are too large to process');
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(40, 0x55)]);
    expect((await analysisError(analyzeImage(jpeg))).field).toBe('image');
  });

  it('rejects files over the size limit before looking at them', async () => {
    const error = await analysisError(analyzeImage(await solidPng(4, 4), { maxSize: 10 }));
    expect(error.field).toBe('image_size');
    expect(error.message).toBe('must be less than or equal to 10');
    expect(MAX_IMAGE_SIZE).toBe(131_072_000);
  });

  it('rejects a header claiming 100000×100000 at once, without decoding', async () => {
    const bomb = bombPng(100_000, 100_000, false);
    expect(bomb.length).toBeLessThan(200);
    const started = performance.now();
    const error = await analysisError(analyzeImage(bomb));
    expect(error.field).toBe('image');
    expect(error.message).toBe('dimensions are too large to process');
    await analysisError(computeIntensities(bomb, { format: 'png' }));
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('rejects a highly compressible huge PNG quickly', async () => {
    const bomb = bombPng(20_000, 20_000, true); // 400 Mpx of zeros in well under 1 MB
    expect(bomb.length).toBeLessThan(1_000_000);
    const started = performance.now();
    const error = await analysisError(analyzeImage(bomb));
    expect(error.message).toBe('dimensions are too large to process');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("refuses to decode past sharp's limitInputPixels", async () => {
    const png = bombPng(3000, 3000, true); // allowed by the reference rule
    expect((await analyzeImage(png)).width).toBe(3000);
    const started = performance.now();
    const error = await analysisError(computeIntensities(png, { format: 'png' }, { limitInputPixels: 1000 * 1000 }));
    expect(error.message).toBe('dimensions are too large to process');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('caps the total pixels of an animated GIF, which sharp judges frame by frame', async () => {
    const gif = await grayGif([0, 80, 160, 240], [100, 100, 100, 100], 50, 40); // 8,000 px in all
    expect((await analyzeImage(gif, { maxAnimatedPixels: 8000 })).frameCount).toBe(4);
    const error = await analysisError(analyzeImage(gif, { maxAnimatedPixels: 7999 }));
    expect(error.message).toBe('dimensions are too large to process');
    await analysisError(makeRepresentations(gif, { format: 'gif', width: 50, height: 40, duration: 0.4 }, { maxAnimatedPixels: 7999 }));
  });

  it('applies the pixel-limit rule of the reference exactly', () => {
    expect(dimensionError(0, 10)?.message).toBe('contents corrupt, not recognized, or dimensions are too large to process');
    expect(dimensionError(10, 0)?.field).toBe('image');
    expect(dimensionError(16000, 16000)).toBeNull();
    // ((16384+63 & -64)·8 + 1024)·(16256+128) = 132096·16384 = 2,164,260,864 ≥ 2^31-1
    expect(dimensionError(16384, 16256)?.message).toBe('dimensions are too large to process');
    // Largest height for width 1: (64·8 + 1024)·(h + 128) < 2,147,483,647 ⇔ h ≤ 1,397,973
    expect(dimensionError(1, 1_397_973)).toBeNull();
    expect(dimensionError(1, 1_397_974)?.message).toBe('dimensions are too large to process');
  });

  it('checks the file name length in bytes', () => {
    expect(imageNameError('a'.repeat(255))).toBeNull();
    expect(imageNameError('é'.repeat(128))?.field).toBe('image_name');
  });

  it('needs ffprobe for WebM and says so', async () => {
    const error = await analysisError(analyzeImage(webmHeaderOnly(), { ffprobePath: '/nonexistent/ffprobe' }));
    expect(error.field).toBe('image');
    expect(error.message).toMatch(/WebM support needs ffmpeg/);
  });
});
