/**
 * The grammar's second door: what turns query text into a query (the OpenSearch DSL, or clause
 * trees for explanations). Kept apart from `index.ts` so that the import rules can name who
 * compiles: in the server only `src/contexts/search`, which plans each search and compiles its
 * query and its filter once (`.dependency-cruiser.cjs`, `search-compiled-in-its-context`).
 */
export { compile, compileQuery, compileSaved, compileMessages } from './compile.js';
export { clauseTree } from './clauses.js';
