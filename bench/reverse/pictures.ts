/**
 * Procedurally drawn pictures for the reverse-search benchmark: a gradient background and a dozen
 * or so shapes (circles, rectangles, triangles, thick lines), their colours, sizes and places
 * picked by a seeded generator, in sizes from 320 to 900 pixels a side. Board pictures and
 * distractors come from disjoint seed ranges, so a distractor is never a copy of a board picture.
 * Seeds from `LOW_DETAIL_SEEDS` on draw low-detail pictures instead: four flat quadrants of
 * random colours, 1200×900.
 */
import sharp from 'sharp';
import { mulberry32 } from '../../src/lib/random.js';

export interface Picture {
  seed: number;
  png: Buffer;
  width: number;
  height: number;
}

function colour(rng: () => number): string {
  const c = () => Math.floor(rng() * 256);
  return `rgb(${c()},${c()},${c()})`;
}

export function pictureSvg(seed: number): { svg: string; width: number; height: number } {
  const rng = mulberry32(seed * 2654435761);
  const width = 320 + Math.floor(rng() * 580);
  const height = 320 + Math.floor(rng() * 580);
  const parts: string[] = [];
  const angle = Math.floor(rng() * 360);
  parts.push(`<defs><linearGradient id="g" gradientTransform="rotate(${angle} .5 .5)"><stop offset="0" stop-color="${colour(rng)}"/><stop offset="1" stop-color="${colour(rng)}"/></linearGradient></defs>`);
  parts.push(`<rect width="${width}" height="${height}" fill="url(#g)"/>`);
  const shapes = 6 + Math.floor(rng() * 14);
  for (let i = 0; i < shapes; i++) {
    const x = rng() * width;
    const y = rng() * height;
    const s = (0.05 + rng() * 0.35) * Math.min(width, height);
    const fill = colour(rng);
    const opacity = (0.5 + rng() * 0.5).toFixed(2);
    switch (Math.floor(rng() * 4)) {
      case 0:
        parts.push(`<circle cx="${x}" cy="${y}" r="${s / 2}" fill="${fill}" fill-opacity="${opacity}"/>`);
        break;
      case 1:
        parts.push(`<rect x="${x - s / 2}" y="${y - s / 3}" width="${s}" height="${(s * 2) / 3}" fill="${fill}" fill-opacity="${opacity}" transform="rotate(${Math.floor(rng() * 90)} ${x} ${y})"/>`);
        break;
      case 2:
        parts.push(`<polygon points="${x},${y - s / 2} ${x + s / 2},${y + s / 2} ${x - s / 2},${y + s / 2}" fill="${fill}" fill-opacity="${opacity}"/>`);
        break;
      default:
        parts.push(`<line x1="${x}" y1="${y}" x2="${rng() * width}" y2="${rng() * height}" stroke="${fill}" stroke-width="${4 + rng() * 20}" stroke-opacity="${opacity}"/>`);
    }
  }
  return { svg: `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`, width, height };
}

export const LOW_DETAIL_SEEDS = 2_000_000;

function quadrantsSvg(seed: number): { svg: string; width: number; height: number } {
  const rng = mulberry32(seed * 2654435761);
  const [width, height] = [1200, 900];
  const quadrant = (x: number, y: number) => `<rect x="${x}" y="${y}" width="${width / 2}" height="${height / 2}" fill="${colour(rng)}"/>`;
  const parts = [quadrant(0, 0), quadrant(width / 2, 0), quadrant(0, height / 2), quadrant(width / 2, height / 2)];
  return { svg: `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`, width, height };
}

export async function drawPicture(seed: number): Promise<Picture> {
  const { svg, width, height } = seed >= LOW_DETAIL_SEEDS ? quadrantsSvg(seed) : pictureSvg(seed);
  const png = await sharp(Buffer.from(svg)).removeAlpha().png({ compressionLevel: 1 }).toBuffer();
  return { seed, png, width, height };
}
