/**
 * Field resolution for the evaluator: a field name (always the full dotted path, also inside
 * `nested`) against the mapping and the enclosing `nested` scope, giving the kind of value the
 * field holds and where its values are in a document.
 */
import type { FieldMapping, IndexMapping } from '../mapping.js';
import { analyzerFor, type AnalyzedText } from '../text.js';

/** What compiling a clause knows: the mapping, the enclosing nested path, and the clock. */
export interface Ctx {
  mapping: IndexMapping | undefined;
  /** Full path of the innermost enclosing `nested` query, or null at the top level. */
  scope: string | null;
  now: () => number;
}

export type Kind =
  | 'keyword'
  | 'text'
  | 'integer'
  | 'float'
  | 'double'
  | 'date'
  | 'boolean'
  | 'ip'
  | 'object'
  | 'nested'
  | 'infer'
  | 'none';

const INTEGER_TYPES = new Set(['integer', 'long', 'short', 'byte', 'unsigned_long']);
const FLOAT_TYPES = new Set(['float', 'half_float']);
const DOUBLE_TYPES = new Set(['double', 'scaled_float']);

export interface Field {
  name: string;
  kind: Kind;
  /** Path inside the current scope's object (parent path for a text sub-field). */
  segs: string[];
  analyzer: (text: string) => AnalyzedText;
}

function kindOfType(type: string): Kind {
  if (type === 'keyword' || type === 'constant_keyword' || type === 'wildcard') return 'keyword';
  if (type === 'text' || type === 'match_only_text') return 'text';
  if (INTEGER_TYPES.has(type)) return 'integer';
  if (FLOAT_TYPES.has(type)) return 'float';
  if (DOUBLE_TYPES.has(type)) return 'double';
  if (type === 'date' || type === 'date_nanos') return 'date';
  if (type === 'boolean') return 'boolean';
  if (type === 'ip') return 'ip';
  if (type === 'object') return 'object';
  if (type === 'nested') return 'nested';
  throw new Error(`Unsupported field type in mapping: ${type}`);
}

function analyzerOf(fm: FieldMapping | undefined): (text: string) => AnalyzedText {
  return analyzerFor(fm && fm.type === 'text' ? fm.analyzer : undefined);
}

/**
 * Resolves a field name (always the full dotted path, also inside `nested`) against the mapping
 * and the current scope. Fields OpenSearch would not find resolve to kind `none` (never match):
 * names outside the enclosing nested path, names the mapping lacks, and paths through a nested
 * field from outside a `nested` query.
 */
export function resolveField(ctx: Ctx, name: string): Field {
  const none: Field = { name, kind: 'none', segs: [], analyzer: analyzerOf(undefined) };
  let rel = name;
  if (ctx.scope !== null) {
    if (!name.startsWith(ctx.scope + '.')) return none;
    rel = name.slice(ctx.scope.length + 1);
  }
  const relSegs = rel.split('.');
  if (ctx.mapping === undefined) {
    return { name, kind: 'infer', segs: relSegs, analyzer: analyzerOf(undefined) };
  }
  const parts = name.split('.');
  let props: Record<string, FieldMapping> | undefined = ctx.mapping.properties;
  for (let i = 0; i < parts.length; i++) {
    const fm: FieldMapping | undefined = props?.[parts[i] as string];
    if (fm === undefined) return none;
    const last = i === parts.length - 1;
    const kind = kindOfType(fm.type);
    if (kind === 'object' || kind === 'nested') {
      const pathHere = parts.slice(0, i + 1).join('.');
      if (kind === 'nested' && !last) {
        // inside a nested field: only reachable from a nested query at (or below) this path
        if (ctx.scope === null || !(ctx.scope === pathHere || ctx.scope.startsWith(pathHere + '.'))) return none;
      }
      if (last) {
        if (kind === 'nested' && !(ctx.scope !== null && ctx.scope.startsWith(pathHere + '.'))) return none;
        return { name, kind, segs: relSegs, analyzer: analyzerOf(undefined) };
      }
      props = (fm as { properties: Record<string, FieldMapping> }).properties;
      continue;
    }
    if (last) return { name, kind, segs: relSegs, analyzer: analyzerOf(fm) };
    // a multi-field such as `analyzed_name.nlp`: read the parent's value, analyze as the sub-field
    if (fm.type === 'text' && fm.fields !== undefined && i === parts.length - 2) {
      const sub = fm.fields[parts[i + 1] as string];
      if (sub === undefined) return none;
      const subKind = kindOfType(sub.type);
      return { name, kind: subKind, segs: relSegs.slice(0, -1), analyzer: analyzerOf(sub) };
    }
    return none;
  }
  return none;
}

/** Path of the nested objects of `nested.path` relative to the current scope. */
export function resolveNestedPath(ctx: Ctx, path: string, ignoreUnmapped: boolean): string[] | null {
  if (ctx.scope !== null && !path.startsWith(ctx.scope + '.')) {
    if (ignoreUnmapped) return null;
    throw new Error(`[nested] nested path [${path}] is not inside the enclosing nested path [${ctx.scope}]`);
  }
  const rel = ctx.scope !== null ? path.slice(ctx.scope.length + 1) : path;
  if (ctx.mapping !== undefined) {
    let props: Record<string, FieldMapping> | undefined = ctx.mapping.properties;
    let fm: FieldMapping | undefined;
    for (const part of path.split('.')) {
      fm = props?.[part];
      props = fm && (fm.type === 'object' || fm.type === 'nested') ? fm.properties : undefined;
    }
    if (fm === undefined) {
      if (ignoreUnmapped) return null;
      throw new Error(`[nested] failed to find nested object under path [${path}]`);
    }
    if (fm.type !== 'nested') throw new Error(`[nested] nested object under path [${path}] is not of nested type`);
  }
  return rel.split('.');
}

