/**
 * Fuzzing the decode sandbox with bombs (issue 35): seeded random SVGs (declared sizes up to the
 * largest sharp reads, filter chains of turbulence, blur, morphology and convolution, `<use>`
 * amplification), animated GIFs whose canvas × frames is huge while the file is tiny, and an
 * animated WebP. Each must settle within the sandbox's deadline and a margin (a child
 * may need starting), as a result or a `MediaError`, never another failure, and the sandbox must
 * serve a normal image afterwards, its memory cap holding throughout.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/lib/random.js';
import { MediaError } from '../../src/media/errors.js';
import { DecodeSandbox } from '../../src/media/sandbox/pool.js';
import { issueSvgBomb, renderTimeBomb } from './svg-bombs.js';

const DEADLINE_MS = 2_500;
/** A killed child is replaced by a fresh one, which takes a second or two to load on a busy machine. */
const MARGIN_MS = 6_000;
const sandbox = new DecodeSandbox({ size: 2, maxWaiting: 64, maxWaitMs: 120_000, deadlineMs: DEADLINE_MS, memoryMb: 512 });

afterAll(() => sandbox.close());

/** The largest resident memory of the sandbox's children, sampled every 20 ms until `stop()`. */
function sampleChildren() {
  let max = 0;
  const timer = setInterval(() => {
    for (const pid of sandbox.pids) {
      try {
        const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
        max = Math.max(max, kb / 1024);
      } catch {
        // the child is gone
      }
    }
  }, 20);
  return { stop: () => (clearInterval(timer), max) };
}

/** A random SVG built to cost: a declared size, then a filter chain over the whole canvas. */
function randomSvg(random: () => number): Buffer {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const side = () => 1 + Math.floor(random() ** 0.3 * 16_383);
  const primitive = () =>
    pick([
      () => `<feTurbulence baseFrequency="${random().toFixed(3)}" numOctaves="${1 + Math.floor(random() * 12)}"/>`,
      () => `<feGaussianBlur stdDeviation="${Math.floor(random() * 500)}"/>`,
      () => `<feMorphology operator="dilate" radius="${Math.floor(random() * 2_000)}"/>`,
      () => `<feConvolveMatrix order="${3 + 2 * Math.floor(random() * 10)}" kernelMatrix="${Array.from({ length: 441 }, () => '1').join(' ')}"/>`,
    ])();
  const chain = Array.from({ length: 1 + Math.floor(random() * 6) }, primitive).join('');
  // `<use>` nesting: each level draws the one below ten times.
  const levels = Math.floor(random() * 6);
  let defs = '<rect id="u0" width="100%" height="100%" filter="url(#f)"/>';
  for (let k = 1; k <= levels; k++) defs += `<g id="u${k}">${Array.from({ length: 10 }, () => `<use href="#u${k - 1}"/>`).join('')}</g>`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${side()}" height="${side()}"><defs><filter id="f">${chain}</filter>${defs}</defs><use href="#u${levels}"/></svg>`,
  );
}

/**
 * A GIF of `frames` frames, each declaring the whole `width` × `height` canvas but holding the
 * data of one pixel: 23 bytes a frame, while a decoder allocates every frame at full size.
 */
function canvasGif(width: number, height: number, frames: number): Buffer {
  const header = Buffer.from('GIF89a', 'latin1');
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  screen[4] = 0x80; // a global colour table of 2 entries
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  const loop = Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1'), 0x03, 0x01, 0x00, 0x00, 0x00]);
  const size = Buffer.alloc(4);
  size.writeUInt16LE(width, 0);
  size.writeUInt16LE(height, 2);
  const frame = Buffer.from([
    0x21, 0xf9, 0x04, 0x00, 0x02, 0x00, 0x00, 0x00, // graphic control: 20 ms
    0x2c, 0, 0, 0, 0, ...size, 0x00, // image descriptor: the whole canvas at (0, 0)
    0x02, 0x02, 0x44, 0x01, 0x00, // LZW (min code size 2): clear, 0, end
  ]);
  return Buffer.concat([header, screen, palette, loop, ...Array.from({ length: frames }, () => frame), Buffer.from([0x3b])]);
}

async function animatedWebp(): Promise<Buffer> {
  const frames = 20;
  const strip = await sharp({ create: { width: 400, height: 400 * frames, channels: 3, background: '#224466' } }).raw().toBuffer();
  return sharp(strip, { raw: { width: 400, height: 400 * frames, channels: 3, pageHeight: 400 } }).webp({ quality: 10, effort: 0 }).toBuffer();
}

/** Runs one bomb: how long it took and whether it settled as a result or a MediaError. */
async function settle(task: 'intake' | 'search-key', bytes: Buffer): Promise<{ ms: number; outcome: string }> {
  const started = performance.now();
  let outcome: string;
  try {
    await sandbox.run(task, bytes, {});
    outcome = 'decoded';
  } catch (error) {
    if (!(error instanceof MediaError)) throw error;
    outcome = error.message;
  }
  return { ms: performance.now() - started, outcome };
}

describe('bombs in the decode sandbox', () => {
  it('settles each of 12 random SVG bombs within the deadline, as a result or a MediaError', { timeout: 240_000 }, async () => {
    const random = mulberry32(35);
    const bombs = [issueSvgBomb(), ...Array.from({ length: 11 }, () => randomSvg(random))];
    const memory = sampleChildren();
    const results = await Promise.all(bombs.map((bomb, k) => settle(k % 2 === 0 ? 'search-key' : 'intake', bomb)));
    // The cap is checked every 50 ms: a child may pass it by what it allocates in that time.
    expect(memory.stop()).toBeLessThan(sandbox.options.memoryMb + 256);
    // Waiting for a slot is not the bomb's time: bound each by its share of the slots instead.
    const rounds = Math.ceil(bombs.length / sandbox.options.size);
    for (const r of results) expect(r.ms).toBeLessThan(rounds * (DEADLINE_MS + MARGIN_MS));
    expect(results.every((r) => r.outcome === 'decoded' || r.outcome.length > 0)).toBe(true);
  });

  it('kills a render-time bomb at the deadline, and decodes a normal image next', { timeout: 60_000 }, async () => {
    const before = sandbox.kills.deadline;
    const bomb = await settle('search-key', renderTimeBomb());
    expect(bomb.outcome).toBe('took more time or memory to decode than is allowed');
    expect(bomb.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
    expect(sandbox.kills.deadline).toBe(before + 1);
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } }).png().toBuffer();
    expect((await settle('search-key', png)).outcome).toBe('decoded');
  });

  it('refuses animated GIFs whose canvas × frames is over the budget, and bounds those under it', { timeout: 120_000 }, async () => {
    // 16,000² declared: the pixel limit; 9,000² × 14 frames: over the animated limit (2^30).
    const overLimit = await settle('intake', canvasGif(16_000, 16_000, 2));
    expect(overLimit.outcome).toBe('must be at most 100000000 pixels (width × height)');
    const overAnimated = await settle('intake', canvasGif(9_000, 9_000, 14));
    expect(overAnimated.outcome).toBe('dimensions are too large to process');
    expect(Math.max(overLimit.ms, overAnimated.ms)).toBeLessThan(MARGIN_MS);
    // 8,000² × 16 frames, just under it (1.2 KB): the check that the whole file decodes refuses
    // it (sharp's limit on the strip of frames), the search frame (the 9th, after decoding eight
    // of 256 MB each) ends within the deadline, decoded or killed.
    const under = canvasGif(8_000, 8_000, 16);
    expect((await settle('intake', under)).outcome).toBe('dimensions are too large to process');
    expect((await settle('search-key', under)).ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
    // Many frames on a small canvas: 60,000 frames of 100² (600 M pixels) in 1.4 MB.
    const many = await settle('intake', canvasGif(100, 100, 60_000));
    expect(many.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
  });

  it('refuses an animated WebP (not an accepted type) at once', { timeout: 60_000 }, async () => {
    const webp = await settle('intake', await animatedWebp());
    expect(webp.outcome).toBe('(image/webp) is invalid');
    expect(webp.ms).toBeLessThan(MARGIN_MS);
  });
});
