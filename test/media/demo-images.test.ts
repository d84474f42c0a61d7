import { describe, expect, it } from 'vitest';
import { analyzeImage, demoKindFor, generateDemoImage, processImage } from '../../src/media/index.js';
import { mulberry32 } from '../../src/lib/random.js';

describe('demo images', () => {
  it('gives identical bytes for the same seed and kind', async () => {
    for (const kind of ['png', 'jpeg', 'gif', 'svg'] as const) {
      const a = await generateDemoImage(42, kind);
      const b = await generateDemoImage(42, kind);
      expect(a.bytes.equals(b.bytes), kind).toBe(true);
      expect(a.name).toBe(b.name);
    }
    const other = await generateDemoImage(43, 'png');
    expect(other.bytes.equals((await generateDemoImage(42, 'png')).bytes)).toBe(false);
  });

  it('names files believably with the right extension', async () => {
    expect((await generateDemoImage(5, 'jpeg')).name).toMatch(/^[a-z]+_[a-z]+_[a-z]+_5\.jpg$/);
    expect((await generateDemoImage(5, 'svg')).name).toMatch(/\.svg$/);
  });

  it('varies sizes and shapes within the intended range', async () => {
    const shapes = new Set<string>();
    let tall = 0;
    for (let seed = 0; seed < 60; seed++) {
      const { width, height } = await generateDemoImage(seed, 'svg'); // same sizes as png/jpeg, no raster
      expect(width).toBeGreaterThanOrEqual(120);
      expect(width * height).toBeLessThanOrEqual(2000 * 1500);
      expect(Math.max(width, height)).toBeLessThanOrEqual(2000);
      shapes.add((width / height).toFixed(1));
      if (height > width * 2) tall++;
    }
    expect(shapes.size).toBeGreaterThan(5);
    expect(tall).toBeGreaterThan(0);
  });

  it('makes small animated GIFs of 4 to 8 frames', async () => {
    for (const seed of [1, 2, 3]) {
      const demo = await generateDemoImage(seed, 'gif');
      const a = await analyzeImage(demo.bytes);
      expect(a.animated).toBe(true);
      expect(a.frameCount).toBeGreaterThanOrEqual(4);
      expect(a.frameCount).toBeLessThanOrEqual(8);
      expect(Math.max(a.width, a.height)).toBeLessThanOrEqual(320);
    }
  });

  it('picks mostly png and jpeg when no kind is given, deterministically', () => {
    const kinds = Array.from({ length: 200 }, (_, seed) => demoKindFor(seed));
    expect(kinds).toEqual(Array.from({ length: 200 }, (_, seed) => demoKindFor(seed)));
    const count = (k: string) => kinds.filter((x) => x === k).length;
    expect(count('png') + count('jpeg')).toBeGreaterThan(120);
    expect(count('gif')).toBeGreaterThan(5);
    expect(count('svg')).toBeGreaterThan(2);
    const rng = mulberry32(7);
    expect([rng(), rng()]).toEqual((() => { const r = mulberry32(7); return [r(), r()]; })());
  });

  it('goes through the whole pipeline', async () => {
    const demo = await generateDemoImage(9, 'png');
    const p = await processImage(demo.bytes);
    expect(p.analysis.format).toBe('png');
    expect(p.representations[0]?.name).toBe('full');
    for (const v of Object.values(p.intensities)) expect(v).toBeGreaterThan(0);
  });
});
