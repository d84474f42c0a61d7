/**
 * Image submission (reference §8): validate everything a submission carries, collecting errors
 * per field as Ecto does, then create the image in one transaction.
 *
 * Order of the checks (§8.2): description and `source_url`, sources, tags (after aliases,
 * implications and the `oc` auto-tag), DNP, file analysis; the duplicate check last, at insert
 * time, and only when nothing else failed. Errors of one field come out in the reference's order:
 * Ecto prepends, so `tag_input` lists its problems last-found first
 * (`["must contain at least one rating tag","must contain at least 3 tags"]` for `solo`).
 *
 * Decisions where the spec and the reference differ or are silent:
 * - A duplicate (same SHA-512 of the original bytes) is reported on `image_orig_sha512_hash` with
 *   `has already been taken: it's image N`, as the spec's error table says (the reference reports
 *   `has already been uploaded: it's image N` on `image`).
 * - `source_url` is validated (`^https?://`, ≤ 255 characters) and stored as the image's first
 *   source, so it appears in `source_url` and `source_urls` as the spec describes (the reference
 *   keeps it in a legacy column only). `sources` (an array or the reference's `{"0":{"source":…}}`
 *   map) come after it; blanks are dropped and duplicates removed.
 * - A URL that cannot be fetched gives `image: ["url <reason>"]` (e.g. `url must use https`,
 *   `url points to an address that is not allowed`, `url answered with status 404`); a download
 *   larger than the cap gives `image_size: ["must be less than or equal to N"]`. No file at all
 *   gives the reference's exact no-file map.
 *
 * Concurrency: the duplicate check and the insert run under a transaction-scoped advisory lock on
 * the hash, so two simultaneous uploads of the same bytes cannot both pass. The original is written
 * to the file store (`Y/M/D/ID/full.EXT`) before the commit and deleted if the transaction fails;
 * the `process-image` job is enqueued in the same transaction.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { dnpEntries, dnpTypes, images, imageSources, imageTaggings, userLinks, users, type Role } from '../../db/schema/index.js';
import { enqueueJob } from '../../jobs/queue.js';
import { imageNameError, MAX_IMAGE_SIZE, type ImageAnalysis } from '../../media/analyze.js';
import { requestDecodes } from '../../media/sandbox/decodes.js';
import { MEDIA_MESSAGES, MediaError, type MediaErrorMap } from '../../media/errors.js';
import type { FfmpegOptions } from '../../media/ffmpeg.js';
import { formatInfo } from '../../media/formats.js';
import { IntakeGuard } from '../../media/intake-guard.js';
import { FetchError, safeFetch, type SafeFetchOptions } from '../../media/safe-fetch.js';
import { pathFor, type MediaStorage } from '../../media/storage.js';
import { getOrCreateTags, MAX_TAG_INPUT_TAGS, parseTagList } from '../tags/get-or-create.js';
import { ratingProblems } from '../tags/categories.js';
import type { Transaction } from '../../db/executor.js';
import type { TagRow } from '../tags/types.js';

/** Kind of the background job that processes a new image. */
export const PROCESS_IMAGE_JOB = 'process-image';

export const MAX_DESCRIPTION_BYTES = 50_000;
export const MAX_SOURCES = 15;
export const MAX_SOURCE_LENGTH = 255;
export const MIN_TAGS = 3;

/** Tags no image may carry (the reference's `config/tag.json` blacklist). */
export const FORBIDDEN_TAGS: readonly string[] = Object.freeze([
  'tagme',
  'tag me',
  'not tagged',
  'no tag',
  'notag',
  'notags',
  'upvotes galore',
  'tag needed',
  'paywall',
  'solo oc',
]);

const SOURCE_FORMAT = /^https?:\/\//i;

export const SUBMIT_MESSAGES = {
  invalidFormat: 'has invalid format',
  descriptionTooLong: `should be at most ${MAX_DESCRIPTION_BYTES} byte(s)`,
  sourceTooLong: `should be at most ${MAX_SOURCE_LENGTH} character(s)`,
  tooManySources: `should have at most ${MAX_SOURCES} item(s)`,
  tooFewTags: `must contain at least ${MIN_TAGS} tags`,
  tooManyTags: `should have at most ${MAX_TAG_INPUT_TAGS} tag(s)`,
  forbiddenTag: (name: string) => `contains forbidden tag \`${name}'`,
  duplicate: (id: number) => `has already been taken: it's image ${id}`,
  dnp: (type: string) => `DNP (${type})`,
} as const;

/** One source's errors in the nested shape Ecto gives (`{}` for a valid one). */
export type SourceErrors = Record<string, string[]>;

/** `{field: [messages]}`; `sources` may hold one object per source instead of strings. */
export type SubmitErrors = Record<string, Array<string | SourceErrors>>;

export interface SubmitUser {
  id: number;
  role: Role;
  verified: boolean;
}

export interface SubmitInput {
  user: SubmitUser;
  ip?: string | null;
  fingerprint?: string | null;
  /** An https URL to fetch the file from (when `bytes` is not given). */
  url?: string | null;
  /** The file itself, with its name. */
  bytes?: Buffer | null;
  name?: string | null;
  description?: string | null;
  tagInput?: string | null;
  sourceUrl?: string | null;
  sources?: readonly string[] | null;
  anonymous?: boolean | null;
}

export interface SubmitDeps {
  fileStore: MediaStorage;
  /** Largest accepted file in bytes, downloaded or given (default 131,072,000). */
  maxBytes?: number;
  /** Outbound fetch settings (allowHosts for local test servers, timeouts). */
  fetch?: Omit<SafeFetchOptions, 'maxBytes'>;
  /** ffprobe/ffmpeg settings, for WebM. */
  media?: FfmpegOptions;
  /** The clock (tests). */
  now?: () => Date;
  /** Aborts when the submitter is gone: the file's decode is then killed. */
  signal?: AbortSignal;
}

export type SubmitResult =
  | { ok: true; imageId: number; jobId: number; approved: boolean }
  | { ok: false; errors: SubmitErrors; duplicateOf?: number };

class Rejected extends Error {
  constructor(
    readonly errors: SubmitErrors,
    readonly duplicateOf?: number,
  ) {
    super('submission rejected');
  }
}

/** The reference's exact error map for a submission without any file. */
export function noFileErrors(): MediaErrorMap {
  const errors = MediaError.invalidMime('application/x-empty').errors;
  return { ...errors, image_mime_type: [MEDIA_MESSAGES.blank] };
}

function add(errors: SubmitErrors, field: string, ...messages: Array<string | SourceErrors>): void {
  if (messages.length === 0) return;
  (errors[field] ??= []).push(...messages);
}

function merge(errors: SubmitErrors, more: MediaErrorMap): void {
  for (const [field, messages] of Object.entries(more)) add(errors, field, ...messages);
}

/** Problems of one source URL, in the reference's (prepended) order. */
function sourceProblems(source: string): string[] {
  const problems: string[] = [];
  if (!SOURCE_FORMAT.test(source)) problems.push(SUBMIT_MESSAGES.invalidFormat);
  if ([...source].length > MAX_SOURCE_LENGTH) problems.push(SUBMIT_MESSAGES.sourceTooLong);
  return problems.reverse();
}

/** Sources as stored: trimmed, blanks dropped, duplicates removed (first kept). */
export function normaliseSources(list: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const raw of list) {
    const s = raw.trim();
    if (s !== '') seen.add(s);
  }
  return [...seen];
}

/** Validation of the fields that need neither the file nor the database. */
export function validateAttributes(input: Pick<SubmitInput, 'description' | 'sourceUrl' | 'sources'>): { errors: SubmitErrors; sources: string[] } {
  const errors: SubmitErrors = {};
  if (Buffer.byteLength(input.description ?? '', 'utf8') > MAX_DESCRIPTION_BYTES) add(errors, 'description', SUBMIT_MESSAGES.descriptionTooLong);

  const sourceUrl = (input.sourceUrl ?? '').trim();
  const sources: string[] = [];
  if (sourceUrl !== '') {
    const problems = sourceProblems(sourceUrl);
    if (problems.length > 0) add(errors, 'source_url', ...problems);
    else sources.push(sourceUrl);
  }

  const list = normaliseSources(input.sources ?? []);
  if (list.length > MAX_SOURCES) {
    add(errors, 'sources', SUBMIT_MESSAGES.tooManySources);
  } else {
    const nested = list.map((s): SourceErrors => {
      const problems = sourceProblems(s);
      return problems.length > 0 ? { source: problems } : {};
    });
    if (nested.some((e) => Object.keys(e).length > 0)) add(errors, 'sources', ...nested);
  }
  return { errors, sources: normaliseSources([...sources, ...list]).slice(0, MAX_SOURCES) };
}

/**
 * The tag problems of a final tag list, in the order the JSON shows them: the validator checks the
 * count, then forbidden tags, then the rating rules, and Ecto prepends each error.
 */
export function tagInputProblems(names: readonly string[]): string[] {
  const found: string[] = [];
  if (names.length < MIN_TAGS) found.push(SUBMIT_MESSAGES.tooFewTags);
  for (const name of names) if (FORBIDDEN_TAGS.includes(name)) found.push(SUBMIT_MESSAGES.forbiddenTag(name));
  found.push(...ratingProblems(names));
  return found.reverse();
}

/** Auto-approval (§8.3): verified uploaders and every role above `user`. */
export function isAutoApproved(user: SubmitUser): boolean {
  return user.verified || user.role !== 'user';
}

/** Obtain the file: the given bytes, or a safe download of `url`. Errors are a field map. */
async function obtainFile(input: SubmitInput, deps: SubmitDeps, maxBytes: number): Promise<{ bytes: Buffer; name: string } | { errors: MediaErrorMap }> {
  if (input.bytes && input.bytes.length > 0) return { bytes: input.bytes, name: input.name?.trim() || 'image' };
  const url = input.url?.trim();
  if (!url) return { errors: noFileErrors() };
  try {
    // An image declared over the pixel limit is refused from its first bytes, before the rest is downloaded.
    const guard = new IntakeGuard();
    const fetched = await safeFetch(url, { ...deps.fetch, maxBytes, inspect: (chunk) => guard.push(chunk) });
    if (fetched.bytes.length === 0) return { errors: noFileErrors() };
    return { bytes: fetched.bytes, name: fetched.filename };
  } catch (error) {
    if (error instanceof MediaError) return { errors: error.errors };
    if (error instanceof FetchError) {
      if (error.code === 'too_large') return { errors: { image_size: [`${MEDIA_MESSAGES.sizeAtMost} ${maxBytes}`] } };
      return { errors: { image: [`url ${error.message}`] } };
    }
    throw error;
  }
}

type DnpType = (typeof dnpTypes)[number];

/** Advisory-lock namespace of the duplicate check (any constant, the same in every process). */
const HASH_LOCK_CLASS = 74_623;

/** DNP rules (§8.2 item 2) against the final tags. */
async function dnpProblems(tx: Transaction, user: SubmitUser, tags: readonly TagRow[]): Promise<string[]> {
  if (tags.length === 0) return [];
  const hasEdit = tags.some((t) => t.name === 'edit');
  const types: DnpType[] = hasEdit ? ['Artist Upload Only', 'No Edits'] : ['Artist Upload Only'];
  const entries = await tx
    .select({ tagId: dnpEntries.tagId, dnpType: dnpEntries.dnpType })
    .from(dnpEntries)
    .where(and(inArray(dnpEntries.tagId, tags.map((t) => t.id)), eq(dnpEntries.state, 'listed'), inArray(dnpEntries.dnpType, types)))
    .orderBy(dnpEntries.id);
  if (entries.length === 0) return [];
  const links = await tx
    .select({ tagId: userLinks.tagId })
    .from(userLinks)
    .where(and(eq(userLinks.userId, user.id), eq(userLinks.state, 'verified')));
  const verified = new Set(links.map((l) => l.tagId));
  const problems: string[] = [];
  for (const e of entries) {
    if (verified.has(e.tagId)) continue;
    const message = SUBMIT_MESSAGES.dnp(e.dnpType);
    if (!problems.includes(message)) problems.push(message);
  }
  return problems.reverse();
}

/**
 * Validate and create an image. Returns the new id and its processing job, or the errors per field.
 * Throws only for failures that are not the submitter's (database down, disk full).
 */
export async function submitImage(db: Database, input: SubmitInput, deps: SubmitDeps): Promise<SubmitResult> {
  const maxBytes = deps.maxBytes ?? MAX_IMAGE_SIZE;
  const { errors, sources } = validateAttributes(input);
  const tagNames = parseTagList(input.tagInput ?? '');
  // Refused before the download and before any tag is created.
  if (tagNames.length > MAX_TAG_INPUT_TAGS) {
    add(errors, 'tag_input', SUBMIT_MESSAGES.tooManyTags);
    return { ok: false, errors: sortFields(errors) };
  }

  // File analysis (its errors are collected with the rest).
  let analysis: ImageAnalysis | null = null;
  let file: { bytes: Buffer; name: string } | null = null;
  const fileErrors: MediaErrorMap = {};
  const obtained = await obtainFile(input, deps, maxBytes);
  const collect = (map: MediaErrorMap) => {
    for (const [field, messages] of Object.entries(map)) (fileErrors[field] ??= []).push(...messages);
  };
  if ('errors' in obtained) {
    collect(obtained.errors);
  } else {
    file = obtained;
    try {
      analysis = await requestDecodes.run('intake', obtained.bytes, { ...deps.media, maxSize: maxBytes }, deps.signal);
    } catch (error) {
      if (!(error instanceof MediaError)) throw error;
      collect(error.errors);
    }
    const nameProblem = imageNameError(obtained.name);
    if (nameProblem) collect(nameProblem.errors);
  }

  const state: { written: string | null } = { written: null };
  try {
    return await db.transaction(async (tx) => {
      if (analysis) await tx.execute(sql`select pg_advisory_xact_lock(${HASH_LOCK_CLASS}, hashtext(${analysis.sha512}))`);

      const tags = await getOrCreateTags(tx, tagNames);
      const tagProblems = tagInputProblems(tags.map((t) => t.name));
      if (tagProblems.length > 0) add(errors, 'tag_input', ...tagProblems);
      const dnp = await dnpProblems(tx, input.user, tags);
      // File analysis runs after DNP and Ecto prepends, so its `image` errors come first.
      merge(errors, fileErrors);
      add(errors, 'image', ...dnp);
      if (Object.keys(errors).length > 0 || !analysis || !file) throw new Rejected(sortFields(errors));

      const [existing] = await tx
        .select({ id: images.id })
        .from(images)
        .where(eq(images.imageOrigSha512Hash, analysis.sha512))
        .orderBy(images.id)
        .limit(1);
      if (existing) throw new Rejected({ image_orig_sha512_hash: [SUBMIT_MESSAGES.duplicate(existing.id)] }, existing.id);

      const [{ id } = { id: 0 }] = await tx.execute<{ id: number }>(sql`select nextval(pg_get_serial_sequence('images', 'id'))::int as id`);
      const now = deps.now?.() ?? new Date();
      const ext = formatInfo(analysis.format)?.ext ?? analysis.format;
      const storageKey = pathFor(now, id, 'full', ext);
      const approved = isAutoApproved(input.user);

      await tx.insert(images).values({
        id,
        userId: input.user.id,
        anonymous: input.anonymous === true,
        ip: input.ip ?? null,
        fingerprint: input.fingerprint ?? null,
        imageName: file.name,
        imageWidth: analysis.width,
        imageHeight: analysis.height,
        imageSize: analysis.size,
        imageOrigSize: analysis.size,
        imageFormat: analysis.format,
        imageMimeType: analysis.mimeType,
        imageAspectRatio: analysis.aspectRatio,
        imageDuration: analysis.duration,
        isAnimated: analysis.animated,
        imageSha512Hash: analysis.sha512,
        imageOrigSha512Hash: analysis.sha512,
        storageKey,
        description: input.description ?? '',
        approved,
        processed: false,
        thumbnailsGenerated: false,
        firstSeenAt: now,
        createdAt: now,
        updatedAt: now,
      });
      if (tags.length > 0) {
        await tx.insert(imageTaggings).values(tags.map((t, position) => ({ imageId: id, tagId: t.id, position })));
        // Lock the counted tags in id order so concurrent uploads cannot deadlock on them. `no key
        // update` does not conflict with the key-share locks that the taggings' foreign keys take.
        const ids = [...new Set(tags.map((t) => t.id))].sort((a, b) => a - b);
        await tx.execute(sql`
          update tags set images_count = images_count + 1
          where id in (select id from tags where id in (${sql.join(ids.map((i) => sql`${i}`), sql`, `)}) order by id for no key update)`);
      }
      if (sources.length > 0) {
        await tx.insert(imageSources).values(sources.map((source, position) => ({ imageId: id, source, position })));
      }
      if (approved) {
        await tx.update(users).set({ imagesCount: sql`${users.imagesCount} + 1` }).where(eq(users.id, input.user.id));
      }
      const jobId = await enqueueJob(tx, PROCESS_IMAGE_JOB, { imageId: id });

      await deps.fileStore.put(storageKey, file.bytes);
      state.written = storageKey;
      return { ok: true as const, imageId: id, jobId, approved };
    });
  } catch (error) {
    if (state.written) await deps.fileStore.delete(state.written).catch(() => {});
    if (error instanceof Rejected) {
      return error.duplicateOf === undefined ? { ok: false, errors: error.errors } : { ok: false, errors: error.errors, duplicateOf: error.duplicateOf };
    }
    throw error;
  }
}

function sortFields(errors: SubmitErrors): SubmitErrors {
  const out: SubmitErrors = {};
  for (const key of Object.keys(errors).sort()) out[key] = errors[key] ?? [];
  return out;
}
