import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storageContract } from './storage-contract.js';
import { probeStorage } from '../../src/media/storage.js';
import { DirectoryStorage, StorageKeyError, datePath, pathFor, validateKey } from '../../src/media/index.js';

describe('storage keys', () => {
  it('builds Y/M/D/ID/name.ext from the UTC date without zero padding', () => {
    expect(pathFor(new Date('2012-01-02T10:00:00Z'), 42, 'thumb', 'png')).toBe('2012/1/2/42/thumb.png');
    expect(pathFor(new Date('2026-08-05T00:00:00Z'), 7, 'full', 'jpg')).toBe('2026/8/5/7/full.jpg');
    // 23:30 at UTC−5 is already the next day in UTC.
    expect(datePath(new Date('2012-01-01T23:30:00-05:00'))).toBe('2012/1/2');
    expect(pathFor(new Date('2020-12-31T23:59:59Z'), '9-0123456789ab', 'rendered', 'png')).toBe('2020/12/31/9-0123456789ab/rendered.png');
  });

  it('rejects keys that could leave the root', () => {
    for (const bad of ['', '../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/./b', 'a\\..\\b', 'a/b/', 'C:/x', 'a\0b', '..']) {
      expect(() => validateKey(bad), JSON.stringify(bad)).toThrow(StorageKeyError);
    }
    expect(() => pathFor(new Date('2020-01-01T00:00:00Z'), 1, '../../etc/passwd', 'png')).toThrow(StorageKeyError);
    expect(() => pathFor(new Date('2020-01-01T00:00:00Z'), '..', 'full', 'png')).toThrow(StorageKeyError);
    expect(() => datePath(new Date('nope'))).toThrow(StorageKeyError);
  });
});

const contractRoots: string[] = [];
storageContract('a directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagwise-store-'));
  contractRoots.push(dir);
  return new DirectoryStorage(dir);
});
afterAll(() => {
  for (const dir of contractRoots) rmSync(dir, { recursive: true, force: true });
});

describe('DirectoryStorage', () => {
  let root: string;
  let store: DirectoryStorage;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'tagwise-store-'));
    store = new DirectoryStorage(root);
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('replaces a file atomically, leaving no temporary file behind', async () => {
    const key = pathFor(new Date('2012-01-02T10:00:00Z'), 42, 'full', 'png');
    await store.put(key, Buffer.from('hello'));
    await store.put(key, Buffer.from('replaced'));
    expect((await store.get(key))?.toString()).toBe('replaced');
    expect(await readdir(join(root, '2012/1/2/42'))).toEqual(['full.png']);
  });

  it('a storage marked full probes with a small write, at most every interval, and clears once it succeeds', async () => {
    store.health.noteFull();
    expect(await probeStorage(store)).toBe(false);
    expect(store.health.full).toBe(false);
    expect(await readdir(root)).toEqual(['.probe']);
    expect(await readdir(join(root, '.probe'))).toEqual([]);
    store.health.noteFull();
    // Within the interval of the last probe: no write, still full.
    expect(await probeStorage(store)).toBe(true);
  });

  it('resolves keys inside the root only', async () => {
    expect(() => store.resolve('x/../../y')).toThrow(StorageKeyError);
    expect(store.resolve('2020/1/1/1/full.png')).toBe(join(root, '2020/1/1/1/full.png'));
  });
});
