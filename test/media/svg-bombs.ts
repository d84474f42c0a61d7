/**
 * Hostile SVGs for the tests: files of a few hundred bytes or KB whose rendering costs minutes and
 * gigabytes, as issue 35 reported them.
 */

/**
 * The issue's bomb: 9,999 × 10,000 declared (just under the pixel limit), a turbulence and a
 * gaussian blur over all of it: a full-size rendering took minutes and over a gigabyte.
 */
export function issueSvgBomb(): Buffer {
  return Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="9999" height="10000"><filter id="f"><feTurbulence baseFrequency=".9" numOctaves="9"/>' +
      '<feGaussianBlur stdDeviation="99"/></filter><rect width="100%" height="100%" filter="url(#f)"/></svg>',
  );
}

/**
 * A bomb of rendering time at a modest declared size (500 × 500, under any bounded raster): 400
 * turbulences of ten octaves each (28 KB), over a minute of rendering even at 256 × 256 (sixty
 * took 12 s at 500 × 500).
 */
export function renderTimeBomb(turbulences = 400): Buffer {
  const primitives = Array.from({ length: turbulences }, (_, i) => `<feTurbulence baseFrequency="0.${i + 1}" numOctaves="10" result="t${i}"/>`).join('');
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="500" height="500"><filter id="f" x="0" y="0" width="1" height="1">${primitives}` +
      '<feGaussianBlur stdDeviation="40"/></filter><rect width="100%" height="100%" filter="url(#f)"/></svg>',
  );
}
