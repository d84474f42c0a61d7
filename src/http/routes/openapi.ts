/**
 * The API description and its documentation page:
 *
 *   GET /api/v1/openapi.json   the OpenAPI 3.1 document (openapi/document.ts), built once per config
 *   GET /api/docs              a small HTML page that renders it
 *   GET /api/docs/app.js       the page's script
 *   GET /api/docs/app.css      the page's style sheet
 *
 * The page loads nothing from anywhere else: its script and style come from here, and its
 * Content-Security-Policy allows only this origin. The script builds every element with DOM
 * calls and `textContent`, so no text of the document is ever parsed as HTML.
 */
import { Hono } from 'hono';
import { pageHead } from '../pages/page-head.js';
import type { Config } from '../../config.js';
import type { AppContext, AppEnv } from '../env/context.js';
import { bundleDocsScript } from '../docs-page/bundle.js';
import { cacheFor } from '../middleware/cache.js';
import { buildOpenApiDocument, DOCS_PATH, OPENAPI_PATH } from '../openapi/document.js';
import { escapeHtml } from '../answers/escape-html.js';

/** The document does not change while the process runs. */
const DOCUMENT_MAX_AGE = 3600;

const documents = new WeakMap<Config, string>();

function documentFor(config: Config): string {
  let json = documents.get(config);
  if (json === undefined) {
    json = JSON.stringify(buildOpenApiDocument(config));
    documents.set(config, json);
  }
  return json;
}

export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";


export function docsHtml(siteName: string): string {
  const title = escapeHtml(`${siteName} API`);
  return `${pageHead(title, DOCS_PATH)}<body>
<header><h1>${title}</h1><p id="meta">Loading the description from <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>…</p></header>
<div id="layout"><nav id="toc" aria-label="Contents"></nav><main id="content"></main></div>
<noscript><p>This page needs JavaScript to render the description; the description itself is <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</p></noscript>
</body>
</html>
`;
}

export const DOCS_CSS = `
:root { color-scheme: light dark; --fg: #1d2430; --muted: #5b6472; --bg: #fff; --panel: #f5f7fa; --line: #d8dde5; --accent: #2a5db0; --get: #1f7a4d; --post: #9a5b00; }
@media (prefers-color-scheme: dark) { :root { --fg: #e3e7ee; --muted: #a4adba; --bg: #14171c; --panel: #1c2027; --line: #323844; --accent: #7aa7f0; --get: #5cc592; --post: #f0b35c; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 1rem 1.5rem; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 .25rem; font-size: 1.5rem; }
#meta { margin: 0; color: var(--muted); }
#layout { display: flex; align-items: flex-start; }
#toc { position: sticky; top: 0; max-height: 100vh; overflow: auto; width: 17rem; flex: none; padding: 1rem; border-right: 1px solid var(--line); font-size: .9rem; }
#toc h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1rem 0 .25rem; }
#toc ul { list-style: none; margin: 0; padding: 0; }
#toc li { margin: .1rem 0; }
main { flex: 1; min-width: 0; padding: 1rem 1.5rem 4rem; max-width: 70rem; }
a { color: var(--accent); }
code, .path { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
code { background: var(--panel); padding: 0 .2em; border-radius: 3px; }
section.op, section.schema { border: 1px solid var(--line); border-radius: 6px; margin: 1rem 0; padding: .75rem 1rem; background: var(--bg); }
section.op h3, section.schema h3 { margin: 0; font-size: 1.05rem; display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; }
.method { font-weight: 700; text-transform: uppercase; font-size: .8rem; padding: .1rem .4rem; border-radius: 3px; color: var(--bg); }
.method.get { background: var(--get); }
.method.post { background: var(--post); }
.summary { color: var(--muted); font-weight: normal; }
.badge { font-size: .75rem; border: 1px solid var(--line); border-radius: 999px; padding: 0 .5rem; color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; font-size: .9rem; }
th, td { text-align: left; vertical-align: top; border-top: 1px solid var(--line); padding: .3rem .5rem; }
th { color: var(--muted); font-weight: 600; }
h4 { margin: .75rem 0 .25rem; font-size: .9rem; }
.type { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85em; white-space: nowrap; }
.req { color: var(--post); font-size: .8em; }
.error { color: #c0392b; }
`;

let script: string | undefined;

/** The page script, bundled from docs-page/client.ts when first asked for (about 0.1 s). */
export function docsScript(): string {
  script ??= bundleDocsScript(OPENAPI_PATH);
  return script;
}

export function openapiRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(OPENAPI_PATH, (c) => {
    const body = documentFor(c.get('deps').config);
    cacheFor(c, DOCUMENT_MAX_AGE);
    return c.body(body, 200, { 'Content-Type': 'application/json; charset=utf-8', 'Access-Control-Allow-Origin': '*' });
  });

  const asset = (body: string, type: string) => (c: AppContext) => {
    cacheFor(c, DOCUMENT_MAX_AGE);
    return c.body(body, 200, {
      'Content-Type': type,
      'Content-Security-Policy': DOCS_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
  };

  app.get(DOCS_PATH, (c) => asset(docsHtml(c.get('deps').config.siteName), 'text/html; charset=utf-8')(c));
  app.get(`${DOCS_PATH}/app.js`, (c) => asset(docsScript(), 'text/javascript; charset=utf-8')(c));
  app.get(`${DOCS_PATH}/app.css`, asset(DOCS_CSS, 'text/css; charset=utf-8'));

  return app;
}
