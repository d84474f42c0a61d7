/**
 * The search workbench page's script (bundled for the browser by ../browser-bundle.ts). Two
 * modes over the JSON API:
 *
 * - Query: the query box completes the term at the caret (`/autocomplete/tags?format=rich`),
 *   checks the query as it is typed (`/search/explain`) and underlines the place of an error, shows
 *   the compiled DSL, the hit count and the first page of thumbnails (`/search/images`), spoilered
 *   ones blurred until clicked.
 * - Filter: the author edits hidden and spoilered tags and complex expressions, and sees what the
 *   filter would do (`/filters/test`) and, for any image (a thumbnail or an example id), why it is
 *   hidden or spoilered (`/filters/explain`).
 *
 * An API key, if given, is kept for the session and sent with every request. Every element is
 * built with DOM calls and `textContent`: no text from the API is parsed as HTML.
 */

/** The JSON API's prefix; the bundler writes it in. */
declare const API_PREFIX: string;

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<Record<string, string>> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) if (v !== undefined) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}

/** What every error answer may carry (a query error says where it is). */
interface ErrorFields {
  error?: string;
  parameter?: string;
  position?: { offset: number; line: number; column: number };
  excerpt?: { text: string; at: number };
}

interface ApiAnswer<T> {
  status: number;
  /** The answer's body: `T` on success, the error fields otherwise. */
  body: T & ErrorFields;
}

const KEY_STORE = 'tagwise-search-key';

async function api<T>(path: string, params: Record<string, string | number | undefined>): Promise<ApiAnswer<T>> {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, String(v));
  const key = sessionStorage.getItem(KEY_STORE);
  if (key) search.set('key', key);
  const res = await fetch(`${API_PREFIX}${path}?${search}`, { headers: { accept: 'application/json' } });
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = { error: `HTTP ${res.status}` };
  }
  return { status: res.status, body: body as T & ErrorFields };
}

/** Calls `fn` once the input has paused for `ms`; only the latest call's answer is used. */
function debounced(ms: number, fn: () => Promise<void>): () => void {
  let timer: number | undefined;
  return () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void fn(), ms);
  };
}

/** A counter that tells a stale answer from the latest one. */
function latest() {
  let n = 0;
  return () => {
    const mine = ++n;
    return () => mine === n;
  };
}

// ---------------------------------------------------------------------------------------------
// Query box: errors underlined, autocomplete
// ---------------------------------------------------------------------------------------------

const query = $<HTMLInputElement>('q');
const mirror = $<HTMLDivElement>('q-mirror');
const errorLine = $<HTMLParagraphElement>('q-error');
const suggestions = $<HTMLUListElement>('suggestions');
const dsl = $<HTMLPreElement>('dsl-text');
const count = $<HTMLParagraphElement>('count');
const results = $<HTMLDivElement>('results');

/** Draw the query behind the input with the error's character underlined. */
function underline(text: string, offset: number | null) {
  mirror.replaceChildren();
  if (offset === null) {
    mirror.append(text);
    return;
  }
  const at = Math.min(offset, text.length);
  const mark = el('mark', { class: 'err' }, text.slice(at, at + 1) || ' ');
  mirror.append(text.slice(0, at), mark, text.slice(at + 1));
  mirror.scrollLeft = query.scrollLeft;
}

query.addEventListener('scroll', () => {
  mirror.scrollLeft = query.scrollLeft;
});

interface Suggestion {
  kind: 'tag' | 'alias' | 'field';
  name: string;
  value: string;
  label: string;
  category: string | null;
  match: string;
  distance: number;
}

let shown: { list: Suggestion[]; replace: { start: number; end: number }; active: number } | null = null;

function closeSuggestions() {
  shown = null;
  suggestions.replaceChildren();
  suggestions.hidden = true;
  query.setAttribute('aria-expanded', 'false');
  query.removeAttribute('aria-activedescendant');
}

function drawSuggestions() {
  suggestions.replaceChildren();
  if (shown === null || shown.list.length === 0) return closeSuggestions();
  shown.list.forEach((s, i) => {
    const item = el('li', { role: 'option', id: `suggestion-${i}`, class: `kind-${s.kind}${s.category ? ` cat-${s.category}` : ''}`, 'aria-selected': String(i === shown!.active) });
    item.append(el('span', { class: 'label' }, s.label));
    if (s.match !== 'prefix') item.append(el('span', { class: 'how' }, s.match === 'typo' ? `${s.distance} typo${s.distance > 1 ? 's' : ''}` : 'words'));
    item.addEventListener('mousedown', (e) => {
      e.preventDefault();
      accept(i);
    });
    suggestions.append(item);
  });
  suggestions.hidden = false;
  query.setAttribute('aria-expanded', 'true');
  query.setAttribute('aria-activedescendant', `suggestion-${shown.active}`);
}

function accept(i: number) {
  if (shown === null) return;
  const s = shown.list[i];
  if (!s) return;
  const { start, end } = shown.replace;
  const text = query.value;
  const insert = s.value;
  query.value = text.slice(0, start) + insert + text.slice(end);
  const caret = start + insert.length;
  query.setSelectionRange(caret, caret);
  closeSuggestions();
  checkQuery();
}

const completeTurn = latest();
const complete = debounced(80, async () => {
  const isLatest = completeTurn();
  const term = query.value;
  const cursor = query.selectionStart ?? term.length;
  if (term.slice(0, cursor).trim() === '') return closeSuggestions();
  const { status, body } = await api<{ term: string; replace: { start: number; end: number }; suggestions: Suggestion[] }>('/autocomplete/tags', {
    term,
    cursor,
    format: 'rich',
    limit: 8,
  });
  if (!isLatest() || document.activeElement !== query) return;
  if (status !== 200 || body.term.trim() === '') return closeSuggestions();
  shown = { list: body.suggestions, replace: body.replace, active: 0 };
  drawSuggestions();
});

query.addEventListener('keydown', (e) => {
  if (shown === null) {
    if (e.key === 'Enter') {
      e.preventDefault();
      void runSearch();
    }
    return;
  }
  const n = shown.list.length;
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    e.preventDefault();
    shown.active = (shown.active + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
    drawSuggestions();
  } else if (e.key === 'Enter' || e.key === 'Tab') {
    e.preventDefault();
    accept(shown.active);
  } else if (e.key === 'Escape') {
    closeSuggestions();
  }
});
query.addEventListener('blur', () => closeSuggestions());

// ---------------------------------------------------------------------------------------------
// Checking and running the query
// ---------------------------------------------------------------------------------------------

const checkTurn = latest();
const checkQuery = debounced(120, async () => {
  const isLatest = checkTurn();
  const q = query.value;
  if (q.trim() === '') {
    underline(q, null);
    errorLine.textContent = '';
    dsl.textContent = '';
    return;
  }
  const { status, body } = await api<{ query: unknown }>('/search/explain', { index: 'images', q });
  if (!isLatest()) return;
  if (status === 400 && body.position) {
    underline(q, body.position.offset);
    errorLine.textContent = `${body.error} (line ${body.position.line}, column ${body.position.column})`;
    query.setAttribute('aria-invalid', 'true');
    return;
  }
  query.removeAttribute('aria-invalid');
  underline(q, null);
  errorLine.textContent = status === 200 ? '' : String(body.error ?? `HTTP ${status}`);
  if (status === 200) {
    dsl.textContent = JSON.stringify(body.query, null, 2);
    void runSearch();
  }
});

query.addEventListener('input', () => {
  underline(query.value, null);
  complete();
  checkQuery();
});

/** A visible image of a search page (a merged or deleted one is a stub without these fields). */
interface ImageJson {
  id: number;
  hidden_from_users: boolean;
  spoilered: boolean;
  tags: string[];
  representations: Record<string, string>;
  thumbnails_generated: boolean;
}

const searchTurn = latest();
async function runSearch() {
  const isLatest = searchTurn();
  const q = query.value.trim();
  if (q === '') return;
  const { status, body } = await api<{ total: number; images: ImageJson[] }>('/search/images', { q, per_page: 24 });
  if (!isLatest() || status !== 200) return;
  count.textContent = `${body.total.toLocaleString('en-US')} image${body.total === 1 ? '' : 's'}`;
  // an image merged or deleted since the index last heard of it is listed as its stub: no thumbnail
  results.replaceChildren(...body.images.filter((image) => !image.hidden_from_users).map(thumbnail));
}

function thumbnail(image: ImageJson): HTMLElement {
  const img = el('img', { src: image.representations.thumb ?? '', alt: image.tags.slice(0, 8).join(', '), loading: 'lazy' });
  const button = el('button', { type: 'button', class: `thumb${image.spoilered ? ' spoilered' : ''}`, 'data-id': String(image.id), title: `#${image.id}: ${image.tags.join(', ')}` }, img);
  if (image.spoilered) button.append(el('span', { class: 'badge' }, 'spoilered'));
  button.addEventListener('click', () => {
    if (mode === 'filter') void explainImage(image.id);
    else button.classList.remove('spoilered');
  });
  return button;
}

// ---------------------------------------------------------------------------------------------
// Filter mode
// ---------------------------------------------------------------------------------------------

let mode: 'query' | 'filter' = 'query';
const filterForm = $<HTMLFormElement>('filter-form');
const benchOut = $<HTMLDivElement>('bench');
const why = $<HTMLDivElement>('why');
const filterError = $<HTMLParagraphElement>('filter-error');

function setMode(next: 'query' | 'filter') {
  mode = next;
  document.body.dataset.mode = next;
  for (const tab of document.querySelectorAll<HTMLButtonElement>('[data-tab]')) tab.setAttribute('aria-selected', String(tab.dataset.tab === next));
  $('filter-panel').hidden = next !== 'filter';
  if (next === 'filter') void runBench();
}
for (const tab of document.querySelectorAll<HTMLButtonElement>('[data-tab]')) tab.addEventListener('click', () => setMode(tab.dataset.tab as 'query' | 'filter'));

/** The inline filter of the form, as the API's parameters. */
function filterParams(): Record<string, string> {
  const data = new FormData(filterForm);
  const out: Record<string, string> = {};
  for (const name of ['hidden_tags', 'spoilered_tags', 'hidden_complex', 'spoilered_complex']) out[name] = String(data.get(name) ?? '');
  return out;
}

function showFilterError(body: ErrorFields | null): boolean {
  filterError.replaceChildren();
  for (const area of filterForm.querySelectorAll('textarea')) area.removeAttribute('aria-invalid');
  if (!body?.error) return false;
  const text = body.parameter && body.position ? `${body.parameter}: ${body.error} (line ${body.position.line}, column ${body.position.column})` : body.error;
  filterError.append(text);
  if (body.parameter && body.excerpt) {
    const { text: ex, at } = body.excerpt;
    filterError.append(el('code', {}, ex.slice(0, at), el('mark', { class: 'err' }, ex.slice(at, at + 1) || ' '), ex.slice(at + 1)));
    filterForm.querySelector(`[name="${body.parameter}"]`)?.setAttribute('aria-invalid', 'true');
  }
  return true;
}

interface BenchClause {
  kind: string;
  text: string;
  images: number;
  examples: number[];
  children: BenchClause[];
}

interface BenchList {
  images: number;
  tags: { id: number; name: string | null; images: number; examples: number[] }[];
  complex: BenchClause | null;
}

interface BenchAnswer {
  sample: { q: string | null; size: number; evaluated: number; complete: boolean };
  hidden: number;
  spoilered: number;
  hidden_by: BenchList;
  spoilered_by: BenchList;
}

/** Names of the filter's tags, from the bench's last answer, to name them in explanations. */
const tagNames = new Map<number, string>();

function exampleLinks(ids: number[]): HTMLElement {
  const span = el('span', { class: 'examples' });
  for (const id of ids) {
    const b = el('button', { type: 'button', class: 'link' }, `#${id}`);
    b.addEventListener('click', () => void explainImage(id));
    span.append(b);
  }
  return span;
}

function clauseList(clause: BenchClause): HTMLElement {
  const li = el('li', {}, el('code', {}, clause.text), ` ${clause.images} `, exampleLinks(clause.examples));
  if (clause.children.length > 0 && clause.kind !== 'term') li.append(el('ul', {}, ...clause.children.map(clauseList)));
  return li;
}

const benchTurn = latest();
const runBench = async () => {
  const isLatest = benchTurn();
  benchOut.setAttribute('aria-busy', 'true');
  const { status, body } = await api<BenchAnswer>('/filters/test', { ...filterParams(), q: $<HTMLInputElement>('sample-q').value, sample: $<HTMLInputElement>('sample-size').value });
  if (!isLatest()) return;
  benchOut.removeAttribute('aria-busy');
  if (status !== 200) {
    showFilterError(body);
    return;
  }
  showFilterError(null);
  const s = body.sample;
  const summary = el(
    'p',
    { class: 'numbers' },
    el('strong', { id: 'bench-hidden' }, String(body.hidden)),
    ' hidden, ',
    el('strong', { id: 'bench-spoilered' }, String(body.spoilered)),
    ` spoilered of ${s.size} ${s.q ? `images matching “${s.q}”` : 'newest images'}${s.complete ? '' : ` (time budget: ${s.evaluated} looked at)`}`,
  );
  const part = (title: string, list: BenchList) => {
    const section = el('section', { class: 'part' }, el('h3', {}, `${title}: ${list.images} images`));
    if (list.tags.length > 0) {
      const table = el('table', {}, el('tr', {}, el('th', {}, 'tag'), el('th', {}, 'images'), el('th', {}, 'examples')));
      for (const t of list.tags) if (t.name !== null) tagNames.set(t.id, t.name);
      for (const t of list.tags) table.append(el('tr', {}, el('td', {}, t.name ?? `#${t.id}`), el('td', {}, String(t.images)), el('td', {}, exampleLinks(t.examples))));
      section.append(table);
    }
    if (list.complex) section.append(el('ul', { class: 'clauses' }, clauseList(list.complex)));
    return section;
  };
  benchOut.replaceChildren(summary, part('Hidden by', body.hidden_by), part('Spoilered by', body.spoilered_by));
};
const benchSoon = debounced(300, runBench);
filterForm.addEventListener('input', benchSoon);
filterForm.addEventListener('submit', (e) => {
  e.preventDefault();
  void runBench();
});

interface ClauseMatch {
  text: string;
  matched: boolean;
  kind: string;
  children: ClauseMatch[];
}

interface FilterPart {
  tag_ids: number[];
  complex: ClauseMatch | null;
}

interface FilterExplainAnswer {
  hidden: boolean;
  spoilered: boolean;
  hidden_by: FilterPart;
  spoilered_by: FilterPart;
}

function matchTree(clause: ClauseMatch): HTMLElement {
  const li = el('li', { class: clause.matched ? 'yes' : 'no' }, el('span', { class: 'mark' }, clause.matched ? '✓' : '✗'), ' ', el('code', {}, clause.text));
  if (clause.children.length > 0 && clause.kind !== 'term') li.append(el('ul', {}, ...clause.children.map(matchTree)));
  return li;
}

async function explainImage(id: number) {
  const { status, body } = await api<FilterExplainAnswer>('/filters/explain', { ...filterParams(), image_id: id });
  why.replaceChildren();
  if (status !== 200) {
    why.append(el('p', { class: 'error' }, String(body.error ?? `HTTP ${status}`)));
    return;
  }
  const verdict = body.hidden ? 'hidden' : body.spoilered ? 'spoilered' : 'shown';
  why.append(el('h3', {}, `Image #${id} is `, el('strong', { id: 'why-verdict' }, verdict)));
  for (const [title, part] of [['Hidden by', body.hidden_by], ['Spoilered by', body.spoilered_by]] as const) {
    const items: HTMLElement[] = [];
    if (part.tag_ids.length > 0) items.push(el('p', {}, `tags: ${part.tag_ids.map((t) => tagNames.get(t) ?? `#${t}`).join(', ')}`));
    if (part.complex) items.push(el('ul', { class: 'clauses' }, matchTree(part.complex)));
    if (items.length > 0) why.append(el('h4', {}, title), ...items);
  }
  why.scrollIntoView({ block: 'nearest' });
}

// ---------------------------------------------------------------------------------------------
// Key, keyboard, start
// ---------------------------------------------------------------------------------------------

const keyInput = $<HTMLInputElement>('key');
keyInput.value = sessionStorage.getItem(KEY_STORE) ?? '';
keyInput.addEventListener('change', () => {
  if (keyInput.value.trim() === '') sessionStorage.removeItem(KEY_STORE);
  else sessionStorage.setItem(KEY_STORE, keyInput.value.trim());
  void runSearch();
});

document.addEventListener('keydown', (e) => {
  const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
  if (e.key === '/' && !typing) {
    e.preventDefault();
    query.focus();
  }
});

const initial = new URLSearchParams(location.search).get('q');
if (initial) {
  query.value = initial;
  underline(initial, null);
  checkQuery();
}
