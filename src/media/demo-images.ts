/**
 * Deterministic demo art for seeding a board without downloading anything. A seed picks a scene
 * (sky gradient, sun or moon, stars, clouds, hills, and a small pony-like character), a size and a
 * palette; the scene is drawn as SVG and rasterised with sharp. The same seed and kind always give
 * the same bytes.
 *
 * Sizes range from about 300×300 to 2000×1500 with square, landscape, portrait, tall and wide
 * shapes; GIFs are small loops of 4–8 frames.
 */
import sharp from 'sharp';
import { mulberry32 } from '../lib/random.js';

export type DemoKind = 'png' | 'jpeg' | 'gif' | 'svg';

export interface DemoImage {
  bytes: Buffer;
  /** A believable upload file name, e.g. `twilight_meadow_pony_17.png`. */
  name: string;
  kind: DemoKind;
  width: number;
  height: number;
}

/** The kind a seeder should use for a seed when it has no preference (mostly png and jpeg). */
export function demoKindFor(seed: number): DemoKind {
  const r = mulberry32(seed ^ 0x5eed)();
  // Animated GIFs cost ten times a still to process: a few of them show the feature.
  if (r < 0.55) return 'png';
  if (r < 0.9) return 'jpeg';
  if (r < 0.93) return 'gif';
  return 'svg';
}

export async function generateDemoImage(seed: number, kind: DemoKind = demoKindFor(seed)): Promise<DemoImage> {
  const rng = mulberry32(hashSeed(seed, kind));
  const scene = makeScene(rng, kind);
  const name = `${scene.title}_${seed}.${kind === 'jpeg' ? 'jpg' : kind}`;
  const { width, height } = scene;
  switch (kind) {
    case 'svg':
      return { bytes: Buffer.from(renderSvg(scene, 0), 'utf8'), name, kind, width, height };
    case 'png': {
      // The sky covers the whole canvas, so the alpha channel the rasteriser adds carries nothing.
      const bytes = await sharp(Buffer.from(renderSvg(scene, 0))).removeAlpha().png({ compressionLevel: 6 }).toBuffer();
      return { bytes, name, kind, width, height };
    }
    case 'jpeg': {
      const bytes = await sharp(Buffer.from(renderSvg(scene, 0)))
        .flatten({ background: '#000000' })
        .jpeg({ quality: 86 })
        .toBuffer();
      return { bytes, name, kind, width, height };
    }
    case 'gif': {
      const frames = scene.frames;
      const strips: Buffer[] = [];
      for (let f = 0; f < frames; f++) {
        strips.push(await sharp(Buffer.from(renderSvg(scene, f))).ensureAlpha().raw().toBuffer());
      }
      const delay = Array.from({ length: frames }, () => scene.frameDelayMs);
      const bytes = await sharp(Buffer.concat(strips), {
        raw: { width, height: height * frames, channels: 4, pageHeight: height },
      })
        .gif({ delay, loop: 0, effort: 1 })
        .toBuffer();
      return { bytes, name, kind, width, height };
    }
  }
}

// ---------------------------------------------------------------------------------------------

interface Pony {
  x: number;
  y: number;
  scale: number;
  coat: string;
  mane: string;
  eye: string;
  facingLeft: boolean;
}

interface Scene {
  title: string;
  width: number;
  height: number;
  night: boolean;
  skyTop: string;
  skyBottom: string;
  sun: { x: number; y: number; r: number; color: string };
  stars: Array<{ x: number; y: number; r: number; color: string; phase: number }>;
  clouds: Array<{ x: number; y: number; w: number; opacity: number }>;
  hills: Array<{ color: string; base: number; amplitude: number; phase: number; waves: number }>;
  ponies: Pony[];
  sparkles: Array<{ x: number; y: number; r: number; color: string }>;
  frames: number;
  frameDelayMs: number;
}

const SKIES: Array<[string, string, boolean, string]> = [
  ['#1b2a6b', '#f28c8c', false, 'sunset'],
  ['#3a7bd5', '#bfe9ff', false, 'daylight'],
  ['#0b1026', '#2b3a7a', true, 'starry'],
  ['#ff9a8b', '#ffe29f', false, 'dawn'],
  ['#141e30', '#6a3093', true, 'twilight'],
  ['#56ab2f', '#d4fc79', false, 'meadow'],
  ['#2c3e50', '#fd746c', false, 'dusk'],
  ['#000428', '#004e92', true, 'moonlit'],
];

const COATS = ['#f5c6e0', '#c9a0dc', '#9ed8f0', '#f7e27b', '#ffffff', '#b0b7c3', '#f4a460', '#a8e6a1', '#ffb6c1', '#8fa8ff'];
const MANES = ['#e2498a', '#4b2a7b', '#f15b2a', '#2b6fd6', '#ffd700', '#1fa774', '#ff69b4', '#6a0dad', '#ff4500', '#20b2aa'];
const HILL_SHADES = ['#2e7d32', '#388e3c', '#43a047', '#1b5e20', '#558b2f', '#33691e', '#4e6e3a', '#6b8e23'];
const SUBJECTS = ['pony', 'ponies', 'friends', 'adventure', 'picnic', 'flight', 'gallop', 'dream'];
const PLACES = ['meadow', 'hills', 'valley', 'orchard', 'sky', 'lake', 'forest', 'cliffs'];

/** Shapes: [width, height] in units of the base size. */
const SHAPES: Array<[number, number]> = [
  [1, 1], [4 / 3, 1], [3 / 4, 1], [16 / 9, 1], [9 / 16, 1], [3 / 2, 1], [2 / 3, 1], [1, 2.6], [2.6, 1], [5 / 4, 1],
];

function hashSeed(seed: number, kind: DemoKind): number {
  let h = (seed | 0) ^ 0x9e3779b9;
  for (const c of kind) h = Math.imul(h ^ c.charCodeAt(0), 0x85ebca6b) ^ (h >>> 13);
  return h >>> 0;
}

function pick<T>(rng: () => number, list: readonly T[]): T {
  return list[Math.floor(rng() * list.length) % list.length] as T;
}

function between(rng: () => number, lo: number, hi: number): number {
  return lo + (hi - lo) * rng();
}

function chooseSize(rng: () => number, kind: DemoKind): { width: number; height: number } {
  const [sw, sh] = pick(rng, SHAPES);
  if (kind === 'gif') {
    const base = Math.round(between(rng, 110, 230));
    const w = Math.min(320, Math.round(base * Math.min(sw, 1.5)));
    const h = Math.min(320, Math.round(base * Math.min(sh, 1.5)));
    return { width: Math.max(100, w), height: Math.max(100, h) };
  }
  // Mostly moderate sizes, sometimes large: the long side from ~300 to ~2000 px.
  const r = rng();
  const longSide = r < 0.55 ? between(rng, 300, 800) : r < 0.9 ? between(rng, 800, 1400) : between(rng, 1400, 2000);
  const scale = longSide / Math.max(sw, sh);
  let width = Math.round(sw * scale);
  let height = Math.round(sh * scale);
  // Keep the area at most 2000×1500.
  const maxArea = 2000 * 1500;
  if (width * height > maxArea) {
    const k = Math.sqrt(maxArea / (width * height));
    width = Math.floor(width * k);
    height = Math.floor(height * k);
  }
  return { width: Math.max(120, width), height: Math.max(120, height) };
}

function makeScene(rng: () => number, kind: DemoKind): Scene {
  const { width, height } = chooseSize(rng, kind);
  const [skyTop, skyBottom, night, mood] = pick(rng, SKIES);
  const unit = Math.min(width, height);
  const title = `${mood}_${pick(rng, PLACES)}_${pick(rng, SUBJECTS)}`;

  const sun = {
    x: between(rng, 0.1, 0.9) * width,
    y: between(rng, 0.08, 0.35) * height,
    r: between(rng, 0.05, 0.12) * unit,
    color: night ? '#f4f1de' : pick(rng, ['#fff3b0', '#ffd166', '#ffe5a0', '#fff8e7']),
  };

  const starCount = night ? Math.floor(between(rng, 30, 90)) : Math.floor(between(rng, 0, 6));
  const stars = Array.from({ length: starCount }, () => ({
    x: rng() * width,
    y: rng() * height * 0.6,
    r: between(rng, 0.004, 0.014) * unit,
    color: pick(rng, ['#ffffff', '#fff6c9', '#cfe8ff', '#ffd1f0']),
    phase: rng(),
  }));

  const clouds = Array.from({ length: night ? Math.floor(between(rng, 0, 3)) : Math.floor(between(rng, 1, 6)) }, () => ({
    x: rng() * width,
    y: between(rng, 0.05, 0.45) * height,
    w: between(rng, 0.12, 0.3) * width,
    opacity: between(rng, 0.5, 0.9),
  }));

  const hillCount = 2 + Math.floor(rng() * 3);
  const hills = Array.from({ length: hillCount }, (_, k) => ({
    color: pick(rng, HILL_SHADES),
    base: height * (0.55 + (k / hillCount) * 0.35 + between(rng, -0.03, 0.03)),
    amplitude: between(rng, 0.03, 0.1) * height,
    phase: rng() * Math.PI * 2,
    waves: between(rng, 0.6, 2.2),
  }));

  const ponyCount = 1 + Math.floor(rng() * 3);
  const ponies = Array.from({ length: ponyCount }, () => ({
    x: between(rng, 0.15, 0.85) * width,
    y: between(rng, 0.72, 0.9) * height,
    scale: between(rng, 0.12, 0.26) * unit,
    coat: pick(rng, COATS),
    mane: pick(rng, MANES),
    eye: pick(rng, ['#6a3fa0', '#2a7ab8', '#2e8b57', '#b8860b', '#c2185b']),
    facingLeft: rng() < 0.5,
  }));

  const sparkles = Array.from({ length: Math.floor(between(rng, 3, 12)) }, () => ({
    x: rng() * width,
    y: rng() * height,
    r: between(rng, 0.01, 0.025) * unit,
    color: pick(rng, ['#ffffff', '#fff59d', '#f8bbd0', '#b3e5fc']),
  }));

  return {
    title,
    width,
    height,
    night,
    skyTop,
    skyBottom,
    sun,
    stars,
    clouds,
    hills,
    ponies,
    sparkles,
    frames: 4 + Math.floor(rng() * 5),
    frameDelayMs: 80 + Math.floor(rng() * 8) * 10,
  };
}

const f1 = (n: number) => (Math.round(n * 10) / 10).toString();

function starPath(cx: number, cy: number, r: number): string {
  const points: string[] = [];
  for (let k = 0; k < 10; k++) {
    const radius = k % 2 === 0 ? r : r * 0.45;
    const angle = -Math.PI / 2 + (k * Math.PI) / 5;
    points.push(`${f1(cx + radius * Math.cos(angle))},${f1(cy + radius * Math.sin(angle))}`);
  }
  return `M${points.join('L')}Z`;
}

function hillPath(scene: Scene, hill: Scene['hills'][number]): string {
  const steps = 24;
  const parts = [`M0,${f1(scene.height)}`];
  for (let s = 0; s <= steps; s++) {
    const x = (s / steps) * scene.width;
    const y = hill.base - hill.amplitude * Math.sin(hill.phase + (s / steps) * Math.PI * 2 * hill.waves);
    parts.push(`L${f1(x)},${f1(y)}`);
  }
  parts.push(`L${f1(scene.width)},${f1(scene.height)}Z`);
  return parts.join('');
}

function ponySvg(p: Pony, bounce: number): string {
  const s = p.scale;
  const flip = p.facingLeft ? -1 : 1;
  // Drawn around (0,0) = middle of the body, then placed, scaled and mirrored.
  return `<g transform="translate(${f1(p.x)},${f1(p.y - bounce * s * 0.15)}) scale(${f1(flip * s / 100)},${f1(s / 100)})">
<path d="M-38,10 C-70,0 -80,40 -60,60 C-55,40 -45,30 -38,25Z" fill="${p.mane}"/>
<rect x="-30" y="20" width="11" height="42" rx="5" fill="${p.coat}" stroke="#00000033" stroke-width="2"/>
<rect x="-12" y="22" width="11" height="40" rx="5" fill="${p.coat}" stroke="#00000033" stroke-width="2"/>
<rect x="12" y="22" width="11" height="40" rx="5" fill="${p.coat}" stroke="#00000033" stroke-width="2"/>
<rect x="28" y="20" width="11" height="42" rx="5" fill="${p.coat}" stroke="#00000033" stroke-width="2"/>
<ellipse cx="0" cy="10" rx="48" ry="30" fill="${p.coat}" stroke="#00000033" stroke-width="2"/>
<path d="M30,-5 L48,-40 L62,-30 L45,5Z" fill="${p.coat}"/>
<circle cx="58" cy="-48" r="24" fill="${p.coat}" stroke="#00000033" stroke-width="2"/>
<ellipse cx="76" cy="-40" rx="12" ry="9" fill="${p.coat}"/>
<path d="M50,-70 L56,-92 L64,-68Z" fill="${p.coat}" stroke="#00000033" stroke-width="2"/>
<path d="M36,-58 C30,-85 60,-90 68,-66 C55,-75 45,-60 40,-30 C30,-35 28,-45 36,-58Z" fill="${p.mane}"/>
<ellipse cx="64" cy="-50" rx="6" ry="8" fill="#ffffff"/>
<ellipse cx="65" cy="-49" rx="4" ry="6" fill="${p.eye}"/>
<circle cx="66" cy="-52" r="1.8" fill="#ffffff"/>
</g>`;
}

/** The SVG of one frame (`frame` 0 for stills). */
function renderSvg(scene: Scene, frame: number): string {
  const { width, height } = scene;
  const t = scene.frames > 0 ? frame / scene.frames : 0;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    '<defs>',
    `<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${scene.skyTop}"/><stop offset="1" stop-color="${scene.skyBottom}"/></linearGradient>`,
    `<radialGradient id="glow"><stop offset="0" stop-color="${scene.sun.color}" stop-opacity="0.9"/><stop offset="1" stop-color="${scene.sun.color}" stop-opacity="0"/></radialGradient>`,
    '</defs>',
    `<rect width="${width}" height="${height}" fill="url(#sky)"/>`,
    `<circle cx="${f1(scene.sun.x)}" cy="${f1(scene.sun.y)}" r="${f1(scene.sun.r * 2.2)}" fill="url(#glow)"/>`,
    `<circle cx="${f1(scene.sun.x)}" cy="${f1(scene.sun.y)}" r="${f1(scene.sun.r)}" fill="${scene.sun.color}"/>`,
  );
  if (scene.night) {
    out.push(`<circle cx="${f1(scene.sun.x + scene.sun.r * 0.4)}" cy="${f1(scene.sun.y - scene.sun.r * 0.2)}" r="${f1(scene.sun.r * 0.85)}" fill="${scene.skyTop}"/>`);
  }
  for (const star of scene.stars) {
    const twinkle = 0.6 + 0.4 * Math.abs(Math.sin((star.phase + t) * Math.PI * 2));
    out.push(`<path d="${starPath(star.x, star.y, star.r * twinkle)}" fill="${star.color}"/>`);
  }
  for (const cloud of scene.clouds) {
    const dx = t * cloud.w * 0.3;
    const { x, y, w } = cloud;
    out.push(
      `<g fill="#ffffff" fill-opacity="${f1(cloud.opacity)}"><ellipse cx="${f1(x + dx)}" cy="${f1(y)}" rx="${f1(w * 0.5)}" ry="${f1(w * 0.16)}"/>` +
        `<ellipse cx="${f1(x + dx - w * 0.15)}" cy="${f1(y - w * 0.1)}" rx="${f1(w * 0.22)}" ry="${f1(w * 0.14)}"/>` +
        `<ellipse cx="${f1(x + dx + w * 0.12)}" cy="${f1(y - w * 0.12)}" rx="${f1(w * 0.25)}" ry="${f1(w * 0.17)}"/></g>`,
    );
  }
  for (const hill of scene.hills) out.push(`<path d="${hillPath(scene, hill)}" fill="${hill.color}"/>`);
  scene.ponies.forEach((pony, k) => {
    const bounce = Math.abs(Math.sin((t + k * 0.3) * Math.PI * 2));
    out.push(ponySvg(pony, scene.frames > 1 ? bounce : 0));
  });
  for (const sp of scene.sparkles) {
    const r = sp.r * (0.7 + 0.3 * Math.cos(t * Math.PI * 2));
    out.push(`<path d="${starPath(sp.x, sp.y, r)}" fill="${sp.color}" fill-opacity="0.85"/>`);
  }
  out.push('</svg>');
  return out.join('\n');
}
