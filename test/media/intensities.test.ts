import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { computeIntensities, intensitiesFromPixels } from '../../src/media/index.js';
import { gifFrameAt } from '../../src/media/intensities.js';
import { grayGif, pngFromPixels, rawOf } from './helpers.js';

const all = (v: number) => ({ nw: v, ne: v, sw: v, se: v });

describe('intensities', () => {
  it('gives a 1×1 pixel its luma in all four corners: pure red is the fixture value 54.213', async () => {
    expect(await computeIntensities(await pngFromPixels([255, 0, 0], 1, 1, 3))).toEqual(all(54.213));
    // Another colour with the same BT.709 luma: 0.2126·12 + 0.7152·58 + 0.0722·141 = 54.213
    expect(await computeIntensities(await pngFromPixels([12, 58, 141], 1, 1, 3))).toEqual(all(54.213));
    expect(await computeIntensities(await pngFromPixels([10, 20, 30], 1, 1, 3))).toEqual(all(18.596));
  });

  it('counts the middle row and column in two quadrants (3×3 by hand)', () => {
    // Grays:     10 20 30
    //            40 50 60
    //            70 80 90
    // h2 = w2 = 1; dim = (4·4)/4 = 4.
    // nw = (10+20+40+50)/4 = 30, ne = (20+30+50+60)/4 = 40, sw = (40+50+70+80)/4 = 60, se = (50+60+80+90)/4 = 70
    const grays = [10, 20, 30, 40, 50, 60, 70, 80, 90];
    expect(intensitiesFromPixels(Uint8Array.from(grays), 3, 3, 1)).toEqual({ nw: 30, ne: 40, sw: 60, se: 70 });
    // Only the red channel: each value times 0.2126.
    const reds = Uint8Array.from(grays.flatMap((g) => [g, 0, 0]));
    expect(intensitiesFromPixels(reds, 3, 3, 3)).toEqual({ nw: 6.378, ne: 8.504, sw: 12.756, se: 14.882 });
  });

  it('goes past 255 on tiny images because of the overlap (2×2 white)', () => {
    // h2 = w2 = 1: nw holds all four pixels, ne and sw two, se one; dim = 1.
    expect(intensitiesFromPixels(new Uint8Array(12).fill(255), 2, 2, 3)).toEqual({ nw: 1020, ne: 510, sw: 510, se: 255 });
  });

  it('divides by the even-rounded area over four, as an integer', () => {
    // 3×1 gray 100: h2 = 0, w2 = 1; nw = cols 0–1 (200), ne = cols 1–2 (200); every row is both north and south.
    // dim = (4·2)/4 = 2, so nw = 200/2 = 100.
    expect(intensitiesFromPixels(Uint8Array.from([100, 100, 100]), 3, 1, 1)).toEqual(all(100));
    // 5×5 gray 100: each quadrant holds 3×3 = 9 pixels, dim = (6·6)/4 = 9 → 100.
    expect(intensitiesFromPixels(new Uint8Array(25).fill(100), 5, 5, 1)).toEqual(all(100));
    // 4×4 gray 100: nw rows 0–2 × cols 0–2 = 9 pixels, ne rows 0–2 × cols 2–3 = 6, dim = 4.
    expect(intensitiesFromPixels(new Uint8Array(16).fill(100), 4, 4, 1)).toEqual({ nw: 225, ne: 150, sw: 150, se: 100 });
  });

  it('composites alpha over black with libpng integer rounding', async () => {
    // png_composite(255, α=128, 0) = 128; 128·0.2126 = 27.2128
    expect(intensitiesFromPixels(Uint8Array.from([255, 0, 0, 128]), 1, 1, 4)).toEqual(all(27.2128));
    expect(intensitiesFromPixels(Uint8Array.from([255, 255, 255, 0]), 1, 1, 4)).toEqual(all(0));
    expect(intensitiesFromPixels(Uint8Array.from([200, 77]), 1, 1, 2)).toEqual(all(60));
    // Through a real RGBA PNG.
    expect(await computeIntensities(await pngFromPixels([255, 0, 0, 128], 1, 1, 4))).toEqual(all(27.2128));
  });

  it('scales 16-bit samples to 8 bits as libpng does', () => {
    // (v·255 + 32895) >> 16: 0xffff → 255, 0x8080 → 128, 0x1234 → 18
    expect(intensitiesFromPixels(Uint16Array.from([0xffff, 0, 0]), 1, 1, 3, 16)).toEqual(all(54.213));
    expect(intensitiesFromPixels(Uint16Array.from([0x8080]), 1, 1, 1, 16)).toEqual(all(128));
    expect(intensitiesFromPixels(Uint16Array.from([0x1234]), 1, 1, 1, 16)).toEqual(all(18));
  });

  it('reads a 16-bit PNG at 16 bits, compositing before scaling', async () => {
    const png = await sharp(new Uint16Array([0xffff, 0, 0, 0xffff, 0xffff, 0, 0, 0x8000]), {
      raw: { width: 2, height: 1, channels: 4 },
    })
      .toColourspace('rgb16')
      .png()
      .toBuffer();
    expect((await sharp(png).metadata()).depth).toBe('ushort');
    // Left pixel opaque red (255 → 54.213); right pixel red at α = 0x8000: composite16 gives
    // 0x8001, scaled to 128 (27.2128). Width 2: w2 = 1, so west holds both pixels, east only the
    // right one; dim = (2·2)/4 = 1.
    expect(intensitiesFromPixels(Uint16Array.from([0xffff, 0, 0, 0x8000]), 1, 1, 4, 16)).toEqual(all(27.2128));
    expect(await computeIntensities(png)).toEqual({ nw: 81.4258, ne: 27.2128, sw: 81.4258, se: 27.2128 });
  });

  it('matches the pure function on a decoded JPEG', async () => {
    const jpeg = await sharp({ create: { width: 37, height: 23, channels: 3, background: '#4080c0' } })
      .composite([{ input: { create: { width: 10, height: 10, channels: 3, background: '#ff0000' } }, left: 2, top: 3 }])
      .jpeg()
      .toBuffer();
    const raw = await rawOf(jpeg);
    expect(await computeIntensities(jpeg)).toEqual(intensitiesFromPixels(raw.data, raw.width, raw.height, raw.channels));
  });

  it('uses the GIF frame shown at half the duration', async () => {
    // Delays 100 ms each: 0.4 s in all, half is 0.2 s, which is the start of the third frame.
    // Odd sides make every quadrant exactly `dim` pixels, so a flat frame gives its own gray.
    const gif = await grayGif([0, 80, 160, 240], [100, 100, 100, 100], 7, 5);
    expect(await computeIntensities(gif)).toEqual(all(160));
    expect(await computeIntensities(gif, { format: 'gif', duration: 0.4 })).toEqual(all(160));
    expect(gifFrameAt([100, 300, 100], 3, 0.25)).toBe(1);
    expect(gifFrameAt([], 3, 0.15)).toBe(1); // missing delays count as 10 cs
  });

  it('renders an SVG first', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="#ff0000"/></svg>');
    // A 4×4 image: nw holds 3×3 pixels, ne and sw 3×2, se 2×2, and dim = 4.
    expect(await computeIntensities(svg)).toEqual({ nw: 121.97925, ne: 81.3195, sw: 81.3195, se: 54.213 });
  });
});
