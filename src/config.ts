/**
 * Every setting of the service, read once from the environment and validated. Defaults serve the
 * embedded mode: `npm start` on a bare machine needs none of these.
 */
import { totalmem } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** An unset or empty variable means "use the default". */
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const optionalUrl = z.preprocess(blankToUndefined, z.url({ protocol: /^https?$/ }).optional());

/** One URL, or several comma-separated (the nodes of a cluster); unset or empty means none. */
const urlList = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(',').map((u) => u.trim()).filter(Boolean) : v),
  z.array(z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''))).default([]),
);

const rate = z.string().regex(/^\s*\d+\s*\/\s*\d*\s*[smh]\s*$/, 'must be a rate like 30/5s');

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  BASE_URL: optionalUrl,
  CDN_URL: optionalUrl,
  DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: z.preprocess(
    blankToUndefined,
    z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL').optional(),
  ),
  OPENSEARCH_URL: urlList,
  /**
   * Replicas of the live indices: a count, or a range OpenSearch follows as the data nodes come and
   * go (`auto_expand_replicas`, `0-1`: one replica once there are two data nodes, none on one).
   */
  OPENSEARCH_REPLICAS: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .regex(/^(\d{1,2}|\d{1,2}-(\d{1,2}|all))$/, 'must be a count like 1 or a range like 0-1 or 0-all')
      .default('0-1')
      .transform((v) => (/^\d+$/.test(v) ? Number(v) : v)),
  ),
  /** Primary shards of new indices (an existing index keeps its own until the next reindex). */
  OPENSEARCH_SHARDS: z.coerce.number().int().min(1).max(1024).default(1),
  /** Where media lives: `file:///path` (a directory, maybe a shared mount) or `s3://bucket/prefix`; default DATA_DIR. */
  STORAGE_URL: z.preprocess(blankToUndefined, z.string().trim().regex(/^(file:\/\/\/|s3:\/\/)/, 'must be a file:/// or s3:// URL').optional()),
  /** The S3-compatible server for `s3://` storage (MinIO, Ceph, ...); unset for Amazon S3. */
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.string().trim().min(1).default('us-east-1'),
  /** Static credentials; unset, the AWS SDK's usual sources (environment, profile, instance role). */
  S3_ACCESS_KEY_ID: z.preprocess(blankToUndefined, z.string().trim().optional()),
  S3_SECRET_ACCESS_KEY: z.preprocess(blankToUndefined, z.string().optional()),
  /** Path-style URLs (`host/bucket/key`); default true when S3_ENDPOINT is set. */
  S3_FORCE_PATH_STYLE: z.preprocess(blankToUndefined, z.enum(['true', 'false']).optional()),
  /** Prefix of every index and alias name in OpenSearch, so several boards can share a cluster. */
  OPENSEARCH_INDEX_PREFIX: z.string().trim().regex(/^[a-z0-9_-]*$/, 'lowercase letters, digits, _ and - only').default(''),
  SITE_NAME: z.string().trim().min(1).default('Tagwise'),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  /** Fill an empty database with the demo board on start. */
  DEMO_DATA: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  DEMO_IMAGES: z.coerce.number().int().min(0).max(100_000).default(1000),
  DEMO_SEED: z.coerce.number().int().default(42),
  /** Salt of the anonymous "Background Pony #XXXX" names. */
  ANONYMOUS_NAME_SALT: z.string().default('tagwise-anonymous'),
  /** Request budgets per caller, as COUNT/PERIOD (s, m or h); `RATE_LIMITS=off` disables them. */
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  RATE_LIMIT_READ: rate.default('60/5s'),
  RATE_LIMIT_SEARCH: rate.default('20/5s'),
  RATE_LIMIT_UPLOAD: rate.default('10/1m'),
  UPLOAD_DAILY_CAP: z.coerce.number().int().min(1).default(200),
  /**
   * Reverse searches per client (key's user, else address), in force whatever `RATE_LIMITS` says:
   * this many at once, and this rate; beyond either, 429 with Retry-After before the body is read.
   */
  REVERSE_SEARCH_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(2),
  REVERSE_SEARCH_RATE: rate.default('30/1m'),
  BAN_AFTER_VIOLATIONS: z.coerce.number().int().min(1).default(50),
  BAN_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  BAN_SECONDS: z.coerce.number().int().min(1).default(900),
  /** Behind one reverse proxy: take the client address from the last `X-Forwarded-For` entry. */
  TRUST_PROXY: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** How long a graceful shutdown may take before the process gives up and exits 1. */
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(20),
  /**
   * Longest decode of an image a request sent (a submission, a reverse search) and of an accepted
   * image's processing; the decode's process is killed past it (`src/media/sandbox/`).
   */
  DECODE_REQUEST_SECONDS: z.coerce.number().min(0.5).max(600).default(10),
  DECODE_JOB_SECONDS: z.coerce.number().min(1).max(3600).default(120),
  /** The API's database pool: give up connecting, and cut off a statement, after these. */
  DATABASE_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(60).default(2),
  DATABASE_STATEMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  /**
   * The statement timeout inside the API's transactions (its writes: uploads, tag changes, keys,
   * bans), which may wait for locks and for the change log's commit order; 0 for none.
   */
  DATABASE_WRITE_TIMEOUT_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /** Slow clients: all request headers within this many seconds, else 408. */
  HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(600).default(15),
  /** The whole request (headers and body) within this many seconds, else 408. */
  HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(3600).default(120),
  /** A keep-alive connection idle between requests is closed after this many seconds. */
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(600).default(5),
  /** `/readyz` fails while the oldest change not applied to the indices is older than this. */
  READY_MAX_OUTBOX_LAG_SECONDS: z.coerce.number().int().min(1).default(30),
  /** UTC time of day of the nightly dump of the public data (`HH:MM`, 24-hour), or `off`. */
  DUMP_AT: z.preprocess(
    blankToUndefined,
    z.string().trim().regex(/^(off|([01]\d|2[0-3]):[0-5]\d)$/i, 'must be HH:MM (UTC, 24-hour) or off').default('03:00'),
  ),
  /** Dated dumps kept in the `dumps` area of the media storage (STORAGE_URL, else DATA_DIR/dumps). */
  DUMP_KEEP: z.coerce.number().int().min(1).max(366).default(7),
  /** Days the change log keeps (live search resume, `/changes`); at least a day, so a dump covers the rest. */
  CHANGE_LOG_RETENTION_DAYS: z.coerce.number().min(1).max(366).default(7),
  /**
   * Memory for the rendered image JSON kept between requests (`src/caches/image-json-cache.ts`),
   * in MiB; default from the machine's memory (`defaultImageCacheMb`).
   */
  IMAGE_CACHE_MB: z.preprocess(blankToUndefined, z.coerce.number().int().min(0).max(1_000_000).optional()),
  /** Whether the image cache is filled in the background after start (`src/http/render/image-cache-warmer.ts`). */
  IMAGE_CACHE_WARM: z.enum(['on', 'off']).default('on'),
  LIVE_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  /** Comma-separated host:port list exempt from the outbound address check (tests only). */
  FETCH_ALLOW_HOSTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
});

export type Env = z.input<typeof schema>;

export type StorageSettings =
  | { kind: 'directory'; root: string }
  | {
      kind: 's3';
      bucket: string;
      /** Key prefix, empty or ending in `/`. */
      prefix: string;
      endpoint: string | undefined;
      region: string;
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
      forcePathStyle: boolean;
    };

export interface Config {
  port: number;
  host: string;
  /** Public base of links, without a trailing slash. */
  baseUrl: string;
  /** Public base of image files, without a trailing slash (`…/img` paths are appended). */
  cdnUrl: string;
  /**
   * Where the files of images imported without them are served (`npm run import -- philomena …
   * --origin-cdn URL`): not from the environment but stored with the import and read at start-up
   * (src/contexts/board/origin.ts). Images with a file of the board's own stay under `cdnUrl`.
   */
  originCdnUrl?: string;
  dataDir: string;
  /** Where media lives (`STORAGE_URL`): a directory, DATA_DIR by default, or an S3 bucket. */
  storage: StorageSettings;
  databaseUrl: string | undefined;
  /** The OpenSearch nodes to send requests to (any of them serves any request); none: the embedded engine. */
  opensearchNodes: string[];
  opensearchIndexPrefix: string;
  /** Replicas of live indices: a count, or an `auto_expand_replicas` range such as `0-1`. */
  opensearchReplicas: number | string;
  opensearchShards: number;
  siteName: string;
  logLevel: (typeof logLevels)[number];
  demoData: boolean;
  demoImages: number;
  demoSeed: number;
  anonymousNameSalt: string;
  fetchAllowHosts: string[];
  /** Client addresses come from `X-Forwarded-For` (its last entry), set by our reverse proxy. */
  trustProxy: boolean;
  shutdownTimeoutSeconds: number;
  /** Deadlines of the decodes of requests and of processing jobs (`src/media/sandbox/decodes.ts`). */
  decodeDeadlines: { requestMs: number; jobMs: number };
  /** Limits on slow clients (`src/http/server/server.ts`). */
  http: HttpLimits;
  /** The API's pool fails fast when the database is unreachable (503, not a hang). */
  requestPool: { connectTimeoutSeconds: number; statementTimeoutMs: number; transactionStatementTimeoutMs: number };
  readyMaxOutboxLagSeconds: number;
  /** Nightly public data dumps: the UTC time of day (null: off) and how many are kept. */
  dumps: { at: { hour: number; minute: number } | null; keep: number };
  changeLogRetentionDays: number;
  /** Bytes of rendered image JSON kept in memory (`IMAGE_CACHE_MB`). */
  imageCacheBytes: number;
  /** Fill the image cache after start, newest images first (`IMAGE_CACHE_WARM`). */
  imageCacheWarm: boolean;
  /** Live searches and firehose sockets open at once; more are refused (503, or close code 1013). */
  liveMaxConnections: number;
  /** BASE_URL or CDN_URL is an http URL of a development host (allowed, with a warning). */
  developmentHttpUrls: boolean;
  limits: {
    enabled: boolean;
    read: string;
    search: string;
    upload: string;
    uploadDailyCap: number;
    /** Reverse searches per client: at once, and as a rate (`REVERSE_SEARCH_*`). */
    reverseSearch: { concurrency: number; rate: string };
    banAfterViolations: number;
    banWindowSeconds: number;
    banSeconds: number;
  };
}

/** Limits on slow clients, applied by `src/http/server/server.ts`. */
export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * Hosts that can only be a developer's machine or a test set-up: loopback addresses and the
 * special-use names `localhost`, `*.localhost` and `*.test` (RFC 6761), never reachable publicly.
 */
export function isDevelopmentHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.test') ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/**
 * Usage term 7: every URL the API emits is https. The public bases must be https URLs, except
 * http URLs of development hosts. Returns the problem, or undefined.
 */
export function httpsProblem(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined; // the schema reports malformed URLs
  }
  if (url.protocol !== 'http:' || isDevelopmentHost(url.hostname)) return undefined;
  return 'must be an https URL (http only for localhost development)';
}

/** The S3 variables, as parsed. */
export interface S3Env {
  S3_ENDPOINT?: string | undefined;
  S3_REGION: string;
  S3_ACCESS_KEY_ID?: string | undefined;
  S3_SECRET_ACCESS_KEY?: string | undefined;
  S3_FORCE_PATH_STYLE?: 'true' | 'false' | undefined;
}

/**
 * Storage settings from a `STORAGE_URL` (unset: the directory `dataDir`) and the S3 variables.
 * Throws ConfigError for a URL that names no directory or no bucket.
 */
export function storageSettingsFrom(url: string | undefined, dataDir: string, s3: S3Env): StorageSettings {
  if (url === undefined) return { kind: 'directory', root: dataDir };
  if (url.startsWith('file:')) {
    let root: string;
    try {
      root = fileURLToPath(url);
    } catch (error) {
      throw new ConfigError(`invalid configuration:\n  STORAGE_URL: ${(error as Error).message}`);
    }
    return { kind: 'directory', root: resolve(root) };
  }
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) throw new ConfigError('invalid configuration:\n  STORAGE_URL: must be s3://bucket or s3://bucket/prefix with a valid bucket name');
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((s) => s === '.' || s === '..' || (s === '' && prefix !== ''))) {
    throw new ConfigError('invalid configuration:\n  STORAGE_URL: the prefix may not hold empty, . or .. segments');
  }
  return {
    kind: 's3',
    bucket: m[1]!,
    prefix: prefix === '' ? '' : `${prefix}/`,
    endpoint: s3.S3_ENDPOINT,
    region: s3.S3_REGION,
    accessKeyId: s3.S3_ACCESS_KEY_ID,
    secretAccessKey: s3.S3_SECRET_ACCESS_KEY,
    forcePathStyle: s3.S3_FORCE_PATH_STYLE === undefined ? s3.S3_ENDPOINT !== undefined : s3.S3_FORCE_PATH_STYLE === 'true',
  };
}

/** Parse settings from an environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked = Object.fromEntries(
    Object.keys(schema.shape).map((k) => [k, env[k] === undefined ? undefined : env[k]]),
  );
  const parsed = schema.safeParse(picked);
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
  for (const name of ['BASE_URL', 'CDN_URL'] as const) {
    const problem = httpsProblem(env[name]);
    if (problem) lines.push(`  ${name}: ${problem}`);
  }
  if (!parsed.success || lines.length > 0) throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  const v = parsed.data;
  const baseUrl = trimSlash(v.BASE_URL ?? `http://localhost:${v.PORT}`);
  const cdnUrl = trimSlash(v.CDN_URL ?? baseUrl);
  return {
    port: v.PORT,
    host: v.HOST,
    baseUrl,
    cdnUrl,
    dataDir: resolve(v.DATA_DIR),
    databaseUrl: v.DATABASE_URL,
    opensearchNodes: v.OPENSEARCH_URL,
    storage: storageSettingsFrom(v.STORAGE_URL, resolve(v.DATA_DIR), v),
    opensearchIndexPrefix: v.OPENSEARCH_INDEX_PREFIX,
    opensearchReplicas: v.OPENSEARCH_REPLICAS,
    opensearchShards: v.OPENSEARCH_SHARDS,
    siteName: v.SITE_NAME,
    logLevel: v.LOG_LEVEL,
    demoData: v.DEMO_DATA,
    demoImages: v.DEMO_IMAGES,
    demoSeed: v.DEMO_SEED,
    anonymousNameSalt: v.ANONYMOUS_NAME_SALT,
    fetchAllowHosts: v.FETCH_ALLOW_HOSTS,
    trustProxy: v.TRUST_PROXY,
    shutdownTimeoutSeconds: v.SHUTDOWN_TIMEOUT_SECONDS,
    decodeDeadlines: { requestMs: v.DECODE_REQUEST_SECONDS * 1000, jobMs: v.DECODE_JOB_SECONDS * 1000 },
    requestPool: { connectTimeoutSeconds: v.DATABASE_CONNECT_TIMEOUT_SECONDS, statementTimeoutMs: v.DATABASE_STATEMENT_TIMEOUT_SECONDS * 1000, transactionStatementTimeoutMs: v.DATABASE_WRITE_TIMEOUT_SECONDS * 1000 },
    http: {
      headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: Math.max(v.HTTP_REQUEST_TIMEOUT_SECONDS, v.HTTP_HEADERS_TIMEOUT_SECONDS) * 1000,
      keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
    readyMaxOutboxLagSeconds: v.READY_MAX_OUTBOX_LAG_SECONDS,
    dumps: {
      at: v.DUMP_AT.toLowerCase() === 'off' ? null : { hour: Number(v.DUMP_AT.slice(0, 2)), minute: Number(v.DUMP_AT.slice(3)) },
      keep: v.DUMP_KEEP,
    },
    changeLogRetentionDays: v.CHANGE_LOG_RETENTION_DAYS,
    imageCacheBytes: (v.IMAGE_CACHE_MB ?? defaultImageCacheMb()) * 1024 * 1024,
    imageCacheWarm: v.IMAGE_CACHE_WARM === 'on',
    liveMaxConnections: v.LIVE_MAX_CONNECTIONS,
    developmentHttpUrls: [baseUrl, cdnUrl].some((u) => u.startsWith('http:')),
    limits: {
      enabled: v.RATE_LIMITS === 'on',
      read: v.RATE_LIMIT_READ,
      search: v.RATE_LIMIT_SEARCH,
      upload: v.RATE_LIMIT_UPLOAD,
      uploadDailyCap: v.UPLOAD_DAILY_CAP,
      reverseSearch: { concurrency: v.REVERSE_SEARCH_CONCURRENCY, rate: v.REVERSE_SEARCH_RATE },
      banAfterViolations: v.BAN_AFTER_VIOLATIONS,
      banWindowSeconds: v.BAN_WINDOW_SECONDS,
      banSeconds: v.BAN_SECONDS,
    },
  };
}

/**
 * The default of `IMAGE_CACHE_MB`: an eighth of the machine's memory, at least 256 MiB, so that
 * the images of a board fit on a server sized for it (about 3 KB an image on the 1M-image
 * benchmark board: `npm run bench -- image-cache`). Not bounded by V8's heap limit: the entries
 * live outside the heap, which holds some 30 bytes an image (the map from id to slot).
 */
export function defaultImageCacheMb(): number {
  return Math.max(256, Math.floor(totalmem() / 8 / (1024 * 1024)));
}

/** For command-line entry points: load the config or print why not and exit 1. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}
