/**
 * The API description and its documentation page:
 *
 *   GET /api/v1/openapi.json   the OpenAPI 3.1 document (openapi.ts), built once per config
 *   GET /api/docs              a small HTML page that renders it
 *   GET /api/docs/app.js       the page's script
 *   GET /api/docs/app.css      the page's style sheet
 *
 * The page loads nothing from anywhere else: its script and style come from here, and its
 * Content-Security-Policy allows only this origin. The script builds every element with DOM
 * calls and `textContent`, so no text of the document is ever parsed as HTML.
 */
import { Hono } from 'hono';
import type { Config } from '../../config.js';
import type { AppContext, AppEnv } from '../context.js';
import { cacheFor } from '../middleware/cache.js';
import { buildOpenApiDocument, DOCS_PATH, OPENAPI_PATH } from '../openapi.js';

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

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

export function docsHtml(siteName: string): string {
  const title = escapeHtml(`${siteName} API`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${DOCS_PATH}/app.css">
<script src="${DOCS_PATH}/app.js" defer></script>
</head>
<body>
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

/**
 * The page script: fetches the document and renders the introduction, every operation with its
 * parameters, body and answers, and every component schema with its fields. Only a small
 * Markdown subset is rendered (headings, lists, paragraphs, `code`, **bold**).
 */
export const DOCS_JS = String.raw`'use strict';
(function () {
  var OPENAPI = ${JSON.stringify(OPENAPI_PATH)};

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) {
      if (k === 'text') node.textContent = attrs[k];
      else if (k === 'className') node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c != null) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return node;
  }

  /** Inline Markdown: code spans and bold, as text nodes and elements. */
  function inline(text) {
    var out = [];
    var re = /\x60([^\x60]+)\x60|\*\*([^*]+)\*\*/g;
    var last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
      out.push(m[1] !== undefined ? el('code', { text: m[1] }) : el('strong', { text: m[2] }));
      last = re.lastIndex;
    }
    if (last < text.length) out.push(document.createTextNode(text.slice(last)));
    return out;
  }

  /** Block Markdown: headings, bullet and numbered lists, paragraphs. */
  function markdown(text, headingLevel) {
    var root = el('div');
    var lines = String(text || '').split('\n');
    var list = null, para = [];
    function flush() {
      if (para.length) { root.appendChild(el('p', null, inline(para.join(' ')))); para = []; }
    }
    lines.forEach(function (line) {
      var h = /^(#{1,6})\s+(.*)$/.exec(line);
      var li = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
      if (h) {
        flush(); list = null;
        root.appendChild(el('h' + Math.min(6, h[1].length + (headingLevel || 1)), null, inline(h[2])));
      } else if (li) {
        flush();
        if (!list) { list = el(/^\s*\d+\./.test(line) ? 'ol' : 'ul'); root.appendChild(list); }
        list.appendChild(el('li', null, inline(li[1])));
      } else if (line.trim() === '') {
        flush(); list = null;
      } else {
        list = null; para.push(line.trim());
      }
    });
    flush();
    return root;
  }

  function refName(ref) { return ref.slice(ref.lastIndexOf('/') + 1); }

  function resolve(doc, obj) {
    if (!obj || !obj.$ref) return obj;
    var parts = obj.$ref.replace(/^#\//, '').split('/');
    var cur = doc;
    parts.forEach(function (p) { cur = cur == null ? cur : cur[p.replace(/~1/g, '/').replace(/~0/g, '~')]; });
    return cur;
  }

  /** A schema's type, as a node: links for references, | for unions. */
  function typeOf(schema) {
    var span = el('span', { className: 'type' });
    function add(node) { span.appendChild(typeof node === 'string' ? document.createTextNode(node) : node); }
    function walk(s) {
      if (!s || typeof s !== 'object') { add('any'); return; }
      if (s.$ref) { add(el('a', { href: '#schema-' + refName(s.$ref), text: refName(s.$ref) })); return; }
      var alts = s.anyOf || s.oneOf;
      if (alts) { alts.forEach(function (a, i) { if (i) add(' | '); walk(a); }); return; }
      if (s.const !== undefined) { add(JSON.stringify(s.const)); return; }
      if (s.enum) { add(s.enum.map(function (v) { return JSON.stringify(v); }).join(' | ')); return; }
      var types = Array.isArray(s.type) ? s.type : [s.type || (s.properties ? 'object' : 'any')];
      types.forEach(function (t, i) {
        if (i) add(' | ');
        if (t === 'array') { add('array of '); walk(s.items); }
        else if (t === 'string' && s.format) add('string (' + s.format + ')');
        else add(String(t));
      });
    }
    walk(schema);
    return span;
  }

  function constraints(s) {
    if (!s || typeof s !== 'object' || s.$ref) return '';
    var bits = [];
    if (s.minimum !== undefined && s.minimum > -9007199254740991) bits.push('≥ ' + s.minimum);
    if (s.maximum !== undefined && s.maximum < 9007199254740991) bits.push('≤ ' + s.maximum);
    if (s.maxItems !== undefined) bits.push('at most ' + s.maxItems + ' items');
    if (s.default !== undefined) bits.push('default ' + JSON.stringify(s.default));
    if (s.pattern && s.format !== 'date-time') bits.push('pattern ' + s.pattern);
    return bits.join(', ');
  }

  function describe(s) {
    if (!s || typeof s !== 'object') return '';
    if (s.description) return s.description;
    var alts = s.anyOf || s.oneOf;
    if (alts) for (var i = 0; i < alts.length; i++) if (alts[i].description) return alts[i].description;
    return '';
  }

  function propertiesTable(doc, schema) {
    var rows = [];
    var required = schema.required || [];
    Object.keys(schema.properties || {}).forEach(function (name) {
      var p = schema.properties[name];
      var extra = constraints(p);
      rows.push(el('tr', null, [
        el('td', null, [el('code', { text: name }), required.indexOf(name) >= 0 ? null : el('span', { className: 'req', text: ' optional' })]),
        el('td', null, [typeOf(p)]),
        el('td', null, inline(describe(p) + (extra ? ' (' + extra + ')' : ''))),
      ]));
    });
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object' && Object.keys(schema.additionalProperties).length) {
      rows.push(el('tr', null, [el('td', null, [el('em', { text: 'other fields' })]), el('td', null, [typeOf(schema.additionalProperties)]), el('td')]));
    }
    if (!rows.length) return null;
    return el('table', null, [el('thead', null, [el('tr', null, [el('th', { text: 'Field' }), el('th', { text: 'Type' }), el('th', { text: 'Meaning' })])]), el('tbody', null, rows)]);
  }

  function operationSection(doc, path, method, op) {
    var id = 'op-' + (op.operationId || method + path);
    var section = el('section', { className: 'op', id: id });
    var keyRequired = (op.security || []).every(function (s) { return Object.keys(s).length > 0; });
    section.appendChild(el('h3', null, [
      el('span', { className: 'method ' + method, text: method }),
      el('span', { className: 'path', text: path }),
      el('span', { className: 'summary', text: op.summary || '' }),
      el('span', { className: 'badge', text: keyRequired ? 'key required' : 'key optional' }),
    ]));
    if (op.description) section.appendChild(markdown(op.description, 3));

    var params = (op.parameters || []).map(function (p) { return resolve(doc, p); });
    if (params.length) {
      section.appendChild(el('h4', { text: 'Parameters' }));
      section.appendChild(el('table', null, [
        el('thead', null, [el('tr', null, [el('th', { text: 'Name' }), el('th', { text: 'In' }), el('th', { text: 'Type' }), el('th', { text: 'Meaning' })])]),
        el('tbody', null, params.map(function (p) {
          var schema = resolve(doc, p.schema) || {};
          var extra = constraints(schema);
          return el('tr', null, [
            el('td', null, [el('code', { text: p.name }), p.required ? el('span', { className: 'req', text: ' required' }) : null]),
            el('td', { text: p.in }),
            el('td', null, [typeOf(p.schema)]),
            el('td', null, inline((p.description || '') + (extra ? ' (' + extra + ')' : ''))),
          ]);
        })),
      ]));
    }

    if (op.requestBody) {
      section.appendChild(el('h4', { text: 'Request body' + (op.requestBody.required ? '' : ' (optional)') }));
      if (op.requestBody.description) section.appendChild(markdown(op.requestBody.description, 4));
      section.appendChild(el('table', null, [el('tbody', null, Object.keys(op.requestBody.content || {}).map(function (type) {
        return el('tr', null, [el('td', null, [el('code', { text: type })]), el('td', null, [typeOf(op.requestBody.content[type].schema)])]);
      }))]));
    }

    section.appendChild(el('h4', { text: 'Answers' }));
    section.appendChild(el('table', null, [
      el('thead', null, [el('tr', null, [el('th', { text: 'Status' }), el('th', { text: 'Body' }), el('th', { text: 'Meaning' })])]),
      el('tbody', null, Object.keys(op.responses || {}).map(function (status) {
        var r = resolve(doc, op.responses[status]);
        var content = r.content && r.content['application/json'];
        return el('tr', null, [
          el('td', null, [el('code', { text: status })]),
          el('td', null, [content ? typeOf(content.schema) : el('em', { text: 'none' })]),
          el('td', null, inline(r.description || '')),
        ]);
      })),
    ]));
    return section;
  }

  function schemaSection(doc, name, schema) {
    var section = el('section', { className: 'schema', id: 'schema-' + name });
    section.appendChild(el('h3', null, [el('span', { className: 'path', text: name }), el('span', { className: 'summary' }, [typeOf(Object.assign({}, schema, { description: undefined }))])]));
    if (schema.description) section.appendChild(markdown(schema.description, 3));
    var table = propertiesTable(doc, schema);
    if (table) section.appendChild(table);
    else {
      var extra = constraints(schema);
      if (extra) section.appendChild(el('p', null, inline(extra)));
    }
    return section;
  }

  function render(doc) {
    var info = doc.info || {};
    document.title = info.title || document.title;
    var meta = document.getElementById('meta');
    meta.textContent = '';
    meta.appendChild(document.createTextNode('Version ' + (info.version || '?') + ' · OpenAPI ' + doc.openapi + ' · '));
    (doc.servers || []).forEach(function (s) { meta.appendChild(el('code', { text: s.url })); meta.appendChild(document.createTextNode(' · ')); });
    meta.appendChild(el('a', { href: OPENAPI, text: 'openapi.json' }));

    var content = document.getElementById('content');
    var toc = document.getElementById('toc');
    content.appendChild(el('section', { id: 'intro' }, [markdown(info.description || '', 1)]));
    toc.appendChild(el('h2', { text: 'Introduction' }));
    toc.appendChild(el('ul', null, [el('li', null, [el('a', { href: '#intro', text: 'Usage, authentication, search language' })])]));

    var byTag = {};
    var tagOrder = (doc.tags || []).map(function (t) { return t.name; });
    Object.keys(doc.paths || {}).forEach(function (path) {
      var item = doc.paths[path];
      ['get', 'post', 'put', 'patch', 'delete'].forEach(function (method) {
        var op = item[method];
        if (!op) return;
        var tag = (op.tags && op.tags[0]) || 'Other';
        if (tagOrder.indexOf(tag) < 0) tagOrder.push(tag);
        (byTag[tag] = byTag[tag] || []).push({ path: path, method: method, op: op });
      });
    });
    tagOrder.forEach(function (tag) {
      var ops = byTag[tag];
      if (!ops) return;
      var tagInfo = (doc.tags || []).filter(function (t) { return t.name === tag; })[0];
      content.appendChild(el('h2', { id: 'tag-' + tag, text: tag }));
      if (tagInfo && tagInfo.description) content.appendChild(markdown(tagInfo.description, 2));
      toc.appendChild(el('h2', null, [el('a', { href: '#tag-' + tag, text: tag })]));
      toc.appendChild(el('ul', null, ops.map(function (o) {
        return el('li', null, [el('a', { href: '#op-' + (o.op.operationId || o.method + o.path), text: o.method.toUpperCase() + ' ' + o.path })]);
      })));
      ops.forEach(function (o) { content.appendChild(operationSection(doc, o.path, o.method, o.op)); });
    });

    var schemas = (doc.components && doc.components.schemas) || {};
    content.appendChild(el('h2', { id: 'schemas', text: 'Schemas' }));
    toc.appendChild(el('h2', null, [el('a', { href: '#schemas', text: 'Schemas' })]));
    toc.appendChild(el('ul', null, Object.keys(schemas).map(function (name) {
      return el('li', null, [el('a', { href: '#schema-' + name, text: name })]);
    })));
    Object.keys(schemas).forEach(function (name) { content.appendChild(schemaSection(doc, name, schemas[name])); });

    if (location.hash) {
      var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) target.scrollIntoView();
    }
  }

  fetch(OPENAPI, { headers: { accept: 'application/json' } })
    .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json(); })
    .then(render)
    .catch(function (err) {
      var meta = document.getElementById('meta');
      meta.textContent = 'Could not load the description: ' + err.message;
      meta.className = 'error';
    });
})();
`;

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
  app.get(`${DOCS_PATH}/app.js`, asset(DOCS_JS, 'text/javascript; charset=utf-8'));
  app.get(`${DOCS_PATH}/app.css`, asset(DOCS_CSS, 'text/css; charset=utf-8'));

  return app;
}
