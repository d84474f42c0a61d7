/**
 * Fuzzing every route of the document over real HTTP on a small fixture board: random and
 * malformed path segments and query values (huge, negative and fractional numbers, unicode,
 * empty values, repeated and bracketed parameters, NUL, `..`, invalid percent-encoding, long
 * strings), wrong methods, and odd bodies and content types on POST. Whatever comes in:
 * - never a 5xx, and the server keeps answering;
 * - every error answer is JSON with `error` (a string) or `errors` (an object);
 * - every 200 of a documented operation still matches that operation's schema.
 *
 * - every error answer of a documented operation matches the error schema the document gives
 *   for that status;
 * - every answer arrives within `FUZZ_ANSWER_MS` (default 15 s: a hang detector, not a speed
 *   target).
 * Search routes also get generated queries over their index's own fields (every operator, values
 * at the edges of their types, dates at the ends of their range) and mutations of them; the
 * submission route gets mutations of a valid body.
 *
 * Requests go through node:http with the request target written as is, so that malformed
 * targets reach the server unchanged. Bounded by run counts and time; a failure is shrunk by
 * fast-check to a small reproduction. `FUZZ_RUNS` sets the runs of each property (default 60);
 * `FUZZ_SECONDS` instead runs each property for that many seconds. The counts of requests and
 * statuses are printed at the end (`fuzz counts: {…}`).
 */
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/http/request/api-prefix.js';
import { matchOperation, OPERATIONS } from '../../src/http/openapi/operations.js';
import { indexDefinitions, indexNames, isIndexName } from '../../src/search/indexes/index.js';
import type { OperationSpec } from '../../src/http/openapi/spec.js';
import { startBoard, type Board } from './board.js';

let board: Board;
let agent: http.Agent;
let origin: URL;

beforeAll(async () => {
  board = await startBoard();
  origin = new URL(board.h.url);
  agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
});
afterAll(async () => {
  agent?.destroy();
  await board?.close();
  const statuses: Record<number, number> = {};
  let requests = 0;
  for (const counts of seen.values()) {
    for (const [status, n] of counts) {
      statuses[status] = (statuses[status] ?? 0) + n;
      requests += n;
    }
  }
  console.log(`fuzz counts: ${JSON.stringify({ requests, operations: seen.size, statuses, slowestMs: Math.round(slowest.ms), slowest: slowest.request })}`);
});

/** Longest wait for an answer: a request without one by then has hung. */
const ANSWER_BOUND_MS = Number(process.env.FUZZ_ANSWER_MS ?? 15_000);

interface RawRequest {
  method: string;
  /** The request target, sent verbatim. */
  target: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function send(req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        host: origin.hostname,
        port: origin.port,
        method: req.method,
        path: req.target,
        agent,
        headers: { ...(req.body ? { 'content-length': String(req.body.length) } : {}), ...req.headers },
        timeout: ANSWER_BOUND_MS,
      },
      (res) => {
        // A live search's stream does not end: its status and headers are the answer.
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0) });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${ANSWER_BOUND_MS} ms: ${req.method} ${req.target.slice(0, 200)}`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

// ---------------------------------------------------------------------------------------------
// What every answer must be
// ---------------------------------------------------------------------------------------------

const describeRequest = (req: RawRequest) =>
  `${req.method} ${req.target.slice(0, 300)}${req.target.length > 300 ? `… (${req.target.length} chars)` : ''}${
    req.headers?.['content-type'] !== undefined ? ` [content-type: ${req.headers['content-type']}]` : ''
  }${req.body ? ` [body: ${JSON.stringify(req.body.subarray(0, 120).toString('latin1'))}${req.body.length > 120 ? '…' : ''}]` : ''}`;

/** Problems of an answer; empty when it is acceptable. */
function problemsOf(req: RawRequest, res: RawResponse): string[] {
  const problems: string[] = [];
  const text = res.body.toString('utf8');
  if (res.status >= 500) problems.push(`status ${res.status}: ${text.slice(0, 200)}`);
  const bodiless = req.method === 'HEAD' || res.status === 304 || res.status === 204;
  if (res.status >= 400 && !bodiless) {
    if (!/^application\/json/.test(String(res.headers['content-type']))) problems.push(`error without a JSON content type: ${res.headers['content-type']}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      problems.push(`error body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
    }
    const ok =
      body !== null &&
      typeof body === 'object' &&
      (typeof (body as { error?: unknown }).error === 'string' ||
        ((body as { errors?: unknown }).errors !== null && typeof (body as { errors?: unknown }).errors === 'object'));
    if (body !== undefined && !ok) problems.push(`error body without error/errors: ${text.slice(0, 200)}`);
    const op = req.target.startsWith(`${API_PREFIX}/`) ? matchOperation(req.method, req.target.slice(API_PREFIX.length).split('?', 1)[0]!) : undefined;
    const documented = op?.responses[res.status]?.schema;
    if (body !== undefined && documented) {
      const parsed = documented.safeParse(body);
      if (!parsed.success) problems.push(`${res.status} body does not match the documented error of ${op!.operationId}: ${text.slice(0, 200)}`);
    }
  }
  if (res.status === 200 && !bodiless && req.target.startsWith(`${API_PREFIX}/`)) {
    const path = req.target.slice(API_PREFIX.length).split('?', 1)[0]!;
    const op = matchOperation(req.method, path);
    const schema = op?.responses[200]?.schema;
    if (op?.responses[200]?.contentType === 'text/event-stream') {
      if (!/^text\/event-stream/.test(String(res.headers['content-type']))) problems.push(`200 of a stream without text/event-stream: ${res.headers['content-type']}`);
    } else if (op && schema) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        problems.push(`200 body is not JSON`);
      }
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        problems.push(`200 body does not match ${op.operationId}: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      }
    }
  }
  return problems;
}

/** Longer request lines are refused by node's parser (431) before the app sees them. */
const MAX_TARGET = 12_000;

/** Statuses seen per operation, to check that the fuzzing reaches found objects too. */
const seen = new Map<string, Map<number, number>>();
const slowest = { ms: 0, request: '' };

async function expectAcceptable(request: RawRequest): Promise<RawResponse> {
  const req = { ...request, target: request.target.slice(0, MAX_TARGET) };
  const started = performance.now();
  const res = await send(req);
  const ms = performance.now() - started;
  if (ms > slowest.ms) Object.assign(slowest, { ms, request: describeRequest(req).slice(0, 200) });
  const op = req.target.startsWith(`${API_PREFIX}/`) ? matchOperation(req.method, req.target.slice(API_PREFIX.length).split('?', 1)[0]!) : undefined;
  const key = op ? op.operationId : 'other';
  const counts = seen.get(key) ?? new Map<number, number>();
  counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
  seen.set(key, counts);
  const problems = problemsOf(req, res);
  if (problems.length > 0) throw new Error(`${describeRequest(req)} →\n  ${problems.join('\n  ')}`);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const LONG = 'a'.repeat(4000);
const SPECIAL_VALUES = [
  '', ' ', '0', '-0', '1', '-1', '+1', '01', '1.5', '-1.5', '.5', '1e3', '1e309', '-1e309', 'NaN', 'Infinity', '0x10',
  '2147483647', '2147483648', '-2147483649', '4294967296', '9007199254740993', '9'.repeat(40), '1 ', ' 1', '１２', '١',
  'null', 'true', 'false', '[]', '{}', '"', "'", '\\', '*', '?', '(', ')', '((((', '))', ',', '-', '!', '^2', '~', '||', '&&',
  'id.lt:', 'id.gt:-1', 'created_at:3 days ago', 'created_at.gte:9999-99-99', 'my:faves', 'my:nothing', 'gallery_id:x', 'filter_id:1',
  'random:', 'random:-5', 'gallery_id:99999999999', 'asc', 'desc', 'images', 'comments', 'tags', 'filters', 'nope',
  '..', '../..', '/..', '.', '%2e%2e', '%2E%2E%2F', '%00', '%', '%%', '%zz', '%E0%A4%A', '%C0%AF', '%FF', '%F0%9F', '%u0041', '%2F',
  '\u0000', '\u0001', '\n', '\r\n', '\t', '\u007f', '\u00a0', '\u00e9', '\u00ff', '\ud800', '\udfff', '\ud83d\ude00', '\u202e', '\ufeff', '\uffff',
  '𝕏', '漢字', 'ـ', LONG, '%'.repeat(500), '..%2F'.repeat(200), 'a,'.repeat(1000), '('.repeat(1500),
  'https://127.0.0.1/a.png', 'http://localhost:1/', 'file:///etc/passwd', 'https://[::1]/x', 'data:image/png;base64,AAAA', '//x', 'javascript:1',
];

const fuzzText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_VALUES) },
  { weight: 2, arbitrary: fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...SPECIAL_VALUES.filter((v) => v.length < 50)), { minLength: 2, maxLength: 5 }).map((a) => a.join('')) },
);

/** UTF-8 percent-encoding that also survives lone surrogates (encoded as U+FFFD, like TextEncoder). */
const encode = (text: string) => [...new TextEncoder().encode(text)].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/**
 * As little escaping as a request target allows: printable ASCII (`%`, `..`, `/`, `?`, `&`,
 * `=`, …) stays raw, so that invalid escapes and traversal reach the server; anything else is
 * percent-encoded. Raw bytes above 0x7e and a backslash in the path are refused by the HTTP
 * layer before the app (see "refused before the app" below), so path segments never carry them.
 */
const rawish = (text: string) => [...text].map((ch) => (/^[\u0021-\u007e]$/.test(ch) && ch !== '#' ? ch : encode(ch))).join('');

const segment = fc
  .tuple(fuzzText, fc.constantFrom('encoded', 'raw'))
  .map(([v, mode]) => (mode === 'encoded' ? encode(v) : rawish(v).replace(/\?/g, '%3F').replace(/\\/g, '%5C')));
/** A query value: raw `&`, `=`, `?` and backslashes allowed. */
const queryValue = fc.tuple(fuzzText, fc.constantFrom('encoded', 'raw')).map(([v, mode]) => (mode === 'encoded' ? encode(v) : rawish(v)));

const KNOWN_PARAMS = ['key', 'filter_id', 'page', 'per_page', 'q', 'sf', 'sd', 'url', 'distance', 'limit', 'del', 'hidden', 'index'];
const paramName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN_PARAMS) },
  { weight: 2, arbitrary: fc.constantFrom('q[]', 'q[k]', 'q[0][1]', 'page[]', 'per_page[]', 'filter_id[]', 'key[]', 'url[]', 'sf[]', '', '%zz', '%00', 'a%20b', 'q%5B%5D') },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map(encode) },
);

const keyValue = fc.constantFrom('valid', 'moderator', 'deactivated', 'fuzz');

/** A query string: pairs of names and values, repeated names allowed; sometimes a bare name or an empty one. */
const queryString = (names: string[]) =>
  fc
    .array(
      fc.tuple(
        fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(names.length ? names : KNOWN_PARAMS)) }, { weight: 2, arbitrary: paramName }),
        fc.oneof({ weight: 5, arbitrary: queryValue }, { weight: 1, arbitrary: keyValue }),
        fc.constantFrom('pair', 'pair', 'pair', 'bare', 'empty'),
      ),
      { maxLength: 8 },
    )
    .map((pairs) =>
      pairs
        .map(([name, value, form]) => {
          const v = value === 'valid' ? board.key : value === 'moderator' ? board.moderatorKey : value === 'deactivated' ? board.deactivatedKey : value;
          return form === 'bare' ? name : form === 'empty' ? `${name}=` : `${name}=${v}`;
        })
        .join('&'),
    );

/** Plausible values of each parameter, so that fuzzed requests also reach found objects. */
const PLAUSIBLE: Record<string, readonly string[]> = {
  key: ['valid', 'moderator'],
  filter_id: ['1', '2', '3'],
  page: ['1', '2', ''],
  per_page: ['1', '50', '25'],
  q: ['*', 'safe', 'id.gt:0', 'safe || explicit', 'created_at.lte:1 day ago', `${'a || '.repeat(300)}a`, `${'('.repeat(300)}safe${')'.repeat(300)}`, 'my:watched', 'gallery_id:1'],
  sf: ['score', 'random:3', 'created_at', 'gallery_id:1', '_score'],
  sd: ['asc', 'desc'],
  url: ['https://booru.test/images/1', '/images/2', 'https://cdn.booru.test/img/view/2024/5/1/1.png', 'https://127.0.0.1/a.png'],
  distance: ['0.5', '.3', '1'],
  limit: ['5', '50'],
  del: ['1', 'only', 'deleted'],
  hidden: ['1'],
  index: ['images', 'comments', 'posts', 'galleries', 'tags', 'filters'],
};

/** The route's own parameters with plausible values, plus fuzzed pairs. */
const plausibleQuery = (names: string[]) =>
  fc
    .tuple(
      fc.subarray(names).chain((picked) => fc.tuple(...picked.map((n) => fc.constantFrom(...(PLAUSIBLE[n] ?? ['1'])).map((v) => [n, v] as const)))),
      queryString(names),
    )
    .map(([pairs, extra]) =>
      [
        ...pairs.map(([n, v]) => `${n}=${v === 'valid' ? board.key : v === 'moderator' ? board.moderatorKey : encode(v)}`),
        ...(extra ? [extra] : []),
      ].join('&'),
    );

function fillPath(op: OperationSpec, values: string[]): string {
  let i = 0;
  return op.path.replace(/\{[a-z_]+\}/g, () => values[i++] ?? '1');
}

/** The required query parameters of an operation with a valid value (an enum's first, else `*`). */
function requiredQuery(op: OperationSpec): string {
  const shape = op.query.shape as Record<string, { isOptional(): boolean; options?: readonly string[] }>;
  return Object.entries(shape)
    .filter(([, schema]) => !schema.isOptional())
    .map(([name, schema]) => `${name}=${encodeURIComponent(requiredValue(name, schema.options))}`)
    .join('&');
}

/** A valid value of a required query parameter: one naming a real object where it names one. */
function requiredValue(name: string, options: readonly string[] | undefined): string {
  if (name === 'image_id') return realPathValue(name);
  if (name === 'index') return 'images';
  return options?.[0] ?? '*';
}

/**
 * The query of a read asked once with real values: its required parameters, and the optional ones
 * without which it cannot answer 200 — a live search refuses an empty query, and oEmbed without a
 * `url` has no image to describe.
 */
function fallbackQuery(op: OperationSpec): string {
  if (op.operationId === 'liveSearchImages') return 'q=*';
  if (op.operationId === 'getOembed') return `url=${encodeURIComponent(`/images/${realPathValue('image_id')}`)}`;
  return requiredQuery(op);
}

/** Real values of the board for path parameters, so that fuzzed queries also reach found objects. */
function realPathValue(name: string): string {
  const ids = board.ids;
  switch (name) {
    case 'image_id':
      return String(ids.visibleImage);
    case 'comment_id':
      return String(ids.comment);
    case 'post_id':
      return String(ids.post);
    case 'user_id':
      return String(ids.profile);
    case 'filter_id':
      return String(ids.defaultFilter);
    case 'tag_id':
      return ids.tagSlug;
    case 'short_name':
      return ids.forum;
    case 'topic_slug':
      return ids.topic;
    default:
      return '1';
  }
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
/** With `FUZZ_SECONDS`, every property runs for that long instead of a number of runs. */
const SECONDS = process.env.FUZZ_SECONDS === undefined ? undefined : Number(process.env.FUZZ_SECONDS);
const fuzzOptions = (runs: number, seconds: number) => ({
  numRuns: SECONDS === undefined ? runs : Number.MAX_SAFE_INTEGER,
  interruptAfterTimeLimit: (SECONDS ?? seconds) * 1000,
  markInterruptAsFailure: false,
  endOnFailure: false,
});
/** The test's own timeout: the property's time limit plus room for its last requests. */
const budget = (seconds: number) => ((SECONDS ?? seconds) + 90) * 1000;

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

describe('fuzzing every operation', () => {
  it.each(OPERATIONS.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
    '%s: random path and query values',
    async (_name, op) => {
      const paramNames = [...op.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
      const queryNames = Object.keys(op.query.shape);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof({ weight: 1, arbitrary: fc.constant<string | null>(null) }, { weight: 3, arbitrary: segment }), {
            minLength: paramNames.length,
            maxLength: paramNames.length,
          }),
          fc.oneof(queryString(queryNames), plausibleQuery(queryNames)),
          fc.constantFrom('', '', '', '/', '/..', '/%2e%2e/x', '//', '/extra'),
          async (values, query, suffix) => {
            const filled = values.map((v, i) => v ?? realPathValue(paramNames[i]!));
            const target = `${API_PREFIX}${fillPath(op, filled)}${suffix}${query ? `?${query}` : ''}`;
            const body = op.method === 'post' ? Buffer.from('{}') : undefined;
            await expectAcceptable({
              method: op.method.toUpperCase(),
              target,
              ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
            });
          },
        ),
        fuzzOptions(RUNS, 10),
      );
    },
    budget(10),
  );
});

// ---------------------------------------------------------------------------------------------
// Search queries and submission bodies
// ---------------------------------------------------------------------------------------------

/** Values at the edges of each field type, and beyond them. */
const EDGE_VALUES: Record<string, readonly string[]> = {
  int: ['0', '-1', '5', '2147483647', '2147483648', '-9223372036854775809', '1e3', '1.5', '5~2', '5~-1', 'x', ''],
  float: ['0', '0.5', '-1e308', '1e309', 'NaN', '.5', '5.', '1.5~0.5', 'x'],
  numeric: ['1', '0', '-1', '99999999999999999999', 'a'],
  date: [
    '9999', '9999-12', '9999-12-31', '9999-12-31T23:59:59-23:59', '9999-12-31T23:59:59+23:59', '0000', '0000-01-01T00:00:00+23:59',
    '2024-02-29', '2023-02-29', '2024-05-01T12:30', '3 days ago', '1000 years ago', '1001 years ago', '99999999999999999999 seconds ago',
    'now', 'now-1d/d', '2024-13', '10000', '-0001', 'x',
  ],
  bool: ['true', 'false', '1', 'yes', 'x'],
  ip: ['127.0.0.1', '::1', '10.0.0.0/8', '::/0', '::ffff:1.2.3.4/128', '0.0.0.0/33', '1.2.3', 'x'],
  literal: ['safe', '*', '?', 'a*b?', '\\*', 'x~2', 'artist:foo', ''],
  ngram: ['foo', '*', 'a b', 'foo~1'],
  custom: ['faves', 'upvotes', 'watched', '1', 'x'],
};
const RANGE_OPS = [':', '.gt:', '.gte:', '.lt:', '.lte:', '.eq:', '.nope:'];

/** A term over the index's fields: `field<op>value`, or a bare word. */
const termFor = (index: string) => {
  const fields = isIndexName(index) ? indexDefinitions[index].fields.fields : [];
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(fc.constantFrom(...fields), fc.constantFrom(...RANGE_OPS), fc.nat())
        .map(([f, op, n]) => {
          const values = EDGE_VALUES[f.type] ?? EDGE_VALUES.literal!;
          return `${f.name}${op}${values[n % values.length]}`;
        }),
    },
    { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_VALUES.filter((v) => v.length < 40)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
};

/** A query: terms joined by the operators, some negated, grouped or boosted. */
const queryFor = (index: string) => {
  const term = fc
    .tuple(termFor(index), fc.constantFrom('', '', '-', '!', 'NOT '), fc.constantFrom('', '', '^2', '^-1', '~1'), fc.boolean())
    .map(([t, not, boost, quoted]) => `${not}${quoted ? `"${t}"` : t}${boost}`);
  return fc
    .tuple(fc.array(term, { minLength: 1, maxLength: 6 }), fc.array(fc.constantFrom(', ', ' || ', ' AND ', ' OR ', ' && ', ','), { minLength: 5, maxLength: 5 }), fc.nat(3))
    .map(([terms, joins, groups]) => {
      let q = terms.reduce((acc, t, i) => (i === 0 ? t : `${acc}${joins[i - 1]}${t}`), '');
      for (let g = 0; g < groups; g++) q = `(${q})${g % 2 ? ' || safe' : ''}`;
      return q;
    });
};

/** Small edits of a text: a syntax character put in, a span dropped, or a span doubled. */
const mutated = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.array(fc.tuple(fc.nat(), fc.nat(8), fc.constantFrom('insert', 'drop', 'double'), fc.constantFrom(...'()",\\|&!-*?~^:. \u0000é')), { maxLength: 3 })).map(([t, edits]) =>
    edits.reduce((acc, [at, len, kind, ch]) => {
      const i = acc.length === 0 ? 0 : at % (acc.length + 1);
      if (kind === 'insert') return acc.slice(0, i) + ch + acc.slice(i);
      if (kind === 'drop') return acc.slice(0, i) + acc.slice(i + len);
      return acc.slice(0, i) + acc.slice(i, i + len).repeat(2) + acc.slice(i + len);
    }, t),
  );

describe('fuzzing search queries and submission bodies', () => {
  const searches = OPERATIONS.filter((op) => op.method === 'get' && 'q' in op.query.shape);

  it.each(searches.map((op) => [op.path, op] as const))('%s: generated and mutated queries over its fields', async (path, op) => {
    // `/search/explain` names its index in a parameter; the filter test bench samples images and
    // live searches follow them; the others name theirs in their path.
    const explain = path === '/search/explain';
    const overImages = path === '/search' || path === '/filters/test' || path === '/search/images/live';
    const indexes = explain ? [...indexNames] : [overImages ? 'images' : path.split('/').pop()!];
    const query = fc.constantFrom(...indexes).chain((index) => fc.tuple(fc.constant(index), fc.oneof({ weight: 2, arbitrary: queryFor(index) }, { weight: 1, arbitrary: mutated(queryFor(index)) })));
    await fc.assert(
      fc.asyncProperty(
        query,
        fc.constantFrom('', 'valid', 'moderator'),
        fc.constantFrom('', 'sf=created_at&sd=asc', 'sf=_score', 'sf=random:7', 'per_page=50&page=2'),
        async ([index, q], key, extra) => {
          const keyParam = key === 'valid' ? `key=${board.key}` : key === 'moderator' ? `key=${board.moderatorKey}` : '';
          const query = [`q=${encode(q)}`, explain ? `index=${index}` : '', keyParam, extra].filter(Boolean).join('&');
          const res = await expectAcceptable({ method: 'GET', target: `${API_PREFIX}${op.path}?${query}` });
          if (![200, 400].includes(res.status)) throw new Error(`GET ${op.path}?q=${q}: status ${res.status}`);
        },
      ),
      fuzzOptions(RUNS * 2, 15),
    );
  }, budget(15));

  const VALID_SUBMISSION = {
    url: 'https://127.0.0.1:9/a.png',
    image: { description: 'd', tag_input: 'safe, solo, pony', source_url: 'https://example.com/a', sources: ['https://example.com/b'], anonymous: false },
  };
  const oddValue = fc.oneof(
    fuzzText,
    fc.constantFrom<unknown>(null, true, 0, -1, 1e308, [], {}, ['safe'], { 0: { source: 'x' } }, 'a,'.repeat(20_000), `${'x'.repeat(300)}, safe, solo`),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const fieldEdit = fc.option(fc.oneof(fc.constant<'drop'>('drop'), oddValue.map((v) => ({ value: v }))), { nil: undefined, freq: 2 });

  it('POST /images: mutations of a valid submission', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ url: fieldEdit, image: fieldEdit }),
        fc.record({ description: fieldEdit, tag_input: fieldEdit, source_url: fieldEdit, sources: fieldEdit, anonymous: fieldEdit }),
        async (top, inner) => {
          const apply = (base: Record<string, unknown>, edits: Record<string, 'drop' | { value: unknown } | undefined>) => {
            const out: Record<string, unknown> = { ...base };
            for (const [field, edit] of Object.entries(edits)) {
              if (edit === 'drop') delete out[field];
              else if (edit) out[field] = edit.value;
            }
            return out;
          };
          const body = apply({ ...VALID_SUBMISSION, image: apply(VALID_SUBMISSION.image, inner) }, top);
          const res = await expectAcceptable({
            method: 'POST',
            target: `${API_PREFIX}/images?key=${board.key}`,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify(body)),
          });
          if (res.status === 200) throw new Error('a submission of an unreachable URL was accepted');
        },
      ),
      fuzzOptions(RUNS * 2, 20),
    );
  }, budget(20));
});

describe('fuzzing methods, bodies and targets', () => {
  it('wrong methods on every path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OPERATIONS),
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'get'),
        fc.constantFrom(undefined, 'application/json', 'text/plain'),
        async (op, method, contentType) => {
          const target = `${API_PREFIX}${fillPath(op, [...op.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => realPathValue(m[1]!)))}`;
          const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'get' && contentType !== undefined;
          await expectAcceptable({
            method: method === 'get' ? 'GET' : method,
            target,
            ...(hasBody ? { body: Buffer.from('{"url":"x"}'), headers: { 'content-type': contentType! } } : {}),
          });
        },
      ),
      fuzzOptions(RUNS * 3, 30),
    );
  }, budget(30));

  const contentTypes = [
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'application/json;;;',
    'application/jsonx',
    'text/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'multipart/form-data; boundary=XyZ',
    'multipart/form-data; boundary=',
    'multipart/mixed; boundary=XyZ',
    'application/octet-stream',
    'image/png',
    '',
    ';',
    '\u00e9/\u00e9',
  ];
  const jsonish = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.record({ url: fuzzText, image: fc.option(fc.record({ description: fuzzText, tag_input: fuzzText, source_url: fuzzText, sources: fc.oneof(fc.array(fuzzText), fc.dictionary(fc.string(), fc.record({ source: fuzzText }))), anonymous: fc.oneof(fc.boolean(), fuzzText) }, { requiredKeys: [] })), distance: fuzzText, limit: fuzzText }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
    fc.constantFrom('', '{', '}', 'null', '[]', '"x"', '1e999', '{"url":', '{"image":null}', '{"image":[]}', '{"url":null,"image":{"tag_input":null}}', '['.repeat(5000), '{"a":'.repeat(3000), '\u0000', '\ufeff{}'),
    fc.string({ unit: 'binary', maxLength: 200 }),
  );
  const multipart = fc.tuple(fuzzText, fc.uint8Array({ maxLength: 300 })).map(([field, bytes]) =>
    Buffer.concat([
      Buffer.from(`--XyZ\r\nContent-Disposition: form-data; name="${field.replace(/["\r\n]/g, '')}"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
      Buffer.from(bytes),
      Buffer.from('\r\n--XyZ\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://127.0.0.1/x.png\r\n--XyZ--\r\n'),
    ]),
  );

  it('odd bodies and content types on POST /images and POST /search/reverse', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/images', '/search/reverse'),
        fc.constantFrom('none', 'valid', 'fuzz'),
        fc.constantFrom(...contentTypes),
        fc.oneof({ weight: 4, arbitrary: jsonish.map((s) => Buffer.from(s)) }, { weight: 1, arbitrary: multipart }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 500 }).map((b) => Buffer.from(b)) }),
        queryString(['key', 'url', 'distance', 'limit']),
        async (path, key, contentType, body, query) => {
          const keyParam = key === 'valid' ? `key=${board.key}` : key === 'fuzz' ? 'key=%zz' : '';
          const q = [keyParam, query].filter(Boolean).join('&');
          await expectAcceptable({
            method: 'POST',
            target: `${API_PREFIX}${path}${q ? `?${q}` : ''}`,
            headers: contentType === '' ? {} : { 'content-type': contentType },
            body,
          });
        },
      ),
      fuzzOptions(RUNS * 4, 30),
    );
  }, budget(30));

  it('malformed targets anywhere', async () => {
    const prefix = fc.constantFrom(API_PREFIX, `${API_PREFIX}/`, '', '/api', '/api/v1', '/api/docs', '/api/v1/openapi.json', '/img', '/img/view', '/avatars', '/tag-img', '/badge-img', '/healthz');
    await fc.assert(
      fc.asyncProperty(
        prefix,
        fc.array(segment, { maxLength: 6 }),
        fc.option(queryString(KNOWN_PARAMS), { nil: undefined }),
        fc.constantFrom('GET', 'HEAD', 'POST'),
        async (start, segments, query, method) => {
          const target = `${start}/${segments.join('/')}${query !== undefined ? `?${query}` : ''}`.replace(/^([^/])/, '/$1');
          await expectAcceptable({ method, target });
        },
      ),
      fuzzOptions(RUNS * 4, 30),
    );
  }, budget(30));

  it('reached found objects of every read operation, not only errors', async () => {
    const reads = OPERATIONS.filter((op) => op.method === 'get' && op.operationId !== 'listUserFilters');
    // Runs cut short by the time limit on a busy machine may not have drawn real values for
    // every route: ask those with the board's real path values once.
    for (const op of reads.filter((o) => !seen.get(o.operationId)?.get(200))) {
      const query = fallbackQuery(op);
      const path = fillPath(op, [...op.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => realPathValue(m[1]!)));
      const target = `${API_PREFIX}${path}${query === '' ? '' : `?${query}`}`;
      await expectAcceptable({ method: 'GET', target });
    }
    const without200 = reads
      .filter((op) => !seen.get(op.operationId)?.get(200))
      .map((op) => op.operationId);
    expect(without200).toEqual([]);
  });

  it('keeps serving, and logged no failure', async () => {
    const res = await send({ method: 'GET', target: '/healthz' });
    expect(res.status).toBe(200);
    const image = await expectAcceptable({ method: 'GET', target: `${API_PREFIX}/images/${board.ids.visibleImage}` });
    expect(image.status).toBe(200);
    expect(board.h.logged).toEqual([]);
  });
});

/**
 * Targets the HTTP layer refuses before the app sees them: node's parser (raw bytes above 0x7e
 * in the request line, request lines over its header limit) and the node adapter (a backslash
 * in the path). They get 400 (431) without a JSON body; what matters here is that the server
 * keeps serving. (A JSON body would need an `errorHandler` for the adapter and a `clientError`
 * handler on the server, where the server is created.)
 */
describe('refused before the app', () => {
  it.each([
    ['raw non-ASCII bytes in the query', 400, `${API_PREFIX}/search/images?q=\u00e9`],
    ['raw non-ASCII bytes in the path', 400, `${API_PREFIX}/tags/\u00e9`],
    ['a backslash in the path', 400, `${API_PREFIX}/images/1\\..\\2`],
    ['a request line over the header limit', 431, `${API_PREFIX}/search/images?q=${'a'.repeat(20_000)}`],
  ])('%s: %i, and the server keeps serving', async (_what, status, target) => {
    const res = await send({ method: 'GET', target }).catch((err: Error) => ({ status: -1, body: Buffer.from(err.message) }));
    expect(res.status).toBe(status);
    const after = await send({ method: 'GET', target: `${API_PREFIX}/images/${board.ids.visibleImage}` });
    expect(after.status).toBe(200);
  });
});
