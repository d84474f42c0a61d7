import { spawnSync } from 'node:child_process';
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { programArgs } from '../support/programs.js';

describe('loadConfig', () => {
  it('serves the embedded mode with no settings at all', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.opensearchNodes).toEqual([]);
    expect(c.opensearchReplicas).toBe('0-1');
    expect(c.opensearchShards).toBe(1);
    expect(c.dataDir).toMatch(/\/data$/);
    expect(c.baseUrl).toBe('http://localhost:8080');
    expect(c.cdnUrl).toBe(c.baseUrl);
    expect(c.siteName).toBe('Tagwise');
  });

  it('reads every documented variable', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      BASE_URL: 'https://booru.example/',
      CDN_URL: 'https://cdn.booru.example',
      DATA_DIR: '/var/lib/tagwise',
      DATABASE_URL: 'postgres://u:p@db:5432/tagwise',
      OPENSEARCH_URL: 'http://opensearch:9200',
      SITE_NAME: 'Ponybooru',
      LOG_LEVEL: 'debug',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      baseUrl: 'https://booru.example',
      cdnUrl: 'https://cdn.booru.example',
      dataDir: '/var/lib/tagwise',
      databaseUrl: 'postgres://u:p@db:5432/tagwise',
      opensearchNodes: ['http://opensearch:9200'],
      siteName: 'Ponybooru',
      logLevel: 'debug',
    });
  });

  it("sizes the image cache from the machine's memory unless told, and warms it unless told not to", () => {
    const mib = 1024 * 1024;
    const byDefault = loadConfig({}).imageCacheBytes;
    expect(byDefault % mib).toBe(0);
    expect(byDefault).toBeGreaterThanOrEqual(256 * mib);
    // an eighth of the memory, unless that is under 256 MiB or over the heap limit
    const eighth = Math.floor(totalmem() / 8 / mib) * mib;
    const heapLimit = Math.floor(getHeapStatistics().heap_size_limit / mib) * mib;
    expect([eighth, heapLimit, 256 * mib]).toContain(byDefault);
    expect(byDefault).toBeLessThanOrEqual(Math.max(256 * mib, heapLimit));
    expect(byDefault).toBeLessThanOrEqual(Math.max(256 * mib, eighth));
    expect(loadConfig({ IMAGE_CACHE_MB: '64' }).imageCacheBytes).toBe(64 * mib);
    expect(loadConfig({ IMAGE_CACHE_MB: '' }).imageCacheBytes).toBe(byDefault);
    expect(loadConfig({}).imageCacheWarm).toBe(true);
    expect(loadConfig({ IMAGE_CACHE_WARM: 'off' }).imageCacheWarm).toBe(false);
    expect(() => loadConfig({ IMAGE_CACHE_WARM: 'maybe' })).toThrow(/IMAGE_CACHE_WARM:/);
  });

  it('reads where media lives: DATA_DIR by default, a file:/// directory, or an s3:// bucket and prefix', () => {
    expect(loadConfig({ DATA_DIR: '/srv/board' }).storage).toEqual({ kind: 'directory', root: '/srv/board' });
    expect(loadConfig({ STORAGE_URL: 'file:///mnt/shared/media/' }).storage).toEqual({ kind: 'directory', root: '/mnt/shared/media' });
    expect(loadConfig({ STORAGE_URL: 's3://board-media/prod/images-v2/', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' }).storage).toEqual({
      kind: 's3',
      bucket: 'board-media',
      prefix: 'prod/images-v2/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      forcePathStyle: true,
    });
    expect(loadConfig({ STORAGE_URL: 's3://board-media', S3_REGION: 'eu-west-3' }).storage).toMatchObject({ prefix: '', region: 'eu-west-3', endpoint: undefined, forcePathStyle: false });
    expect(loadConfig({ STORAGE_URL: 's3://board-media', S3_ENDPOINT: 'https://s3.example', S3_FORCE_PATH_STYLE: 'false' }).storage).toMatchObject({ forcePathStyle: false });
    for (const bad of ['/srv/media', 'http://x/y', 's3://', 's3://UPPER', 's3://a', 's3://bucket/a/../b', 'file://host/x']) {
      expect(() => loadConfig({ STORAGE_URL: bad }), bad).toThrow(ConfigError);
    }
    expect(() => loadConfig({ S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/S3_FORCE_PATH_STYLE/);
  });

  it('reads the decodes\' deadlines in seconds, 10 s for requests and 2 minutes for jobs unless told', () => {
    expect(loadConfig({}).decodeDeadlines).toEqual({ requestMs: 10_000, jobMs: 120_000 });
    expect(loadConfig({ DECODE_REQUEST_SECONDS: '2.5', DECODE_JOB_SECONDS: '30' }).decodeDeadlines).toEqual({ requestMs: 2_500, jobMs: 30_000 });
    expect(() => loadConfig({ DECODE_REQUEST_SECONDS: '0' })).toThrow(/DECODE_REQUEST_SECONDS/);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', OPENSEARCH_URL: ' ', PORT: '' }).databaseUrl).toBeUndefined();
  });

  it('reads OPENSEARCH_URL as a comma-separated list of nodes, with the replicas and shards of new indices', () => {
    const c = loadConfig({
      OPENSEARCH_URL: ' http://os1:9200/, http://os2:9200 ,,https://os3:9201',
      OPENSEARCH_REPLICAS: '2',
      OPENSEARCH_SHARDS: '3',
    });
    expect(c.opensearchNodes).toEqual(['http://os1:9200', 'http://os2:9200', 'https://os3:9201']);
    expect(c.opensearchReplicas).toBe(2);
    expect(c.opensearchShards).toBe(3);
    expect(loadConfig({ OPENSEARCH_REPLICAS: '0-all' }).opensearchReplicas).toBe('0-all');
    expect(loadConfig({ OPENSEARCH_REPLICAS: ' ' }).opensearchReplicas).toBe('0-1');
  });

  it.each([
    ['OPENSEARCH_URL', 'http://os1:9200,not a url'],
    ['OPENSEARCH_URL', 'ftp://os1:9200'],
    ['OPENSEARCH_REPLICAS', 'many'],
    ['OPENSEARCH_REPLICAS', '-1'],
    ['OPENSEARCH_REPLICAS', '1-'],
    ['OPENSEARCH_SHARDS', '0'],
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['BASE_URL', 'not a url'],
    ['BASE_URL', 'ftp://example.com'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['LOG_LEVEL', 'loud'],
    ['DEMO_IMAGES', '-1'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'y' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT:/);
      expect((err as Error).message).toMatch(/LOG_LEVEL:/);
    }
  });

  it('makes the service exit 1 with a clear message on a bad value', () => {
    const r = spawnSync(process.execPath, programArgs('src/main.ts'), {
      env: { ...process.env, PORT: 'not-a-port', DATABASE_URL: '' },
      encoding: 'utf8',
      timeout: 90_000, // a cold tsx start on a busy machine
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/invalid configuration/);
    expect(r.stderr).toMatch(/PORT:/);
  }, 120_000);
});
