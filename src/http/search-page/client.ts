/**
 * The search workbench page's script (bundled for the browser by ../pages/browser-bundle.ts). Two
 * modes over the JSON API:
 *
 * - Query: the query box offers completions of the term at the caret (`/autocomplete/tags?format=rich`;
 *   one is taken only when picked), checks the query as it is typed (`/search/explain`) and
 *   underlines the place of an error, says "did you mean" for unknown tags and fields, shows the
 *   compiled DSL, the hit count and pages of thumbnails (`/search/images`, sorted by `sf`/`sd`),
 *   spoilered ones blurred until clicked.
 * - Filter: the author edits hidden and spoilered tags and complex expressions, and sees what the
 *   filter would do (`/filters/test`), the grid as that filter shows it (`/filters/images`) and,
 *   for any image (a thumbnail, an example id or one typed in), why it is hidden or spoilered
 *   (`/filters/explain`).
 *
 * Opening an image shows its tags and how the query (`/search/explain?image_id=`) and the filter
 * meet it. An error replaces the results it invalidates: nothing stale stays beside it.
 *
 * An API key, if given, is kept for the session and sent with every request. Every element is
 * built with DOM calls and `textContent`: no text from the API is parsed as HTML.
 */

import { $, api, debounced, el, type ErrorFields, KEY_STORE, latest } from './helpers.js';
import { listMyFilters, setUpSavedFilters } from './saved-filters.js';

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

/** The open list; `active` is -1 until the person moves into it (only a pick is taken). */
let shown: { list: Suggestion[]; replace: { start: number; end: number }; active: number } | null = null;
/** Escape closes the list until the next keystroke. */
let dismissed = false;

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
  if (shown.active >= 0) query.setAttribute('aria-activedescendant', `suggestion-${shown.active}`);
  else query.removeAttribute('aria-activedescendant');
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
  if (dismissed || term.slice(0, cursor).trim() === '') return closeSuggestions();
  const { status, body } = await api<{ term: string; replace: { start: number; end: number }; suggestions: Suggestion[] }>('/autocomplete/tags', {
    term,
    cursor,
    format: 'rich',
    limit: 8,
  });
  if (!isLatest() || dismissed || document.activeElement !== query) return;
  if (status !== 200 || body.term.trim() === '') return closeSuggestions();
  shown = { list: body.suggestions, replace: body.replace, active: -1 };
  drawSuggestions();
});

query.addEventListener('keydown', (e) => {
  const picked = shown !== null && shown.active >= 0;
  if (shown !== null && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
    e.preventDefault();
    const n = shown.list.length;
    shown.active = e.key === 'ArrowDown' ? (shown.active + 1) % n : shown.active <= 0 ? n - 1 : shown.active - 1;
    drawSuggestions();
  } else if (picked && (e.key === 'Enter' || e.key === 'Tab')) {
    e.preventDefault();
    accept(shown!.active);
  } else if (e.key === 'Enter') {
    // Enter searches what was typed: a suggestion nobody picked does not rewrite the query.
    e.preventDefault();
    closeSuggestions();
    page = 1;
    void runSearch();
  } else if (e.key === 'Escape') {
    dismissed = true;
    closeSuggestions();
  }
});
query.addEventListener('blur', () => closeSuggestions());

// ---------------------------------------------------------------------------------------------
// Checking and running the query
// ---------------------------------------------------------------------------------------------

const hint = $<HTMLParagraphElement>('hint');
const pager = $<HTMLElement>('pager');
const sortField = $<HTMLSelectElement>('sf');
const sortDir = $<HTMLSelectElement>('sd');
const perPage = $<HTMLSelectElement>('per-page');
let page = 1;

/** An unknown tag or field of the query, with what the person may have meant. */
interface DidYouMean {
  term: string;
  kind: 'tag' | 'field';
  start: number;
  end: number;
  suggestions: string[];
}

/** "Did you mean": each suggestion a button that puts it in the place of the unknown term. */
function showDidYouMean(list: DidYouMean[] | undefined) {
  hint.replaceChildren();
  for (const unknown of list ?? []) {
    const line = el('span', { class: 'dym' }, `No ${unknown.kind} “${unknown.term}”`);
    if (unknown.suggestions.length > 0) line.append(' — did you mean ');
    unknown.suggestions.forEach((name, i) => {
      const b = el('button', { type: 'button', class: 'link' }, name);
      b.addEventListener('click', () => {
        query.value = query.value.slice(0, unknown.start) + name + query.value.slice(unknown.end);
        page = 1;
        checkQuery();
      });
      line.append(i > 0 ? ', ' : '', b);
    });
    hint.append(line);
  }
}

/** No results beside an error: the count says why, the grid and pager are emptied. */
function clearResults(message: string) {
  count.textContent = message;
  results.replaceChildren();
  pager.hidden = true;
}

const checkTurn = latest();
const checkQuery = debounced(120, async () => {
  const isLatest = checkTurn();
  const q = query.value;
  if (q.trim() === '') {
    underline(q, null);
    errorLine.textContent = '';
    dsl.textContent = '';
    showDidYouMean([]);
    if (mode === 'filter') void runSearch();
    else clearResults('');
    return;
  }
  const { status, body } = await api<{ query: unknown; did_you_mean?: DidYouMean[] }>('/search/explain', { index: 'images', q });
  if (!isLatest()) return;
  dsl.textContent = status === 200 ? JSON.stringify(body.query, null, 2) : '';
  showDidYouMean(status === 200 ? body.did_you_mean : []);
  if (status === 200) {
    query.removeAttribute('aria-invalid');
    underline(q, null);
    errorLine.textContent = '';
    void runSearch();
    return;
  }
  clearResults('');
  if (body.position) {
    underline(q, body.position.offset);
    errorLine.textContent = `${body.error} (line ${body.position.line}, column ${body.position.column})`;
    query.setAttribute('aria-invalid', 'true');
  } else {
    errorLine.textContent = String(body.error ?? `HTTP ${status}`);
  }
});

query.addEventListener('input', () => {
  dismissed = false;
  page = 1;
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
/**
 * The page of images: `/search/images` in query mode; in filter mode `/filters/images`, the grid
 * as the filter under edit shows it.
 */
async function runSearch() {
  const isLatest = searchTurn();
  const q = query.value.trim();
  if (q === '' && mode === 'query') return clearResults('');
  const size = Number(perPage.value);
  const params = { q: q || undefined, page, per_page: size, sf: sortField.value, sd: sortDir.value };
  const answer = mode === 'filter' ? api<{ total: number; images: ImageJson[] }>('/filters/images', { ...params, ...filterParams() }) : api<{ total: number; images: ImageJson[] }>('/search/images', params);
  const { status, body } = await answer;
  if (!isLatest()) return;
  if (status !== 200) return clearResults(mode === 'filter' && body.parameter ? '' : String(body.error ?? `HTTP ${status}`));
  count.textContent = `${body.total.toLocaleString('en-US')} image${body.total === 1 ? '' : 's'}`;
  // an image merged or deleted since the index last heard of it is listed as its stub: no thumbnail
  results.replaceChildren(...body.images.filter((image) => !image.hidden_from_users).map(thumbnail));
  const pages = Math.max(1, Math.ceil(body.total / size));
  pager.hidden = body.total <= size && page === 1;
  $('page-of').textContent = `page ${page} of ${pages.toLocaleString('en-US')}`;
  $<HTMLButtonElement>('prev').disabled = page <= 1;
  $<HTMLButtonElement>('next').disabled = page >= pages;
}

function turnPage(by: number) {
  page = Math.max(1, page + by);
  void runSearch();
}
$('prev').addEventListener('click', () => turnPage(-1));
$('next').addEventListener('click', () => turnPage(1));
for (const select of [sortField, sortDir, perPage]) {
  select.addEventListener('change', () => {
    page = 1;
    void runSearch();
  });
}

function thumbnail(image: ImageJson): HTMLElement {
  const img = el('img', { src: image.representations.thumb ?? '', alt: image.tags.slice(0, 8).join(', '), loading: 'lazy' });
  const button = el('button', { type: 'button', class: `thumb${image.spoilered ? ' spoilered' : ''}`, 'data-id': String(image.id), title: `#${image.id}: ${image.tags.join(', ')}` }, img);
  if (image.spoilered) button.append(el('span', { class: 'badge' }, 'spoilered'));
  button.addEventListener('click', () => {
    // In query mode the first click on a spoiler reveals it; a click on a shown image opens it.
    if (mode === 'query' && button.classList.contains('spoilered')) button.classList.remove('spoilered');
    else void openImage(image.id);
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
  page = 1;
  if (next === 'filter') void runBench();
  void runSearch();
}
for (const tab of document.querySelectorAll<HTMLButtonElement>('[data-tab]')) tab.addEventListener('click', () => setMode(tab.dataset.tab as 'query' | 'filter'));

/** The inline filter of the form, as the API's parameters. */
function filterParams(): Record<string, string> {
  const data = new FormData(filterForm);
  const out: Record<string, string> = {};
  for (const name of ['hidden_tags', 'spoilered_tags', 'hidden_complex', 'spoilered_complex']) out[name] = String(data.get(name) ?? '');
  return out;
}

/** Shows a filter's error, or clears it; an error also clears the bench, the explanation and the grid it invalidates. */
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
  benchOut.replaceChildren();
  why.replaceChildren();
  clearResults('');
  filterError.scrollIntoView({ block: 'nearest' });
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
    b.addEventListener('click', () => void openImage(id));
    span.append(b);
  }
  return span;
}

/** A clause as written; the lines of a multi-line expression are alternatives, shown joined by `||`. */
const clauseText = (text: string) =>
  text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .join(' || ');

function clauseList(clause: BenchClause): HTMLElement {
  const li = el('li', {}, el('code', {}, clauseText(clause.text)), ` ${clause.images} `, exampleLinks(clause.examples));
  if (clause.children.length > 0 && clause.kind !== 'term') li.append(el('ul', {}, ...clause.children.map(clauseList)));
  return li;
}

const benchTurn = latest();
const runBench = async () => {
  const isLatest = benchTurn();
  benchOut.setAttribute('aria-busy', 'true');
  const { status, body } = await api<BenchAnswer>('/filters/test', { ...filterParams(), q: $<HTMLInputElement>('sample-q').value || undefined, sample: $<HTMLInputElement>('sample-size').value });
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
const benchSoon = debounced(300, async () => {
  page = 1;
  await Promise.all([runBench(), runSearch()]);
});
filterForm.addEventListener('input', benchSoon);
filterForm.addEventListener('submit', (e) => {
  e.preventDefault();
  page = 1;
  void runBench();
  void runSearch();
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
  const li = el('li', { class: clause.matched ? 'yes' : 'no' }, el('span', { class: 'mark' }, clause.matched ? '✓' : '✗'), ' ', el('code', {}, clauseText(clause.text)));
  if (clause.children.length > 0 && clause.kind !== 'term') li.append(el('ul', {}, ...clause.children.map(matchTree)));
  return li;
}

// ---------------------------------------------------------------------------------------------
// An open image: its tags, how the query and (in filter mode) the filter meet it
// ---------------------------------------------------------------------------------------------

const imagePanel = $<HTMLElement>('image-panel');

/** The filter's verdict on an image, part by part, as ✓/✗ trees. */
async function explainFilterOn(id: number): Promise<HTMLElement[]> {
  const { status, body } = await api<FilterExplainAnswer>('/filters/explain', { ...filterParams(), image_id: id });
  if (status !== 200) return [el('p', { class: 'error' }, String(body.error ?? `HTTP ${status}`))];
  const verdict = body.hidden ? 'hidden' : body.spoilered ? 'spoilered' : 'shown';
  const out: HTMLElement[] = [el('h4', {}, 'The filter: ', el('strong', { id: 'why-verdict' }, verdict))];
  for (const [title, part] of [['Hidden by', body.hidden_by], ['Spoilered by', body.spoilered_by]] as const) {
    if (part.tag_ids.length > 0) out.push(el('p', {}, `${title} tags: ${part.tag_ids.map((t) => tagNames.get(t) ?? `#${t}`).join(', ')}`));
    if (part.complex) out.push(el('p', {}, title), el('ul', { class: 'clauses' }, matchTree(part.complex)));
  }
  return out;
}

/** How the query meets an image, as a ✓/✗ tree. */
async function explainQueryOn(id: number, q: string): Promise<HTMLElement[]> {
  const { status, body } = await api<{ image: { matched: boolean; clauses: ClauseMatch | null } }>('/search/explain', { index: 'images', q, image_id: id });
  if (status !== 200) return [el('p', { class: 'error' }, String(body.error ?? `HTTP ${status}`))];
  const head = el('h4', {}, 'The query: ', el('strong', { id: 'query-verdict' }, body.image.matched ? 'matches' : 'does not match'));
  return body.image.clauses ? [head, el('ul', { class: 'clauses' }, matchTree(body.image.clauses))] : [head];
}

const openTurn = latest();
async function openImage(id: number) {
  const isLatest = openTurn();
  const q = query.value.trim();
  const [image, queryPart, filterPart] = await Promise.all([
    api<{ image: ImageJson }>(`/images/${id}`, {}),
    q === '' ? Promise.resolve([]) : explainQueryOn(id, q),
    mode === 'filter' ? explainFilterOn(id) : Promise.resolve([]),
  ]);
  if (!isLatest()) return;
  why.replaceChildren();
  imagePanel.hidden = false;
  if (image.status !== 200) {
    why.append(el('p', { class: 'error', id: 'image-error' }, `Image #${id}: ${image.body.error ?? `HTTP ${image.status}`}`));
    return;
  }
  const { representations, tags } = image.body.image;
  why.append(
    el('h3', {}, `Image #${id}`),
    el('div', { class: 'opened' }, el('img', { src: representations.thumb ?? '', alt: '' }), el('p', { id: 'image-tags', class: 'tags' }, tags.join(', '))),
    ...queryPart,
    ...filterPart,
  );
  imagePanel.scrollIntoView({ block: 'nearest' });
}

const openForm = $<HTMLFormElement>('open-image');
openForm.addEventListener('submit', (e) => {
  e.preventDefault();
  const id = Number($<HTMLInputElement>('image-id').value);
  if (Number.isInteger(id) && id > 0) void openImage(id);
});

// ---------------------------------------------------------------------------------------------
// Key, keyboard, start
// ---------------------------------------------------------------------------------------------

const keyInput = $<HTMLInputElement>('key');
keyInput.value = sessionStorage.getItem(KEY_STORE) ?? '';
keyInput.addEventListener('change', () => {
  if (keyInput.value.trim() === '') sessionStorage.removeItem(KEY_STORE);
  else sessionStorage.setItem(KEY_STORE, keyInput.value.trim());
  void listMyFilters();
  void runSearch();
});

document.addEventListener('keydown', (e) => {
  const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
  if (e.key === '/' && !typing) {
    e.preventDefault();
    query.focus();
  }
});

setUpSavedFilters(() => {
  page = 1;
  void runBench();
  void runSearch();
});

const initial = new URLSearchParams(location.search).get('q');
if (initial) {
  query.value = initial;
  underline(initial, null);
  checkQuery();
}
