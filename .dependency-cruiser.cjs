/**
 * The allowed arrows between the project's folders, checked by `npm run deps` (dependency-cruiser).
 * ARCHITECTURE.md explains the layout these rules protect. Violations that existed when a rule was
 * introduced are listed in .dependency-cruiser-known-violations.json; that list only ever shrinks
 * (regenerate it with `npm run deps:baseline` after removing one).
 */
const { existsSync } = require('node:fs');

const rules = [
  {
    name: 'grammar-is-pure',
    comment: 'The search language is a pure library: grammar/ imports nothing of the project.',
    severity: 'error',
    from: { path: '^grammar/' },
    to: { path: '^(src|indexer|bench|test)/' },
  },
  {
    name: 'grammar-through-index',
    comment:
      'Everything outside grammar/ uses the grammar through grammar/index.ts (and grammar/compiler.ts, its door ' +
      "for turning text into queries, see search-compiled-in-its-context), so its internals can move. " +
      "The grammar's own unit tests (test/grammar/) may reach its modules.",
    severity: 'error',
    from: { pathNot: '^(grammar|test/grammar)/' },
    to: { path: '^grammar/', pathNot: '^grammar/(index|compiler)\\.ts$' },
  },
  {
    name: 'routes-not-indexer',
    comment: 'HTTP routes never touch the indexer or its outbox; the database triggers of each write enqueue its reindexing.',
    severity: 'error',
    from: { path: '^src/http/routes/' },
    to: { path: '^indexer/' },
  },
  {
    name: 'routes-not-routes',
    comment:
      'A route file is one resource, mounted by app.ts; routes do not import each other. What two routes ' +
      'share lives in the context that owns it or in a shared module of src/http outside routes/.',
    severity: 'error',
    from: { path: '^src/http/routes/' },
    to: { path: '^src/http/routes/' },
  },
  {
    name: 'no-cycles',
    comment: 'No import cycles, type-only imports included: a cycle means two modules are one concern or a type is in the wrong place.',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
  {
    name: 'production-not-tests',
    comment: 'The server, the grammar and the indexer never import tests or benchmarks.',
    severity: 'error',
    from: { path: '^(src|grammar|indexer)/' },
    to: { path: '^(test|bench)/' },
  },
  {
    name: 'lib-is-leaf',
    comment: 'src/lib/ holds small helpers shared by the server, CLIs, tests and benchmarks; it imports nothing of the project.',
    severity: 'error',
    from: { path: '^src/lib/' },
    to: { path: '^(src|grammar|indexer|bench|test)/', pathNot: '^src/lib/' },
  },
];

/**
 * The domain layer: http → contexts → db/search. A context owns its tables' queries and mutations,
 * so HTTP code reads and writes only through contexts.
 * These rules apply as soon as src/contexts/ exists.
 */
const contextRules = [
  {
    name: 'http-through-contexts',
    comment:
      'HTTP code queries no table itself: it calls a context. The response schemas may read the ' +
      "database's enum lists, so that the contract and the columns name the same values.",
    severity: 'error',
    from: { path: '^src/http/', pathNot: '^src/http/schemas/' },
    to: { path: '^src/db/schema/' },
  },
  {
    name: 'contexts-know-no-http',
    comment: 'Contexts are called by routes, CLIs and the importer alike; they know nothing of HTTP.',
    severity: 'error',
    from: { path: '^src/contexts/' },
    to: { path: '^src/http/' },
  },
  {
    name: 'outbox-behind-contexts',
    comment:
      "Database triggers write the outbox in each change's transaction and the indexer reads it; " +
      'other code sees it only through a context (e.g. contexts/indexing for its lag).',
    severity: 'error',
    from: { pathNot: '^(src/contexts|indexer|test)/' },
    to: { path: '^indexer/outbox\\.ts$' },
  },
  {
    name: 'search-compiled-in-its-context',
    comment:
      "Only src/contexts/search turns query text into queries (grammar/compiler.ts: compileQuery, clauseTree, …): " +
      'it plans each search, compiling its q and its filter once, and spoilers come from the same compiled ' +
      'filter. Routes, renderers, the CLIs and the other contexts call it. Benchmarks and tests (oracles build ' +
      'their own queries) may compile; the indexer needs no compiling.',
    severity: 'error',
    from: { pathNot: '^(src/contexts/search|grammar|bench|test)/' },
    to: { path: '^grammar/compiler\\.ts$' },
  },
];

module.exports = {
  forbidden: existsSync('src/contexts') ? [...rules, ...contextRules] : rules,
  options: {
    // TypeScript 7 has no JavaScript compiler API for dependency-cruiser to parse with; swc reads
    // TypeScript and, unlike a transpile-first parse, keeps type-only imports, so type-only cycles count.
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/db/migrations/' },
  },
};
