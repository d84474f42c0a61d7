/**
 * SVG rasterised at a bounded size. An SVG's declared width and height cost nothing to write
 * (`width="9999" height="10000"` is a few bytes), but librsvg renders at that size, and a filter
 * (turbulence, blur) costs time and several full-size surfaces per pixel: a 237-byte file took
 * minutes and gigabytes at 100 megapixels. Every rendering here is scaled down (sharp's
 * `density`, 72 being 1:1) so that it holds at most the given number of pixels, whatever the
 * declared size; a smaller SVG is rendered at its own size.
 *
 * Budgets: `SVG_SEARCH_PIXELS` for the frame reverse search and the intensities read (they reduce
 * it to a 32×32 grid and four averages), `SVG_RASTER_PIXELS` for the `full.png`, `rendered.png`
 * and versions of processing. What a rendering still costs within these is bounded by the
 * sandbox's deadline (sandbox/pool.ts).
 */
import sharp, { type Sharp } from 'sharp';

/**
 * 256 × 256: the search frame of an SVG (and the check that it renders at all). The fingerprint
 * reads a 32 × 32 grid of it and the intensities four averages; the bomb renders at this
 * size in about 50 ms on an idle core.
 */
export const SVG_SEARCH_PIXELS = 256 * 256;
/**
 * 2048 × 2048: the PNG renderings that processing stores; enough for the largest version (`tall`,
 * 1024 × 4096). Filters cost more than linearly: the bomb took 1.6 s at 1024² and 38 s at
 * 2048² on a shared two-core machine.
 */
export const SVG_RASTER_PIXELS = 2048 * 2048;

/** The density (dots per inch, 72 = the declared size) that renders at most `maxPixels`. */
export function svgDensity(width: number, height: number, maxPixels: number): number {
  const pixels = width * height;
  if (!(pixels > maxPixels)) return 72;
  // Rounding down keeps the product under the budget after libvips rounds each side.
  return Math.floor(72 * Math.sqrt(maxPixels / pixels) * 1000) / 1000;
}

/** A sharp input of the SVG scaled to at most `maxPixels`; its declared size is read first. */
export async function loadSvg(bytes: Buffer, maxPixels: number): Promise<Sharp> {
  const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  const density = svgDensity(meta.width ?? 0, meta.height ?? 0, maxPixels);
  // The pixel limit only catches a size the header did not tell (rounding stays far below it).
  return sharp(bytes, { density, limitInputPixels: Math.ceil(maxPixels * 1.05) + 4096 });
}
