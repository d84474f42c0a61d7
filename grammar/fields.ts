/**
 * Field sets: which fields a query may name on one index, their types, the index field each one
 * searches (aliases), how literal values are normalised, the least role that sees each field,
 * and the transforms of custom fields. One set per index lives beside that index's definition
 * (`src/search/indexes/<index>/fields.ts`).
 */
import type { Query } from './dsl.js';
import type { QueryContext } from './context.js';
import { trimUnicode } from './whitespace.js';

/** Who is searching. `assistant` counts as `user`, `admin` as `moderator`. */
export type Role = 'anonymous' | 'user' | 'assistant' | 'moderator' | 'admin';
/** The three field-set tiers; each adds to the one before. */
export type RoleTier = 'anonymous' | 'user' | 'moderator';

const TIER_RANK: Record<RoleTier, number> = { anonymous: 0, user: 1, moderator: 2 };

export function roleTier(role: Role | null | undefined): RoleTier {
  switch (role) {
    case 'user':
    case 'assistant':
      return 'user';
    case 'moderator':
    case 'admin':
      return 'moderator';
    default:
      return 'anonymous';
  }
}

export function isRole(value: unknown): value is Role {
  return value === 'anonymous' || value === 'user' || value === 'assistant' || value === 'moderator' || value === 'admin';
}

export type FieldType = 'literal' | 'ngram' | 'int' | 'float' | 'numeric' | 'bool' | 'date' | 'ip' | 'custom';

/** Replaces the default normalisation (trim, then lowercase) of literal and ngram values. */
export type Normalizer = (value: string) => string;

/** What a custom field's transform receives. */
export interface TransformInput {
  /** The field as written (`my`). */
  field: string;
  /** The value after the colon, whitespace-trimmed. */
  value: string;
  tier: RoleTier;
  context: QueryContext;
  /**
   * Compile another query string (multi-line normalised first) with the same field set and role
   * and the given context. An empty string gives `match_none`, and so does a string that fails
   * to compile: a broken saved string never hides or shows everything.
   */
  compileNested(text: string | null | undefined, context: QueryContext): Query;
  /** Stop with a query error at this term's value. */
  fail(message: string): never;
}

export type CustomTransform = (input: TransformInput) => Query;

export interface FieldSpec {
  /** The name a query uses (`faved_by`). */
  readonly name: string;
  readonly type: FieldType;
  /** The index field searched (`favourited_by_users`); defaults to `name`. */
  readonly target: string;
  /** Literal and ngram only: replaces trim + lowercase. */
  readonly normalize?: Normalizer;
  /** Least role that may use the field. */
  readonly minRole: RoleTier;
  /** Custom fields only. */
  readonly transform?: CustomTransform;
}

export interface FieldSet {
  /** The index the set belongs to (`images`). */
  readonly index: string;
  /** What a term without a field prefix searches; literal or ngram. */
  readonly defaultField: FieldSpec;
  /**
   * Every field with its least role. A name may appear once per role, the later entry (for a
   * higher role) replacing the earlier one, e.g. comments `image.tags` cleaned for moderators.
   */
  readonly fields: readonly FieldSpec[];
}

export interface FieldOptions {
  target?: string;
  normalize?: Normalizer;
  minRole?: RoleTier;
}

export function field(name: string, type: Exclude<FieldType, 'custom'>, options: FieldOptions = {}): FieldSpec {
  return {
    name,
    type,
    target: options.target ?? name,
    minRole: options.minRole ?? 'anonymous',
    ...(options.normalize ? { normalize: options.normalize } : {}),
  };
}

/** Several fields of one type and role, without aliases. */
export function fieldsOf(type: Exclude<FieldType, 'custom'>, names: readonly string[], options: Omit<FieldOptions, 'target'> = {}): FieldSpec[] {
  return names.map((name) => field(name, type, options));
}

export function customField(name: string, transform: CustomTransform, minRole: RoleTier = 'anonymous'): FieldSpec {
  return { name, type: 'custom', target: name, minRole, transform };
}

/** Trim only: for fields whose values keep their case (`file_name`). */
export const keepCase: Normalizer = (value) => trimUnicode(value);

/** The default normalisation: trim, then lowercase. */
export const lowercase: Normalizer = (value) => trimUnicode(value).toLowerCase();

export function defineFieldSet(index: string, defaultField: FieldSpec, fields: readonly FieldSpec[]): FieldSet {
  if (defaultField.type !== 'literal' && defaultField.type !== 'ngram') {
    throw new Error(`${index}: the default field must be literal or ngram`);
  }
  const seen = new Set<string>();
  for (const f of fields) {
    const key = `${f.name}@${f.minRole}`;
    if (seen.has(key)) throw new Error(`${index}: field ${f.name} is defined twice for role ${f.minRole}`);
    if (f.name.includes(':') || f.name === '') throw new Error(`${index}: invalid field name ${JSON.stringify(f.name)}`);
    if ((f.type === 'custom') !== (f.transform !== undefined)) throw new Error(`${index}: ${f.name}: transforms belong to custom fields`);
    seen.add(key);
  }
  return Object.freeze({ index, defaultField, fields: Object.freeze([...fields]) });
}

/** The fields one role sees. */
export interface ResolvedFields {
  readonly set: FieldSet;
  readonly tier: RoleTier;
  readonly defaultField: FieldSpec;
  readonly byName: ReadonlyMap<string, FieldSpec>;
}

const resolved = new WeakMap<FieldSet, Partial<Record<RoleTier, ResolvedFields>>>();

export function fieldsForRole(set: FieldSet, role: Role | RoleTier | null | undefined): ResolvedFields {
  const tier = roleTier(role as Role);
  let cache = resolved.get(set);
  if (!cache) resolved.set(set, (cache = {}));
  const hit = cache[tier];
  if (hit) return hit;
  const byName = new Map<string, FieldSpec>();
  const rank = TIER_RANK[tier];
  for (const f of [...set.fields].sort((a, b) => TIER_RANK[a.minRole] - TIER_RANK[b.minRole])) {
    if (TIER_RANK[f.minRole] <= rank) byName.set(f.name, f);
  }
  const out: ResolvedFields = { set, tier, defaultField: set.defaultField, byName };
  cache[tier] = out;
  return out;
}
