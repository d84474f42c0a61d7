/**
 * The search workbench page, for people writing queries and filters:
 *
 *   GET /search          the page (search-page/client.ts does the work through the JSON API)
 *   GET /search/app.js   its script, bundled by esbuild when first asked for
 *   GET /search/app.css  its style sheet
 *
 * Nothing is loaded from elsewhere: the Content-Security-Policy allows this origin, and images
 * from the file host (`CDN_URL`) as well.
 */
import { Hono } from 'hono';
import { pageHead } from '../pages/page-head.js';
import type { Config } from '../../config.js';
import { API_PREFIX } from '../request/api-prefix.js';
import { bundleBrowserScript } from '../pages/browser-bundle.js';
import type { AppContext, AppEnv } from '../env/context.js';
import { cacheFor } from '../middleware/cache.js';
import { SEARCH_PAGE_CSS } from '../search-page/style.js';
import { escapeHtml } from '../answers/escape-html.js';

export const SEARCH_PAGE_PATH = '/search';
const ASSET_MAX_AGE = 3600;
/** The sort fields the page offers (`sf`; the API takes more). */
const SORT_FIELDS = ['first_seen_at', 'created_at', 'score', 'wilson_score', 'faves', 'upvotes', 'width', 'height', 'tag_count', 'id', 'random'];


function pageCsp(config: Config): string {
  const files = new URL(config.cdnUrl).origin;
  return `default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' ${files} data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

export function searchPageHtml(siteName: string): string {
  const title = escapeHtml(`${siteName} search`);
  return `${pageHead(title, SEARCH_PAGE_PATH)}<body data-mode="query">
<header>
<h1>${title}</h1>
<div role="tablist" aria-label="Mode"><button type="button" role="tab" data-tab="query" aria-selected="true">Query</button><button type="button" role="tab" data-tab="filter" aria-selected="false">Filter</button></div>
<label class="key">API key <input id="key" type="password" autocomplete="off" placeholder="optional"></label>
</header>
<main>
<div class="qbox">
<div id="q-mirror" aria-hidden="true"></div>
<input id="q" type="text" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="suggestions" aria-describedby="q-error" aria-label="Search query" placeholder="safe, solo || artist:…  (press / to focus)" autocomplete="off" spellcheck="false">
<ul id="suggestions" role="listbox" hidden></ul>
</div>
<p id="q-error" role="status" aria-live="polite"></p>
<p id="hint" aria-live="polite"></p>
<details id="dsl"><summary>Compiled query (OpenSearch DSL)</summary><pre id="dsl-text"></pre></details>
<section id="filter-panel" hidden aria-label="Filter">
<form id="filter-form">
<div id="saved-filters" class="row" hidden><label>Your filters <select id="my-filters"><option value="">New filter</option></select></label><label>Name <input id="filter-name" placeholder="filter name"></label><label class="check"><input id="filter-public" type="checkbox"> public</label><p><button type="button" id="save-filter">Save</button> <span id="save-status" role="status"></span></p></div>
<div class="row"><label>Hidden tags <input name="hidden_tags" placeholder="tag, tag"></label><label>Spoilered tags <input name="spoilered_tags" placeholder="tag, tag"></label></div>
<label>Hidden complex (one alternative a line) <textarea name="hidden_complex" spellcheck="false"></textarea></label>
<label>Spoilered complex <textarea name="spoilered_complex" spellcheck="false"></textarea></label>
<div class="row"><label>Sample query <input id="sample-q" placeholder="newest images"></label><label>Sample size <input id="sample-size" type="number" min="1" max="5000" value="1000"></label></div>
<p><button class="primary" type="submit">Test filter</button></p>
<p id="filter-error" role="alert"></p>
</form>
<div id="bench" aria-live="polite"></div>
</section>
<div class="bar">
<p id="count" aria-live="polite"></p>
<label>Sort <select id="sf">${SORT_FIELDS.map((f) => `<option value="${f}">${f.replace(/_/g, ' ')}</option>`).join('')}</select></label>
<select id="sd" aria-label="Sort direction"><option value="desc">descending</option><option value="asc">ascending</option></select>
<select id="per-page" aria-label="Images a page"><option>12</option><option selected>24</option><option>50</option></select>
<form id="open-image"><label>Image <input id="image-id" type="number" min="1" inputmode="numeric" placeholder="id"></label> <button type="submit">Open</button></form>
</div>
<section id="image-panel" hidden aria-label="Image"><div id="why" aria-live="polite"></div></section>
<div id="results"></div>
<nav id="pager" hidden><button type="button" id="prev">‹ Previous</button> <span id="page-of"></span> <button type="button" id="next">Next ›</button></nav>
<p class="hint">Arrow keys choose a suggestion and Enter or Tab takes the chosen one; Enter alone searches what you typed; Escape closes the list. Click a thumbnail (a spoiler first reveals) to open it: its tags, and how the query and, in filter mode, the filter meet it.</p>
</main>
<noscript><p>This page needs JavaScript; the API it uses is described at /api/docs.</p></noscript>
</body>
</html>
`;
}

let script: string | undefined;

/** The page script, bundled from search-page/client.ts when first asked for. */
export function searchPageScript(): string {
  script ??= bundleBrowserScript(new URL('../search-page/client.ts', import.meta.url), { API_PREFIX: JSON.stringify(API_PREFIX) });
  return script;
}

export function searchPageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const asset = (c: AppContext, body: string, type: string) => {
    cacheFor(c, ASSET_MAX_AGE);
    return c.body(body, 200, {
      'Content-Type': type,
      'Content-Security-Policy': pageCsp(c.get('deps').config),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
  };
  app.get(SEARCH_PAGE_PATH, (c) => asset(c, searchPageHtml(c.get('deps').config.siteName), 'text/html; charset=utf-8'));
  app.get(`${SEARCH_PAGE_PATH}/app.js`, (c) => asset(c, searchPageScript(), 'text/javascript; charset=utf-8'));
  app.get(`${SEARCH_PAGE_PATH}/app.css`, (c) => asset(c, SEARCH_PAGE_CSS, 'text/css; charset=utf-8'));
  return app;
}
