/**
 * The edits a copy of a picture goes through before someone searches with it: rescaling,
 * recompression, a trimmed border, a brightness change, a text watermark, combinations, grey
 * levels, a mirror image, a quarter turn and 10 % cut off two adjacent sides.
 */
import sharp, { type Sharp } from 'sharp';
import type { Picture } from './pictures.js';

export interface Transform {
  name: string;
  apply(picture: Picture): Promise<Buffer>;
}

const png = (image: Sharp) => image.png({ compressionLevel: 1 }).toBuffer();

function scaled(p: Picture, factor: number): Sharp {
  return sharp(p.png).resize(Math.max(1, Math.round(p.width * factor)), Math.max(1, Math.round(p.height * factor)));
}

function cropped(p: Picture, share: number): Sharp {
  const dx = Math.round(p.width * share);
  const dy = Math.round(p.height * share);
  return sharp(p.png).extract({ left: dx, top: dy, width: p.width - 2 * dx, height: p.height - 2 * dy });
}

/** 10 % of each side cut off two adjacent sides; which two goes round with the seed. */
function cutTwoSides(p: Picture, share: number): Sharp {
  const dx = Math.round(p.width * share);
  const dy = Math.round(p.height * share);
  const corner = p.seed % 4;
  return sharp(p.png).extract({ left: corner & 1 ? 0 : dx, top: corner & 2 ? 0 : dy, width: p.width - dx, height: p.height - dy });
}

function brightened(image: Sharp, factor: number): Sharp {
  return image.linear(factor, 0);
}

/** "© tagwise fan" in the bottom-right corner, white, half opaque, 6 % of the height. */
function watermarkSvg(width: number, height: number): Buffer {
  const size = Math.max(10, Math.round(height * 0.06));
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><text x="${width - size / 2}" y="${height - size / 2}" font-family="DejaVu Sans" font-size="${size}" fill="white" fill-opacity="0.6" text-anchor="end">© tagwise fan</text></svg>`,
  );
}

async function watermarked(bytes: Buffer): Promise<Buffer> {
  const meta = await sharp(bytes).metadata();
  return png(sharp(bytes).composite([{ input: watermarkSvg(meta.width ?? 1, meta.height ?? 1) }]));
}

export const TRANSFORMS: Transform[] = [
  { name: 'scale 50%', apply: (p) => png(scaled(p, 0.5)) },
  { name: 'scale 25%', apply: (p) => png(scaled(p, 0.25)) },
  { name: 'scale 150%', apply: (p) => png(scaled(p, 1.5)) },
  { name: 'jpeg q40', apply: (p) => sharp(p.png).jpeg({ quality: 40 }).toBuffer() },
  { name: 'crop 3%', apply: (p) => png(cropped(p, 0.03)) },
  { name: 'crop 5%', apply: (p) => png(cropped(p, 0.05)) },
  { name: 'bright +12%', apply: (p) => png(brightened(sharp(p.png), 1.12)) },
  { name: 'bright -12%', apply: (p) => png(brightened(sharp(p.png), 0.88)) },
  { name: 'watermark', apply: (p) => watermarked(p.png) },
  { name: '50%+jpeg40', apply: (p) => scaled(p, 0.5).jpeg({ quality: 40 }).toBuffer() },
  { name: 'crop3%+bright+10%', apply: async (p) => png(brightened(sharp(await png(cropped(p, 0.03))), 1.1)) },
  { name: 'wm+50%+jpeg40', apply: async (p) => sharp(await watermarked(p.png)).resize(Math.round(p.width / 2)).jpeg({ quality: 40 }).toBuffer() },
  { name: 'grayscale', apply: (p) => png(sharp(p.png).grayscale()) },
  { name: 'mirror', apply: (p) => png(sharp(p.png).flop()) },
  { name: 'rot90', apply: (p) => png(sharp(p.png).rotate(90)) },
  { name: 'crop10 (two sides)', apply: (p) => png(cutTwoSides(p, 0.1)) },
  { name: 'mirror+50%+jpeg40', apply: (p) => sharp(p.png).flop().resize(Math.round(p.width / 2)).jpeg({ quality: 40 }).toBuffer() },
];
