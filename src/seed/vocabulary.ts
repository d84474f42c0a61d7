/**
 * Words the seeders build a believable board from: tags by category, the aliases and implications
 * between them, user names, and text snippets.
 */
import type { TagCategory } from '../db/schema/tags.js';

export const CHARACTERS = [
  'twilight sparkle', 'rainbow dash', 'fluttershy', 'pinkie pie', 'applejack', 'rarity', 'spike',
  'princess celestia', 'princess luna', 'starlight glimmer', 'trixie', 'derpy hooves', 'discord',
  'sunset shimmer', 'apple bloom', 'sweetie belle', 'scootaloo', 'princess cadance', 'shining armor',
  'big macintosh', 'zecora', 'queen chrysalis', 'maud pie', 'lyra heartstrings', 'bon bon',
  'vinyl scratch', 'octavia melody', 'granny smith', 'cheerilee', 'gilda',
] as const;

export const SPECIES = [
  'pony', 'earth pony', 'pegasus', 'unicorn', 'alicorn', 'bat pony', 'dragon', 'changeling', 'griffon',
  'zebra', 'draconequus', 'kirin', 'hippogriff', 'human',
] as const;

export const BODY_TYPES = ['feral', 'anthro', 'semi-anthro', 'humanized'] as const;

export const ERROR_TAGS = ['artist needed', 'source needed', 'useless source url'] as const;

export const OFFICIAL_CONTENT = ['official', 'g4', 'g5', 'season 9', 'comic official'] as const;

export const SPOILERS = ['spoiler:s01e01', 'spoiler:s05e26', 'spoiler:s09e26', 'spoiler:the movie'] as const;

export const FANMADE_CONTENT = [
  'comic:the long night', 'comic:friendship express', 'fanfic:starfall', 'fanfic:a quiet orchard',
  'series:meadow tales', 'art pack:summer sketches', 'video:hoofbeats animated',
] as const;

/** Tags with no category, roughly most used first (their Zipf rank follows this order). */
export const GENERAL = [
  'solo', 'female', 'mare', 'smiling', 'looking at you', 'open mouth', 'cute', 'simple background',
  'wings', 'horn', 'male', 'duo', 'white background', 'transparent background', 'eyes closed',
  'stallion', 'sitting', 'blushing', 'happy', 'flying', 'grass', 'sky', 'cloud', 'tree', 'cutie mark',
  'digital art', 'spread wings', 'raised hoof', 'lying down', 'hat', 'book', 'filly', 'colt', 'group',
  'trio', 'night', 'stars', 'moon', 'sun', 'sunset', 'magic', 'glowing horn', 'floppy ears', 'bow',
  'hair bow', 'scarf', 'glasses', 'apple', 'cake', 'cupcake', 'flower', 'snow', 'rain', 'water',
  'beach', 'forest', 'castle', 'gradient background', 'traditional art', 'pixel art', 'sketch',
  'lineart', 'vector', '3d', 'animated', 'crown', 'tiara', 'jewelry', 'hug', 'running', 'sad',
  'eye clipping through hair', 'hoof shoes', 'frown', 'tongue out', 'looking back', 'profile',
  'silhouette', 'portrait', 'bust', 'wallpaper', 'high res', 'absurd res', 'photo', 'plushie',
  'text', 'dialogue', 'speech bubble', 'comic', 'reference sheet', 'cosplay', 'clothes', 'hoodie',
  'sweater', 'socks', 'umbrella', 'lantern', 'campfire', 'guitar', 'headphones', 'tea', 'coffee',
  'cookie', 'pie', 'balloon', 'party hat', 'present', 'hearth\'s warming', 'christmas', 'halloween',
  'nightmare night', 'autumn', 'winter', 'spring', 'summer', 'leaves', 'mountain', 'river', 'lake',
  'bridge', 'train', 'library', 'bed', 'pillow', 'window', 'chair', 'table', 'lamp', 'candle',
  'background pony',
] as const;

/** Aliases: the alias name, then the tag it stands for. */
export const ALIASES: ReadonlyArray<readonly [string, string]> = [
  ['pegasus pony', 'pegasus'],
  ['unicorn pony', 'unicorn'],
  ['twilight', 'twilight sparkle'],
  ['dashie', 'rainbow dash'],
  ['flutters', 'fluttershy'],
  ['aj', 'applejack'],
  ['celestia', 'princess celestia'],
  ['luna', 'princess luna'],
  ['derpy', 'derpy hooves'],
  ['ditzy doo', 'derpy hooves'],
  ['smile', 'smiling'],
  ['hires', 'high res'],
  ['bg pony', 'background pony'],
];

/** Implications: the tag, then the tags it implies. */
export const IMPLICATIONS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['twilight sparkle', ['alicorn', 'female', 'mare']],
  ['rainbow dash', ['pegasus', 'female', 'mare']],
  ['fluttershy', ['pegasus', 'female', 'mare']],
  ['pinkie pie', ['earth pony', 'female', 'mare']],
  ['applejack', ['earth pony', 'female', 'mare']],
  ['rarity', ['unicorn', 'female', 'mare']],
  ['spike', ['dragon', 'male']],
  ['princess celestia', ['alicorn', 'female', 'mare']],
  ['princess luna', ['alicorn', 'female', 'mare']],
  ['starlight glimmer', ['unicorn', 'female', 'mare']],
  ['trixie', ['unicorn', 'female', 'mare']],
  ['derpy hooves', ['pegasus', 'female', 'mare']],
  ['discord', ['draconequus', 'male']],
  ['sunset shimmer', ['unicorn', 'female', 'mare']],
  ['apple bloom', ['earth pony', 'female', 'filly']],
  ['sweetie belle', ['unicorn', 'female', 'filly']],
  ['scootaloo', ['pegasus', 'female', 'filly']],
  ['princess cadance', ['alicorn', 'female', 'mare']],
  ['shining armor', ['unicorn', 'male', 'stallion']],
  ['big macintosh', ['earth pony', 'male', 'stallion']],
  ['zecora', ['zebra', 'female']],
  ['queen chrysalis', ['changeling', 'female']],
  ['maud pie', ['earth pony', 'female', 'mare']],
  ['lyra heartstrings', ['unicorn', 'female', 'mare']],
  ['bon bon', ['earth pony', 'female', 'mare']],
  ['vinyl scratch', ['unicorn', 'female', 'mare']],
  ['octavia melody', ['earth pony', 'female', 'mare']],
  ['granny smith', ['earth pony', 'female']],
  ['cheerilee', ['earth pony', 'female', 'mare']],
  ['gilda', ['griffon', 'female']],
  ['earth pony', ['pony']],
  ['pegasus', ['pony']],
  ['unicorn', ['pony']],
  ['alicorn', ['pony']],
  ['bat pony', ['pony']],
  ['mare', ['female']],
  ['filly', ['female']],
  ['stallion', ['male']],
  ['colt', ['male']],
  ['spread wings', ['wings']],
  ['glowing horn', ['horn']],
  ['hair bow', ['bow']],
  ['absurd res', ['high res']],
];

/** Categories of the fixed tags that are not namespaced (namespaced ones get theirs from the namespace). */
export const FIXED_CATEGORIES: ReadonlyArray<readonly [readonly string[], TagCategory]> = [
  [CHARACTERS, 'character'],
  [SPECIES, 'species'],
  [BODY_TYPES, 'body-type'],
  [ERROR_TAGS, 'error'],
  [OFFICIAL_CONTENT, 'content-official'],
  [['oc', 'oc only'], 'oc'],
];

const SYLLABLES = [
  'am', 'ber', 'bri', 'cal', 'cor', 'dai', 'del', 'fa', 'fen', 'gal', 'hol', 'i', 'jas', 'ka', 'lin',
  'lo', 'mar', 'mel', 'mi', 'nor', 'o', 'pa', 'pix', 'quil', 'ra', 'ren', 'sa', 'sky', 'ta', 'tor',
  'va', 'vel', 'wil', 'xa', 'yu', 'zen',
];
const NAME_WORDS = [
  'star', 'moon', 'sun', 'cloud', 'brush', 'ink', 'quill', 'pixel', 'hoof', 'feather', 'breeze',
  'ember', 'frost', 'dusk', 'dawn', 'meadow', 'river', 'stone', 'thistle', 'clover', 'maple', 'cinder',
  'silver', 'copper', 'amber', 'velvet', 'willow', 'sparrow', 'lark', 'echo', 'rusty', 'lemon',
];

/** An invented name: one to three syllables, sometimes two words (`velmar`, `star_quill`). */
export function inventName(rng: { int(lo: number, hi: number): number; pick<T>(l: readonly T[]): T; chance(p: number): boolean }, separator = ' '): string {
  if (rng.chance(0.45)) return `${rng.pick(NAME_WORDS)}${separator}${rng.pick(NAME_WORDS)}`;
  let s = '';
  const n = rng.int(2, 3);
  for (let i = 0; i < n; i++) s += rng.pick(SYLLABLES);
  return rng.chance(0.25) ? `${s}${rng.int(1, 99)}` : s;
}

/** The demo's accounts: the first three are the staff. */
export const DEMO_USERS: ReadonlyArray<{ name: string; role: 'user' | 'assistant' | 'moderator' | 'admin'; artist?: string; description: string }> = [
  { name: 'Stellar', role: 'admin', description: 'Runs the place. Ping me about anything broken.' },
  { name: 'Marshal Mint', role: 'moderator', description: 'Moderator. Please read the rules before posting.' },
  { name: 'Helping Hoof', role: 'assistant', description: 'Tag assistant. I fix tags so you don\'t have to.' },
  { name: 'Brushstroke', role: 'user', artist: 'brushstroke', description: 'Digital painter. Commissions open!' },
  { name: 'Velvet Ink', role: 'user', artist: 'velvet_ink', description: 'Ink and watercolour, mostly ponies.' },
  { name: 'Pixel Quill', role: 'user', artist: 'pixel_quill', description: 'Pixel art and tiny animations.' },
  { name: 'Cloud Chaser', role: 'user', description: 'Just here for the pegasi.' },
  { name: 'Meadowlark', role: 'user', description: '' },
  { name: 'Night Owl', role: 'user', description: 'Luna fan since day one.' },
  { name: 'Paper Lantern', role: 'user', artist: 'paper_lantern', description: 'Traditional art, scanned badly.' },
  { name: 'Rusty Gears', role: 'user', description: 'Collector of background pony pictures.' },
  { name: 'Sketchy', role: 'user', description: 'Sketches. Lots of sketches.' },
  { name: 'Starry Eyes', role: 'user', description: '' },
  { name: 'Thistle', role: 'user', description: 'I tag things.' },
  { name: 'Willow Wisp', role: 'user', description: 'Curating galleries of cozy art.' },
  { name: 'Amber Glow', role: 'user', description: '' },
  { name: 'Bitter Lemon', role: 'user', description: 'Critic. Constructive, mostly.' },
  { name: 'Copper Kettle', role: 'user', description: 'Tea, books and pastel ponies.' },
  { name: 'Daisy Chain', role: 'user', description: '' },
  { name: 'Echo Vale', role: 'user', artist: 'echo_vale', description: 'Vector artist.' },
  { name: 'Fern Gully', role: 'user', description: '' },
  { name: 'Glimmerwing', role: 'user', description: 'OC enjoyer.' },
  { name: 'Hazel Nut', role: 'user', description: '' },
  { name: 'Indigo Sky', role: 'user', description: 'Night skies and starry manes.' },
  { name: 'Juniper', role: 'user', description: 'Lurker.' },
];

export const DESCRIPTIONS = [
  'A quick sketch from this morning.',
  'Commission for a friend. Thanks for looking!',
  'Finally finished this one. Took me three weeks.',
  'Part of my summer series.',
  'Redraw of an old piece, compare with the original in the sources.',
  'Based on the episode everyone keeps talking about.',
  'Experimenting with a new brush set.',
  '*Happy birthday* to the best pony!',
  'Wallpaper version available on request.',
  'Speedpaint, about two hours.',
  'Gift art. Go follow the original artist!',
  'Warm colours for a cold evening.',
];

export const COMMENTS = [
  'This is adorable!',
  'Love the colours on this one.',
  'The lighting is *perfect*.',
  'Saving this for later.',
  'Best pony, best picture.',
  'How long did this take you?',
  'The background is so detailed, wow.',
  'I can\'t stop looking at the expression.',
  'Needs more tags, but great art.',
  'This made my day.',
  'Wallpaper material right here.',
  'The wings look a bit off, but still lovely.',
  'Source?',
  'Reminds me of the old comics.',
  'Faved, obviously.',
  'Is there a version without the text?',
];

export const POSTS = [
  'Welcome! Please introduce yourself here.',
  'Has anyone tried the new tagging guidelines yet?',
  'I think the search syntax is easier than it looks: try `safe, solo, score.gt:50`.',
  'Agreed, the filters make browsing much nicer.',
  'Does anyone know who drew the featured image?',
  'Great thread, thanks for starting it.',
  'I\'ll post my progress later today.',
  'Here is a tip: use `my:faves` to search your favourites.',
  'The upload limit is generous, but please keep sources.',
  'Bumping this because it is still relevant.',
  'I disagree, but I see your point.',
  'Looking forward to the next art event!',
];

export const TOPICS = {
  general: ['Introduce yourself!', 'What got you into the fandom?', 'Favourite episode thread', 'Off-topic chatter', 'Pet pictures thread', 'Music while browsing'],
  art: ['Critique corner', 'Art supplies and software', 'Monthly art challenge', 'Show your sketchbook', 'Colour theory questions'],
  meta: ['Site rules and tagging guidelines', 'Feature requests', 'Bug reports', 'Search syntax help'],
  staff: ['Moderation queue notes', 'Upcoming changes'],
} as const;
