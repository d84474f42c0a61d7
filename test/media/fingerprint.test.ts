/**
 * Perceptual fingerprints of known images. The oracle computes the DCT hash of a 32×32 picture
 * (which the hash reads without resampling) from the textbook DCT-II formula, with BigInt bits,
 * sharing no code with src/media; other cases check the frame and flattening rules against
 * pictures whose answer is known: a GIF is hashed by its middle frame, an SVG by its rendering,
 * transparency as black. The mirror images and quarter turns of a picture ask with the hash of
 * the picture turned back, the region hashes are those of the regions cut out, and a low-detail
 * picture keeps its hash at a quarter of its size.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { dct2 } from '../../src/media/dct.js';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { computeFingerprint, computeSearchKeys, fingerprintDistance, hammingDistance } from '../../src/media/fingerprint.js';

/** pHash by the book: DCT-II of the 32×32 luma, the 8×8 lowest frequencies, bits above their median. */
function oraclePhash(luma: number[][]): string {
  const n = 32;
  const coef: number[] = [];
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) sum += luma[y]![x]! * Math.cos(((2 * x + 1) * u * Math.PI) / (2 * n)) * Math.cos(((2 * y + 1) * v * Math.PI) / (2 * n));
      coef.push(sum);
    }
  }
  const sorted = [...coef].sort((a, b) => a - b);
  const median = (sorted[31]! + sorted[32]!) / 2;
  // a bit is set when above the median by 1 % of the largest coefficient but the constant one
  const largest = Math.max(...coef.slice(1).map(Math.abs));
  let bits = 0n;
  for (const c of coef) bits = (bits << 1n) | (c - median > largest * 0.01 ? 1n : 0n);
  return bits.toString(16).padStart(16, '0');
}

/** A 32×32 RGB picture from a function of (x, y) giving a grey level, and its luma rows. */
async function grey(fn: (x: number, y: number) => number): Promise<{ png: Buffer; luma: number[][] }> {
  const raw = Buffer.alloc(32 * 32 * 3);
  const luma: number[][] = [];
  for (let y = 0; y < 32; y++) {
    luma.push([]);
    for (let x = 0; x < 32; x++) {
      const g = Math.round(fn(x, y));
      raw.fill(g, (y * 32 + x) * 3, (y * 32 + x) * 3 + 3);
      // R = G = B: the luma coefficients sum to 1
      luma[y]!.push(g * 0.2126 + g * 0.7152 + g * 0.0722);
    }
  }
  return { png: await sharp(raw, { raw: { width: 32, height: 32, channels: 3 } }).png().toBuffer(), luma };
}

describe('DCT', () => {
  it('matches the DCT-II formula on random input', () => {
    const input = Array.from({ length: 64 }, (_, k) => (k * 37) % 11);
    const out = dct2(input, 8, 4);
    for (let v = 0; v < 4; v++) {
      for (let u = 0; u < 4; u++) {
        let sum = 0;
        for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) sum += input[y * 8 + x]! * Math.cos(((2 * x + 1) * u * Math.PI) / 16) * Math.cos(((2 * y + 1) * v * Math.PI) / 16);
        expect(out[v * 4 + u]).toBeCloseTo(sum, 9);
      }
    }
  });
});

describe('fingerprints of known images', () => {
  it.each([
    ['a left-to-right ramp', (x: number) => x * 8],
    ['a vertical split', (x: number) => (x < 16 ? 230 : 20)],
    ['a checkerboard of 8×8 squares', (x: number, y: number) => ((Math.floor(x / 8) + Math.floor(y / 8)) % 2 === 0 ? 200 : 40)],
    ['a bright disc on dark', (x: number, y: number) => ((x - 12) ** 2 + (y - 18) ** 2 < 60 ? 250 : 10)],
  ])('pHash of %s is the textbook one', async (_name, fn) => {
    const { png, luma } = await grey(fn);
    const fingerprint = await computeFingerprint(png);
    expect(fingerprint.phash).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprint.chash).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprint.phash).toBe(oraclePhash(luma));
  });

  it('counts differing bits', () => {
    expect(hammingDistance('0000000000000000', 'ffffffffffffffff')).toBe(64);
    expect(hammingDistance('8000000000000001', '0000000000000000')).toBe(2);
    expect(hammingDistance('00000000f0000000', '0000000000000000')).toBe(4);
  });

  it('hashes an animated GIF by its middle frame and an SVG by its rendering', async () => {
    const band = (colour: string, y: number) => `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96"><rect width="96" height="96" fill="#222"/><rect y="${y}" width="96" height="24" fill="${colour}"/><circle cx="${y + 10}" cy="60" r="14" fill="#eee"/></svg>`;
    const frames = [band('#f00', 0), band('#0f0', 36), band('#00f', 70)];
    const rasters = await Promise.all(frames.map((svg) => sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer()));
    // three frames of a second each, stacked as pages of 96 rows
    const animated = await sharp(Buffer.concat(rasters), { raw: { width: 96, height: 96 * 3, channels: 4, pageHeight: 96 } as never }).gif({ delay: [1000, 1000, 1000] }).toBuffer();
    expect((await sharp(animated).metadata()).pages).toBe(3);
    const middle = await sharp(Buffer.from(frames[1]!)).png().toBuffer();
    const fromGif = await computeFingerprint(animated);
    const fromMiddle = await computeFingerprint(middle);
    expect(fingerprintDistance(fromGif, fromMiddle)).toBeLessThanOrEqual(2);
    expect(fingerprintDistance(fromGif, await computeFingerprint(await sharp(Buffer.from(frames[0]!)).png().toBuffer()))).toBeGreaterThan(8);

    const svg = Buffer.from(frames[2]!);
    expect(await computeFingerprint(svg)).toEqual(await computeFingerprint(await sharp(svg).png().toBuffer()));
  });

  it('flattens transparency over black, as the intensities do', async () => {
    const svg = (background: string) =>
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64">${background}<circle cx="20" cy="30" r="16" fill="#fc0"/><rect x="36" y="8" width="20" height="48" fill="#09f"/></svg>`);
    const transparent = await sharp(svg('')).png().toBuffer();
    const onBlack = await sharp(svg('<rect width="64" height="64" fill="#000"/>')).removeAlpha().png().toBuffer();
    const onWhite = await sharp(svg('<rect width="64" height="64" fill="#fff"/>')).removeAlpha().png().toBuffer();
    expect(await computeFingerprint(transparent)).toEqual(await computeFingerprint(onBlack));
    expect((await computeFingerprint(transparent)).phash).not.toBe((await computeFingerprint(onWhite)).phash);
  });
});

describe('hashes that survive reposts', () => {
  // an asymmetric 32×32 picture: turning it needs no resampling, so hashes compare exactly
  const asymmetric = (x: number, y: number) => ((x - 9) ** 2 + (y - 6) ** 2 < 40 ? 240 : 30 + x * 3 + (y > 20 ? 60 : 0));

  it('asks with the hash of each mirror image and quarter turn turned back', async () => {
    const { png, luma } = await grey(asymmetric);
    const expected = oraclePhash(luma);
    const copies = [sharp(png).flop(), sharp(png).flip(), sharp(png).rotate(90), sharp(png).rotate(180), sharp(png).rotate(270), sharp(png).rotate(90).flop()];
    for (const copy of copies) {
      const { query, fingerprint } = await computeSearchKeys(await copy.png().toBuffer());
      expect(query.whole).toHaveLength(8);
      expect(query.whole[0]).toBe(fingerprint.phash);
      expect(fingerprint.phash).not.toBe(expected);
      expect(query.whole).toContain(expected);
    }
  });

  it('stores the hashes of the five 90 % regions, as the regions cut out give them', async () => {
    const png = (await generateDemoImage(41, 'png')).bytes;
    const { width, height } = await sharp(png).metadata();
    const [w, h] = [Math.round(width! * 0.9), Math.round(height! * 0.9)];
    const fingerprint = await computeFingerprint(png);
    const origins = [
      [Math.round((width! - w) / 2), Math.round((height! - h) / 2)],
      [0, 0],
      [width! - w, 0],
      [0, height! - h],
      [width! - w, height! - h],
    ];
    expect(fingerprint.rhashes).toHaveLength(5);
    for (const [k, [left, top]] of origins.entries()) {
      const region = await sharp(png).extract({ left: left!, top: top!, width: w, height: h }).png().toBuffer();
      expect(fingerprint.rhashes[k], `region ${k}`).toBe((await computeFingerprint(region)).phash);
    }
  });

  it('keeps the hash of four flat quadrants at a quarter of the size', async () => {
    const quadrants = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><rect width="600" height="450" fill="#c03030"/><rect x="600" width="600" height="450" fill="#30c030"/><rect y="450" width="600" height="450" fill="#3030c0"/><rect x="600" y="450" width="600" height="450" fill="#e0e030"/></svg>',
    );
    const large = await sharp(quadrants).png().toBuffer();
    const small = await sharp(large).resize(300, 225).png().toBuffer();
    const [a, b] = [await computeFingerprint(large), await computeFingerprint(small)];
    expect(hammingDistance(a.phash, b.phash)).toBeLessThanOrEqual(1);
    expect(hammingDistance(a.chash, b.chash)).toBeLessThanOrEqual(1);
  });
});
