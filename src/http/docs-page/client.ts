/**
 * The documentation page's script (bundled for the browser by bundle.ts): fetches the OpenAPI
 * document and renders the introduction, every operation with its parameters, body and answers,
 * and every component schema with its fields. Every element is built with DOM calls and
 * `textContent`, so no text of the document is ever parsed as HTML. Only a small Markdown subset
 * is rendered (headings, lists, paragraphs, `code`, **bold**).
 */

/** Where the document is served; the bundler writes it in from src/http/openapi/document.ts. */
declare const OPENAPI_PATH: string;

/** The parts of an OpenAPI 3.1 document the page reads. */
interface Schema {
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  type?: string | string[];
  items?: Schema;
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  description?: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  default?: unknown;
  pattern?: string;
}

interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Content {
  schema?: Schema;
}

interface Answer {
  $ref?: string;
  description?: string;
  content?: Record<string, Content>;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, Content> };
  responses?: Record<string, Answer>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Method = (typeof METHODS)[number];

interface OpenApiDocument {
  openapi: string;
  info?: { title?: string; version?: string; description?: string };
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Partial<Record<Method, Operation>>>;
  components?: { schemas?: Record<string, Schema> };
}

type Child = Node | string | null;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, string> | null, children?: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'text') node.textContent = v;
      else if (k === 'className') node.className = v;
      else node.setAttribute(k, v);
    }
  }
  for (const c of children ?? []) if (c != null) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

/** The element with this id, which the page's HTML always has. */
function byId(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}

/** Inline Markdown: code spans and bold, as text nodes and elements. */
function inline(text: string): Node[] {
  const out: Node[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
    out.push(m[1] !== undefined ? el('code', { text: m[1] }) : el('strong', { text: m[2] ?? '' }));
    last = re.lastIndex;
  }
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  return out;
}

/** Block Markdown: headings, bullet and numbered lists, paragraphs. */
function markdown(text: string | undefined, headingLevel: number): HTMLElement {
  const root = el('div');
  let list: HTMLElement | null = null;
  let para: string[] = [];
  const flush = () => {
    if (para.length) {
      root.appendChild(el('p', null, inline(para.join(' '))));
      para = [];
    }
  };
  for (const line of String(text ?? '').split('\n')) {
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    const li = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    if (h) {
      flush();
      list = null;
      const level = Math.min(6, (h[1] ?? '#').length + headingLevel);
      root.appendChild(el(`h${level}` as 'h1', null, inline(h[2] ?? '')));
    } else if (li) {
      flush();
      if (!list) {
        list = el(/^\s*\d+\./.test(line) ? 'ol' : 'ul');
        root.appendChild(list);
      }
      list.appendChild(el('li', null, inline(li[1] ?? '')));
    } else if (line.trim() === '') {
      flush();
      list = null;
    } else {
      list = null;
      para.push(line.trim());
    }
  }
  flush();
  return root;
}

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** The object a `$ref` points to within the document (or the object itself when it has none). */
function resolve<T extends { $ref?: string }>(doc: OpenApiDocument, obj: T | undefined): T | undefined {
  if (!obj?.$ref) return obj;
  let cur: unknown = doc;
  for (const p of obj.$ref.replace(/^#\//, '').split('/')) {
    cur = cur == null ? cur : (cur as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur as T | undefined;
}

/** A schema's type, as a node: links for references, | for unions. */
function typeOf(schema: Schema | undefined): HTMLElement {
  const span = el('span', { className: 'type' });
  const add = (node: Node | string) => span.appendChild(typeof node === 'string' ? document.createTextNode(node) : node);
  const walk = (s: Schema | undefined): void => {
    if (!s || typeof s !== 'object') {
      add('any');
      return;
    }
    if (s.$ref) {
      add(el('a', { href: `#schema-${refName(s.$ref)}`, text: refName(s.$ref) }));
      return;
    }
    const alts = s.anyOf ?? s.oneOf;
    if (alts) {
      alts.forEach((a, i) => {
        if (i) add(' | ');
        walk(a);
      });
      return;
    }
    if (s.const !== undefined) {
      add(JSON.stringify(s.const));
      return;
    }
    if (s.enum) {
      add(s.enum.map((v) => JSON.stringify(v)).join(' | '));
      return;
    }
    const types = Array.isArray(s.type) ? s.type : [s.type ?? (s.properties ? 'object' : 'any')];
    types.forEach((t, i) => {
      if (i) add(' | ');
      if (t === 'array') {
        add('array of ');
        walk(s.items);
      } else if (t === 'string' && s.format) add(`string (${s.format})`);
      else add(String(t));
    });
  };
  walk(schema);
  return span;
}

function constraints(s: Schema | undefined): string {
  if (!s || typeof s !== 'object' || s.$ref) return '';
  const bits: string[] = [];
  if (s.minimum !== undefined && s.minimum > -Number.MAX_SAFE_INTEGER) bits.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER) bits.push(`≤ ${s.maximum}`);
  if (s.maxItems !== undefined) bits.push(`at most ${s.maxItems} items`);
  if (s.default !== undefined) bits.push(`default ${JSON.stringify(s.default)}`);
  if (s.pattern && s.format !== 'date-time') bits.push(`pattern ${s.pattern}`);
  return bits.join(', ');
}

function describe(s: Schema | undefined): string {
  if (!s || typeof s !== 'object') return '';
  if (s.description) return s.description;
  for (const alt of s.anyOf ?? s.oneOf ?? []) if (alt.description) return alt.description;
  return '';
}

const withConstraints = (text: string, extra: string) => text + (extra ? ` (${extra})` : '');

function propertiesTable(schema: Schema): HTMLElement | null {
  const rows: HTMLElement[] = [];
  const required = schema.required ?? [];
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    rows.push(
      el('tr', null, [
        el('td', null, [el('code', { text: name }), required.includes(name) ? null : el('span', { className: 'req', text: ' optional' })]),
        el('td', null, [typeOf(p)]),
        el('td', null, inline(withConstraints(describe(p), constraints(p)))),
      ]),
    );
  }
  const other = schema.additionalProperties;
  if (other && typeof other === 'object' && Object.keys(other).length) {
    rows.push(el('tr', null, [el('td', null, [el('em', { text: 'other fields' })]), el('td', null, [typeOf(other)]), el('td')]));
  }
  if (!rows.length) return null;
  return el('table', null, [
    el('thead', null, [el('tr', null, [el('th', { text: 'Field' }), el('th', { text: 'Type' }), el('th', { text: 'Meaning' })])]),
    el('tbody', null, rows),
  ]);
}

const operationId = (path: string, method: Method, op: Operation) => `op-${op.operationId ?? method + path}`;

function operationSection(doc: OpenApiDocument, path: string, method: Method, op: Operation): HTMLElement {
  const section = el('section', { className: 'op', id: operationId(path, method, op) });
  const keyRequired = (op.security ?? []).every((s) => Object.keys(s).length > 0);
  section.appendChild(
    el('h3', null, [
      el('span', { className: `method ${method}`, text: method }),
      el('span', { className: 'path', text: path }),
      el('span', { className: 'summary', text: op.summary ?? '' }),
      el('span', { className: 'badge', text: keyRequired ? 'key required' : 'key optional' }),
    ]),
  );
  if (op.description) section.appendChild(markdown(op.description, 3));

  const params = (op.parameters ?? []).map((p) => resolve(doc, p)).filter((p): p is Parameter => p !== undefined);
  if (params.length) {
    section.appendChild(el('h4', { text: 'Parameters' }));
    section.appendChild(
      el('table', null, [
        el('thead', null, [el('tr', null, [el('th', { text: 'Name' }), el('th', { text: 'In' }), el('th', { text: 'Type' }), el('th', { text: 'Meaning' })])]),
        el(
          'tbody',
          null,
          params.map((p) =>
            el('tr', null, [
              el('td', null, [el('code', { text: p.name }), p.required ? el('span', { className: 'req', text: ' required' }) : null]),
              el('td', { text: p.in }),
              el('td', null, [typeOf(p.schema)]),
              el('td', null, inline(withConstraints(p.description ?? '', constraints(resolve(doc, p.schema) ?? {})))),
            ]),
          ),
        ),
      ]),
    );
  }

  const body = op.requestBody;
  if (body) {
    section.appendChild(el('h4', { text: `Request body${body.required ? '' : ' (optional)'}` }));
    if (body.description) section.appendChild(markdown(body.description, 4));
    const rows = Object.entries(body.content ?? {}).map(([type, c]) => el('tr', null, [el('td', null, [el('code', { text: type })]), el('td', null, [typeOf(c.schema)])]));
    section.appendChild(el('table', null, [el('tbody', null, rows)]));
  }

  section.appendChild(el('h4', { text: 'Answers' }));
  section.appendChild(
    el('table', null, [
      el('thead', null, [el('tr', null, [el('th', { text: 'Status' }), el('th', { text: 'Body' }), el('th', { text: 'Meaning' })])]),
      el(
        'tbody',
        null,
        Object.entries(op.responses ?? {}).map(([status, answer]) => {
          const r = resolve(doc, answer) ?? {};
          const content = r.content?.['application/json'];
          return el('tr', null, [
            el('td', null, [el('code', { text: status })]),
            el('td', null, [content ? typeOf(content.schema) : el('em', { text: 'none' })]),
            el('td', null, inline(r.description ?? '')),
          ]);
        }),
      ),
    ]),
  );
  return section;
}

function schemaSection(name: string, schema: Schema): HTMLElement {
  const section = el('section', { className: 'schema', id: `schema-${name}` });
  section.appendChild(
    el('h3', null, [el('span', { className: 'path', text: name }), el('span', { className: 'summary' }, [typeOf({ ...schema, description: undefined })])]),
  );
  if (schema.description) section.appendChild(markdown(schema.description, 3));
  const table = propertiesTable(schema);
  if (table) section.appendChild(table);
  else {
    const extra = constraints(schema);
    if (extra) section.appendChild(el('p', null, inline(extra)));
  }
  return section;
}

function render(doc: OpenApiDocument): void {
  const info = doc.info ?? {};
  document.title = info.title ?? document.title;
  const meta = byId('meta');
  meta.textContent = '';
  meta.appendChild(document.createTextNode(`Version ${info.version ?? '?'} · OpenAPI ${doc.openapi} · `));
  for (const s of doc.servers ?? []) {
    meta.appendChild(el('code', { text: s.url }));
    meta.appendChild(document.createTextNode(' · '));
  }
  meta.appendChild(el('a', { href: OPENAPI_PATH, text: 'openapi.json' }));

  const content = byId('content');
  const toc = byId('toc');
  content.appendChild(el('section', { id: 'intro' }, [markdown(info.description ?? '', 1)]));
  toc.appendChild(el('h2', { text: 'Introduction' }));
  toc.appendChild(el('ul', null, [el('li', null, [el('a', { href: '#intro', text: 'Usage, authentication, search language' })])]));

  const byTag: Record<string, { path: string; method: Method; op: Operation }[]> = {};
  const tagOrder = (doc.tags ?? []).map((t) => t.name);
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!tagOrder.includes(tag)) tagOrder.push(tag);
      (byTag[tag] ??= []).push({ path, method, op });
    }
  }
  for (const tag of tagOrder) {
    const ops = byTag[tag];
    if (!ops) continue;
    const tagInfo = (doc.tags ?? []).find((t) => t.name === tag);
    content.appendChild(el('h2', { id: `tag-${tag}`, text: tag }));
    if (tagInfo?.description) content.appendChild(markdown(tagInfo.description, 2));
    toc.appendChild(el('h2', null, [el('a', { href: `#tag-${tag}`, text: tag })]));
    toc.appendChild(
      el(
        'ul',
        null,
        ops.map((o) => el('li', null, [el('a', { href: `#${operationId(o.path, o.method, o.op)}`, text: `${o.method.toUpperCase()} ${o.path}` })])),
      ),
    );
    for (const o of ops) content.appendChild(operationSection(doc, o.path, o.method, o.op));
  }

  const schemas = doc.components?.schemas ?? {};
  content.appendChild(el('h2', { id: 'schemas', text: 'Schemas' }));
  toc.appendChild(el('h2', null, [el('a', { href: '#schemas', text: 'Schemas' })]));
  toc.appendChild(el('ul', null, Object.keys(schemas).map((name) => el('li', null, [el('a', { href: `#schema-${name}`, text: name })]))));
  for (const [name, schema] of Object.entries(schemas)) content.appendChild(schemaSection(name, schema));

  if (location.hash) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
}

fetch(OPENAPI_PATH, { headers: { accept: 'application/json' } })
  .then((res) => {
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return res.json() as Promise<OpenApiDocument>;
  })
  .then(render)
  .catch((err: Error) => {
    const meta = byId('meta');
    meta.textContent = `Could not load the description: ${err.message}`;
    meta.className = 'error';
  });
