/**
 * Generated avatars for users without an uploaded one and for anonymous authors (reference §5.5):
 * a small pony head drawn as SVG, fully determined by the display name. The name's CRC32 seeds a
 * xorshift32 generator, which picks species, coat, mane, eyes and background from fixed tables;
 * the same name always gives the same bytes. The API sends it as a `data:image/svg+xml;base64,`
 * URI, so comment and post `avatar` is never null.
 */

const CRC_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, as zlib) of the UTF-8 bytes of a string, or of raw bytes. */
export function crc32(input: string | Uint8Array): number {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Marsaglia's xorshift32; a zero seed (which would stay zero) is replaced by a constant. */
export function xorshift32(seed: number): () => number {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

const SPECIES = ['earth', 'pegasus', 'unicorn', 'bat'] as const;
export type AvatarSpecies = (typeof SPECIES)[number];

const COATS = [
  '#f5f5f5', '#e8d8b8', '#c9a27e', '#8d6748', '#5b4636', '#9e9e9e', '#4a4a4a', '#f6c1d1',
  '#f8e38a', '#b8e0f6', '#c9b8f0', '#b8f0c9', '#f0b8b8', '#ffd3a8', '#a8d8d0', '#d7d7f5',
] as const;
const MANES = [
  '#e23b3b', '#f08a24', '#f2d22e', '#53b848', '#2f8fd8', '#6a4bc4', '#d64ba8', '#222222',
  '#7a4a22', '#f7f7f7', '#3cc4c4', '#a11f5a', '#ff7eb6', '#5d6fd6', '#b0e05a', '#c77d2e',
] as const;
const EYES = ['#3a6fd8', '#2e9e5b', '#8a4fd0', '#c2502a', '#5a3a1e', '#d4a017', '#1f8f9f', '#b03070'] as const;
const BACKGROUNDS = ['#e9f1fb', '#f8efe6', '#eef8ea', '#f6eaf6', '#fbf7e4', '#e8f6f6', '#f0f0f0', '#fde9ec'] as const;

export interface AvatarTraits {
  species: AvatarSpecies;
  coat: string;
  mane: string;
  eye: string;
  background: string;
  /** 0..2: which mane silhouette. */
  maneStyle: number;
}

function pick<T>(list: readonly T[], next: () => number): T {
  return list[next() % list.length]!;
}

/** The traits a name stands for. */
export function avatarTraits(name: string): AvatarTraits {
  const next = xorshift32(crc32(name));
  return {
    species: pick(SPECIES, next),
    coat: pick(COATS, next),
    mane: pick(MANES, next),
    eye: pick(EYES, next),
    background: pick(BACKGROUNDS, next),
    maneStyle: next() % 3,
  };
}

/** A darker shade of a `#rrggbb` colour, for outlines and the far side. */
function shade(hex: string, factor: number): string {
  const v = Number.parseInt(hex.slice(1), 16);
  const channel = (shift: number) => Math.round(((v >> shift) & 0xff) * factor);
  return `#${[16, 8, 0].map((s) => channel(s).toString(16).padStart(2, '0')).join('')}`;
}

const MANE_SHAPES = [
  // swept back
  'M44 30 C60 10 96 12 104 40 C110 62 100 86 108 110 C92 100 84 82 86 62 C80 76 70 80 62 78 C72 64 70 48 60 42 C56 50 48 54 40 52 C46 46 46 38 44 30 Z',
  // short and spiky
  'M46 28 L58 14 L64 26 L76 10 L80 26 L96 16 L94 34 L108 34 L98 48 L106 62 L92 64 L96 80 L84 76 C84 60 78 46 64 40 C58 48 50 52 42 50 C48 42 48 36 46 28 Z',
  // long and curly
  'M42 32 C50 12 86 6 102 28 C116 46 104 62 114 78 C120 92 108 108 96 112 C104 98 94 92 92 80 C88 66 92 56 80 50 C76 60 68 64 60 62 C66 52 62 44 56 42 C52 50 44 54 36 52 C42 46 40 40 42 32 Z',
] as const;

/** The SVG document of a name's avatar (125×125). */
export function avatarSvg(name: string): string {
  const t = avatarTraits(name);
  const outline = shade(t.coat, 0.7);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="125" height="125" viewBox="0 0 125 125">`,
    `<rect width="125" height="125" fill="${t.background}"/>`,
  ];
  if (t.species === 'pegasus') {
    parts.push(`<path d="M84 96 C98 78 118 76 122 84 C112 86 118 92 106 94 C114 98 104 104 96 104 Z" fill="${shade(t.coat, 0.9)}" stroke="${outline}" stroke-width="2"/>`);
  } else if (t.species === 'bat') {
    parts.push(`<path d="M84 96 L122 74 L116 88 L124 92 L112 98 L116 108 L96 104 Z" fill="${shade(t.coat, 0.6)}" stroke="${outline}" stroke-width="2"/>`);
  }
  parts.push(
    // neck and chest
    `<path d="M58 70 C70 84 78 100 76 125 L112 125 C112 100 100 80 88 62 Z" fill="${t.coat}" stroke="${outline}" stroke-width="2"/>`,
    // head and muzzle
    `<ellipse cx="64" cy="58" rx="28" ry="24" fill="${t.coat}" stroke="${outline}" stroke-width="2"/>`,
    `<ellipse cx="40" cy="70" rx="16" ry="12" fill="${t.coat}" stroke="${outline}" stroke-width="2"/>`,
    `<ellipse cx="32" cy="70" rx="2" ry="1.5" fill="${outline}"/>`,
    // ear
    `<path d="M74 38 L84 16 L90 42 Z" fill="${t.coat}" stroke="${outline}" stroke-width="2"/>`,
  );
  parts.push(`<path d="${MANE_SHAPES[t.maneStyle]}" fill="${t.mane}" stroke="${shade(t.mane, 0.7)}" stroke-width="2"/>`);
  if (t.species === 'unicorn') {
    parts.push(`<path d="M56 36 L40 6 L66 32 Z" fill="${shade(t.coat, 0.92)}" stroke="${outline}" stroke-width="2"/>`);
  }
  parts.push(
    // eye
    `<ellipse cx="56" cy="56" rx="7" ry="9" fill="#ffffff" stroke="#222222" stroke-width="1.5"/>`,
    `<ellipse cx="54.5" cy="57" rx="4.5" ry="6.5" fill="${t.eye}"/>`,
    `<ellipse cx="53.5" cy="57" rx="2" ry="3" fill="#111111"/>`,
    `<circle cx="52.5" cy="54" r="1.5" fill="#ffffff"/>`,
    `</svg>`,
  );
  return parts.join('');
}

/** The avatar as a `data:` URI, the form the API sends. */
export function avatarDataUri(name: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(avatarSvg(name), 'utf8').toString('base64')}`;
}
