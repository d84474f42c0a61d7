/**
 * Response objects checked against both statements of their shape: the contract's zod schema
 * (src/api/schemas, what the server and its OpenAPI document promise) and the spec's table
 * (spec-shapes.ts, written from spec/api.md independently of the server's code). A schema that
 * drifts from the spec fails test/openapi/schemas.test.ts; an answer that breaks either fails here.
 */
import type { z } from 'zod';
import * as S from '../../src/api/schemas/index.js';
import * as shapes from './spec-shapes.js';

/** Each spec shape with the schema of the same object, by schema name. */
export const RESOURCE_PAIRS: readonly [string, z.ZodObject, shapes.Shape][] = [
  ['Image', S.Image, shapes.IMAGE],
  ['HiddenImage', S.HiddenImage, shapes.HIDDEN_IMAGE],
  ['Representations', S.Representations, shapes.REPRESENTATIONS],
  ['Intensities', S.Intensities, shapes.INTENSITIES],
  ['Comment', S.Comment, shapes.HIDDEN_COMMENT],
  ['Forum', S.Forum, shapes.FORUM],
  ['Topic', S.Topic, shapes.TOPIC],
  ['Post', S.Post, shapes.POST],
  ['DnpEntry', S.DnpEntry, shapes.DNP_ENTRY],
  ['Tag', S.Tag, shapes.TAG],
  ['Link', S.Link, shapes.LINK],
  ['Award', S.Award, shapes.AWARD],
  ['Profile', S.Profile, shapes.PROFILE],
  ['Filter', S.Filter, shapes.FILTER],
  ['Gallery', S.Gallery, shapes.GALLERY],
  ['Oembed', S.Oembed, shapes.OEMBED],
  ['Interaction', S.Interaction, shapes.INTERACTION],
];

/** The schema of the object a spec shape describes (a visible comment is a `Comment` too). */
const schemaOf = new Map<shapes.Shape, z.ZodType>([
  ...RESOURCE_PAIRS.map(([, schema, shape]) => [shape, schema] as const),
  [shapes.COMMENT, S.Comment],
]);

/** Throws listing every problem of `value` against the spec shape and the contract's schema. */
export function assertResource(value: unknown, shape: shapes.Shape): void {
  const schema = schemaOf.get(shape);
  if (!schema) throw new Error(`no schema pairs with the spec shape ${shape.name}`);
  const parsed = schema.safeParse(value);
  const problems = [
    ...shapes.shapeProblems(value, shape),
    ...(parsed.success ? [] : parsed.error.issues.map((i) => `${shape.name}.${i.path.join('.')}: ${i.message} (schema)`)),
  ];
  if (problems.length > 0) throw new Error(`shape mismatch:\n  ${problems.join('\n  ')}`);
}
