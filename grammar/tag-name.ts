/**
 * Tag names (reference §8.4): the cleaning every tag name goes through (also applied to image
 * tag search values), the namespaces, and URL slugs. Image submission reuses these.
 */

/** Known tag namespaces: `ns:rest` with one of these has namespace `ns`. */
export const TAG_NAMESPACES: readonly string[] = Object.freeze([
  'artist',
  'art pack',
  'ask',
  'blog',
  'colorist',
  'comic',
  'commissioner',
  'editor',
  'fanfic',
  'oc',
  'parent',
  'parents',
  'photographer',
  'series',
  'species',
  'spoiler',
  'video',
]);

const namespaceSet = new Set(TAG_NAMESPACES);

/** Names starting with these keep their underscores. */
const KEEP_UNDERSCORES = ['artist:', 'colorist:', 'commissioner:', 'editor:', 'oc:', 'photographer:'];

const WHITESPACE_RUN = /[\s\u0085\u180e\u200b-\u200f\ufeff]+/gu;
const SINGLE_QUOTES = /[\u00b4\u2018\u2019\u201a\u201b\u2032]/gu;
const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033]/gu;
const SPACE_RUN = / {2,}/g;

/**
 * Clean a tag name: lowercase; collapse whitespace runs (including the Unicode spaces) to one
 * space; typographic quotes to ASCII; `ns : rest` to `ns:rest` for a known namespace; `_` to a
 * space unless the name starts with `artist:`, `colorist:`, `commissioner:`, `editor:`, `oc:` or
 * `photographer:`; trim.
 */
export function cleanTagName(name: string): string {
  if (isClean(name)) return name;
  let s = name
    .toLowerCase()
    .replace(WHITESPACE_RUN, ' ')
    .replace(SINGLE_QUOTES, "'")
    .replace(DOUBLE_QUOTES, '"')
    .trim();
  const colon = s.indexOf(':');
  if (colon !== -1) {
    const ns = s.slice(0, colon).trim();
    if (namespaceSet.has(ns)) s = `${ns}:${s.slice(colon + 1).trim()}`;
  }
  if (!KEEP_UNDERSCORES.some((p) => s.startsWith(p))) s = s.replace(/_/g, ' ');
  return s.trim().replace(SPACE_RUN, ' ');
}

/**
 * Whether cleaning would leave the name as it is: printable lowercase ASCII without `_`, single
 * inner spaces only, and no space next to the first colon.
 */
function isClean(name: string): boolean {
  let previousSpace = true; // a leading space is not clean
  let colon = -1;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 32) {
      if (previousSpace) return false;
      previousSpace = true;
      continue;
    }
    if (c < 32 || c >= 127 || (c >= 65 && c <= 90) || c === 95) return false;
    if (c === 58 && colon === -1) colon = i;
    previousSpace = false;
  }
  if (previousSpace && name.length > 0) return false;
  return colon === -1 || (name.charCodeAt(colon - 1) !== 32 && name.charCodeAt(colon + 1) !== 32);
}

/** Namespace and name within it: `{namespace: 'artist', nameInNamespace: 'foo'}` or a null namespace. */
export function splitNamespace(name: string): { namespace: string | null; nameInNamespace: string } {
  const colon = name.indexOf(':');
  if (colon !== -1) {
    const ns = name.slice(0, colon);
    if (namespaceSet.has(ns)) return { namespace: ns, nameInNamespace: name.slice(colon + 1) };
  }
  return { namespace: null, nameInNamespace: name };
}

/**
 * URL slug of a tag name (Philomena's `Slug.slug`): `-` → `-dash-`, `/` → `-fwslash-`,
 * `\` → `-bwslash-`, `:` → `-colon-`, `.` → `-dot-`, `+` → `-plus-`, space → `+`, in that order;
 * nothing else changes.
 */
export function slugify(name: string): string {
  return name
    .replace(/-/g, '-dash-')
    .replace(/\//g, '-fwslash-')
    .replace(/\\/g, '-bwslash-')
    .replace(/:/g, '-colon-')
    .replace(/\./g, '-dot-')
    .replace(/\+/g, '-plus-')
    .replace(/ /g, '+');
}
