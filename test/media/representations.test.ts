import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  analyzeImage,
  boxesSmallerThan,
  fitInside,
  makeRepresentations,
  processImage,
  stripJpegMetadata,
  stripPngMetadata,
  type Representation,
} from '../../src/media/index.js';
import { grayGif, rawOf, solidJpeg, solidPng, withTextChunk } from './helpers.js';

const sizes = (reps: Representation[]) => reps.map((r) => `${r.name}.${r.ext} ${r.width}x${r.height}`);

async function checkDimensions(reps: Representation[]): Promise<void> {
  for (const r of reps) {
    if (r.ext === 'svg' || r.ext === 'webm') continue;
    const meta = await sharp(r.buffer, { animated: true }).metadata();
    expect([meta.width, meta.pageHeight ?? meta.height], `${r.name}.${r.ext}`).toEqual([r.width, r.height]);
  }
}

describe('version boxes', () => {
  it('makes a version only for the boxes the image exceeds', () => {
    expect(boxesSmallerThan(100, 100).map((b) => b.name)).toEqual(['thumb_tiny']);
    expect(boxesSmallerThan(50, 50)).toEqual([]);
    expect(boxesSmallerThan(300, 100).map((b) => b.name)).toEqual(['thumb_tiny', 'thumb_small', 'thumb']);
    expect(boxesSmallerThan(500, 3000).map((b) => b.name)).toEqual(['thumb_tiny', 'thumb_small', 'thumb', 'small', 'medium', 'large']);
    expect(boxesSmallerThan(4000, 3000)).toHaveLength(7);
  });

  it('fits inside a box with ffmpeg rounding and never enlarges past it', () => {
    expect(fitInside(4000, 3000, 250, 250)).toEqual({ width: 250, height: 188 }); // 187.5 rounds up
    expect(fitInside(4000, 3000, 1024, 4096)).toEqual({ width: 1024, height: 768 });
    expect(fitInside(500, 3000, 1280, 1024)).toEqual({ width: 171, height: 1024 });
    expect(fitInside(10000, 10, 50, 50)).toEqual({ width: 50, height: 1 }); // never 0
  });
});

describe('makeRepresentations', () => {
  it('makes every version of a large JPEG, sized to fit each box', async () => {
    const jpeg = await solidJpeg(4000, 3000, '#808020');
    const analysis = await analyzeImage(jpeg);
    const reps = await makeRepresentations(jpeg, analysis);
    expect(sizes(reps)).toEqual([
      'full.jpg 4000x3000',
      'thumb_tiny.jpg 50x38',
      'thumb_small.jpg 150x113',
      'thumb.jpg 250x188',
      'small.jpg 320x240',
      'medium.jpg 800x600',
      'large.jpg 1280x960',
      'tall.jpg 1024x768',
    ]);
    await checkDimensions(reps);
    for (const r of reps) expect(r.mimeType).toBe('image/jpeg');
  });

  it('makes only thumb_tiny for a 100×100 PNG (the reference example)', async () => {
    const png = await solidPng(100, 100);
    const reps = await makeRepresentations(png, await analyzeImage(png));
    expect(sizes(reps)).toEqual(['full.png 100x100', 'thumb_tiny.png 50x50']);
    await checkDimensions(reps);
  });

  it('makes nothing but full for an image inside the smallest box', async () => {
    const png = await solidPng(40, 50);
    expect(sizes(await makeRepresentations(png, await analyzeImage(png)))).toEqual(['full.png 40x50']);
  });

  it('keeps transparency in PNG versions', async () => {
    const png = await sharp({ create: { width: 120, height: 60, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } })
      .png()
      .toBuffer();
    const reps = await makeRepresentations(png, await analyzeImage(png));
    const tiny = reps.find((r) => r.name === 'thumb_tiny');
    expect(tiny).toBeDefined();
    const raw = await rawOf(tiny!.buffer);
    expect(raw.channels).toBe(4);
    expect(raw.data[3]).toBeGreaterThan(120);
    expect(raw.data[3]).toBeLessThan(135);
  });

  it('resizes animated GIFs keeping frames and delays, and renders the middle frame', async () => {
    const gif = await grayGif([0, 80, 160, 240], [100, 200, 100, 100], 160, 120);
    const analysis = await analyzeImage(gif);
    const reps = await makeRepresentations(gif, analysis);
    expect(sizes(reps)).toEqual([
      'full.gif 160x120',
      'thumb_tiny.gif 50x38',
      'thumb_small.gif 150x113',
      'rendered.png 160x120',
    ]);
    expect(reps[0]?.buffer).toBe(gif);
    for (const r of reps.filter((x) => x.ext === 'gif' && x.name !== 'full')) {
      const meta = await sharp(r.buffer).metadata();
      expect(meta.pages).toBe(4);
      expect(meta.delay).toEqual([100, 200, 100, 100]);
    }
    await checkDimensions(reps);
    // 0.5 s in all; 0.25 s falls in the second frame (0.1–0.3 s), gray 80.
    const rendered = await rawOf(reps.at(-1)!.buffer);
    expect(rendered.data[0]).toBe(80);
  });

  it('renders SVG to png versions, full.png and rendered.png, keeping the original', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"><rect width="400" height="200" fill="#2040f0"/></svg>',
    );
    const reps = await makeRepresentations(svg, await analyzeImage(svg));
    expect(sizes(reps)).toEqual([
      'full.svg 400x200',
      'full.png 400x200',
      'thumb_tiny.png 50x25',
      'thumb_small.png 150x75',
      'thumb.png 250x125',
      'small.png 320x160',
      'rendered.png 400x200',
    ]);
    expect(reps[0]?.buffer).toBe(svg);
    await checkDimensions(reps);
  });

  it('handles tall images', async () => {
    const png = await solidPng(500, 3000);
    const reps = await makeRepresentations(png, await analyzeImage(png));
    expect(sizes(reps)).toEqual([
      'full.png 500x3000',
      'thumb_tiny.png 8x50',
      'thumb_small.png 25x150',
      'thumb.png 42x250',
      'small.png 40x240',
      'medium.png 100x600',
      'large.png 171x1024',
    ]);
  });
});

describe('metadata stripping', () => {
  it('drops EXIF/comments from a JPEG losslessly', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#a05030' } })
      .withExif({ IFD0: { ImageDescription: 'secret camera notes', Artist: 'someone' } })
      .jpeg()
      .toBuffer();
    expect((await sharp(jpeg).metadata()).exif).toBeDefined();
    const stripped = stripJpegMetadata(jpeg);
    expect(stripped).not.toBeNull();
    expect(stripped!.length).toBeLessThan(jpeg.length);
    expect(stripped!.includes('secret camera notes')).toBe(false);
    expect((await sharp(stripped!).metadata()).exif).toBeUndefined();
    expect((await rawOf(stripped!)).data.equals((await rawOf(jpeg)).data)).toBe(true);
    // Appended bytes after EOI go too.
    const withTail = Buffer.concat([jpeg, Buffer.from('PK\u0003\u0004 trailing archive')]);
    expect(stripJpegMetadata(withTail)?.equals(stripped!)).toBe(true);
    expect(stripJpegMetadata(Buffer.from('not a jpeg'))).toBeNull();
  });

  it('re-encodes an EXIF-rotated JPEG upright and without metadata', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#a05030' } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    expect((await sharp(jpeg).metadata()).orientation).toBe(6);
    const processed = await processImage(jpeg);
    expect(processed.analysis).toMatchObject({ width: 64, height: 48 });
    const full = processed.representations[0]!;
    expect(full.name).toBe('full');
    expect([full.width, full.height]).toEqual([48, 64]);
    const meta = await sharp(full.buffer).metadata();
    expect([meta.width, meta.height, meta.orientation, meta.exif]).toEqual([48, 64, undefined, undefined]);
    expect(processed.processed).toMatchObject({ width: 48, height: 64, size: full.buffer.length });
    expect(processed.processed.sha512).not.toBe(processed.analysis.sha512);
  });

  it('drops text chunks from a PNG losslessly and leaves a stripped PNG as it is', async () => {
    const png = await solidPng(20, 10);
    const tagged = withTextChunk(png, 'Comment', 'made with a secret tool');
    expect(tagged.includes('secret tool')).toBe(true);
    const stripped = stripPngMetadata(tagged);
    expect(stripped?.includes('secret tool')).toBe(false);
    expect((await rawOf(stripped!)).data.equals((await rawOf(png)).data)).toBe(true);
    // sharp writes pHYs (physical size), which goes too; a stripped file is left as it is.
    expect(stripPngMetadata(stripped!)?.equals(stripped!)).toBe(true);
    expect(stripPngMetadata(png.subarray(0, 30))).toBeNull();
  });

  it('reports the processed file in processImage', async () => {
    const png = withTextChunk(await solidPng(300, 200), 'Comment', 'x'.repeat(100));
    const p = await processImage(png);
    expect(p.analysis.size).toBe(png.length);
    expect(p.processed.size).toBeLessThan(png.length);
    expect(p.processed).toMatchObject({ width: 300, height: 200 });
    expect(p.representations.map((r) => r.name)).toEqual(['full', 'thumb_tiny', 'thumb_small', 'thumb']);
  });
});
