/**
 * The S3 backend of `MediaStorage`: objects in a bucket of Amazon S3 or any S3-compatible store
 * (MinIO, Ceph RGW, Garage, S3Proxy, ...), under a key prefix. Every process of the board reads and
 * writes the same objects, so any of them serves, processes and deletes any image. A PUT is atomic
 * in S3 itself. Refusals for want of space (HTTP 507, or the error codes full stores answer with)
 * are a `StorageFullError`.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type GetObjectCommandOutput,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import type { StorageSettings } from '../config.js';
import { orIf } from '../lib/or-if.js';
import { StorageFullError, StorageHealth, StorageUnavailableError, validateAreaName, validateKey } from './storage.js';
import type { MediaStorage, OpenedFile, PlacedBy, StoredFileStat, StoredObject } from './storage.js';

/** The settings of an `s3://` STORAGE_URL (src/config.ts). */
export type S3Settings = Extract<StorageSettings, { kind: 's3' }>;

/** Error codes S3-compatible stores answer a write with when out of space or over a quota. */
const FULL_CODES = new Set(['XMinioStorageFull', 'StorageFull', 'QuotaExceeded', 'InsufficientStorage', 'XMinioAdminBucketQuotaExceeded']);

/** Connections open at once to the S3 server, per process. */
const MAX_SOCKETS = 256;

export function s3ClientFor(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
    // The file route streams a body per request: the SDK's default of 50 sockets would queue
    // the requests of a busy page of thumbnails behind each other.
    requestHandler: { httpAgent: { keepAlive: true, maxSockets: MAX_SOCKETS }, httpsAgent: { keepAlive: true, maxSockets: MAX_SOCKETS } },
    // Checksums only where S3 requires them: S3-compatible stores do not all take the trailing
    // checksums of the SDK's default.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export class S3Storage implements MediaStorage {
  readonly health: StorageHealth;

  constructor(
    readonly client: S3Client,
    readonly bucket: string,
    readonly prefix: string,
    health = new StorageHealth(),
  ) {
    this.health = health;
  }

  get location(): string {
    return `s3://${this.bucket}/${this.prefix}`;
  }

  area(name: string): S3Storage {
    validateAreaName(name);
    return new S3Storage(this.client, this.bucket, `${this.prefix}${name}/`, this.health);
  }

  #key(key: string): string {
    validateKey(key);
    return this.prefix + key;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await this.#write({ Bucket: this.bucket, Key: this.#key(key), Body: bytes, ContentLength: bytes.byteLength });
  }

  async putFile(key: string, sourcePath: string): Promise<PlacedBy> {
    const { size } = await stat(sourcePath);
    await this.#write({ Bucket: this.bucket, Key: this.#key(key), Body: createReadStream(sourcePath), ContentLength: size });
    return 'copied';
  }

  async get(key: string): Promise<Buffer | null> {
    const body = await this.read(key);
    if (!body) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async read(key: string, range?: { start: number; end: number }): Promise<Readable | null> {
    return (await this.#getObject(key, range))?.body ?? null;
  }

  async open(key: string): Promise<OpenedFile | null> {
    const whole = await this.#getObject(key);
    if (!whole) return null;
    const { body, out } = whole;
    const stat = { size: out.ContentLength ?? 0, mtime: out.LastModified ?? new Date(0) };
    let taken = false;
    return {
      stat,
      read: async (range) => {
        if (!taken && range.start === 0 && range.end === stat.size - 1) {
          taken = true;
          return body;
        }
        body.destroy();
        // A part: asked for again, of the same version of the object (else it is gone: 404).
        return (await this.#getObject(key, range, out.ETag))?.body ?? null;
      },
      close: () => {
        if (!taken) body.destroy();
      },
    };
  }

  /** GetObject as a stream, or null when the object (or that version of it) is not there. */
  async #getObject(key: string, range?: { start: number; end: number }, ifMatch?: string): Promise<{ body: Readable; out: GetObjectCommandOutput } | null> {
    try {
      const out = await reached(
        this.client.send(
          new GetObjectCommand({
            Bucket: this.bucket,
            Key: this.#key(key),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
            ...(ifMatch ? { IfMatch: ifMatch } : {}),
          }),
        ),
      );
      // In Node the body is an IncomingMessage, a Readable.
      const body = out.Body instanceof Readable ? out.Body : Readable.fromWeb(out.Body!.transformToWebStream() as import('node:stream/web').ReadableStream);
      return { body, out };
    } catch (error) {
      if (isNotFound(error) || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412) return null;
      throw error;
    }
  }

  stat(key: string): Promise<StoredFileStat | null> {
    return orIf(
      async () => {
        const out = await reached(this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.#key(key) })));
        return { size: out.ContentLength ?? 0, mtime: out.LastModified ?? new Date(0) };
      },
      isNotFound,
      null,
    );
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async delete(key: string): Promise<boolean> {
    // S3 answers a delete the same whether the object was there: ask first.
    const existed = await this.exists(key);
    if (existed) await reached(this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.#key(key) })));
    return existed;
  }

  async deleteTree(prefix: string): Promise<void> {
    validateKey(prefix);
    let batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await reached(this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })));
      batch = [];
    };
    for await (const object of this.list(prefix)) {
      batch.push(this.prefix + object.key);
      if (batch.length === 1000) await flush();
    }
    await flush();
  }

  async *list(prefix = ''): AsyncIterable<StoredObject> {
    if (prefix !== '') validateKey(prefix);
    const from = prefix === '' ? this.prefix : `${this.prefix}${prefix}/`;
    let token: string | undefined;
    do {
      const page = await reached(this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: from, ...(token ? { ContinuationToken: token } : {}) })));
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        yield { key: object.Key.slice(this.prefix.length), size: object.Size ?? 0, mtime: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async #write(input: PutObjectCommandInput): Promise<void> {
    try {
      await reached(this.client.send(new PutObjectCommand(input)));
      this.health.noteWritten();
    } catch (error) {
      if (!isFull(error)) throw error;
      this.health.noteFull();
      throw new StorageFullError(`no space left for media in ${this.location}`, { cause: error });
    }
  }
}

/**
 * `request`, with a failure to reach the store (no answer, or a 5xx after the SDK's retries) as
 * `StorageUnavailableError`; the store's own answers (404, 403, a full store's 507) pass as they are.
 */
async function reached<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (isFull(error) || (status !== undefined && status < 500)) throw error;
    throw new StorageUnavailableError(`object storage unavailable: ${(error as Error).message}`, { cause: error });
  }
}

function isNotFound(error: unknown): boolean {
  // A missing bucket is NoSuchBucket, an error, except to HEAD, which has no body to say so.
  const name = (error as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound';
}

function isFull(error: unknown): boolean {
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  return FULL_CODES.has(e.name ?? '') || FULL_CODES.has(e.Code ?? '') || e.$metadata?.httpStatusCode === 507;
}
