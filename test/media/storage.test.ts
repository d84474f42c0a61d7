import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileStore, StorageKeyError, datePath, pathFor, validateKey } from '../../src/media/index.js';

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

describe('FileStore', () => {
  let root: string;
  let store: FileStore;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'tagwise-store-'));
    store = new FileStore(root);
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('puts, gets, stats, checks and deletes files', async () => {
    const key = store.pathFor(new Date('2012-01-02T10:00:00Z'), 42, 'full', 'png');
    expect(await store.exists(key)).toBe(false);
    expect(await store.get(key)).toBeNull();
    expect(await store.stat(key)).toBeNull();
    await store.put(key, Buffer.from('hello'));
    expect((await store.get(key))?.toString()).toBe('hello');
    expect((await store.stat(key))?.size).toBe(5);
    expect(await store.exists(key)).toBe(true);
    await store.put(key, Buffer.from('replaced'));
    expect((await store.get(key))?.toString()).toBe('replaced');
    // No temporary files are left behind.
    expect(await readdir(join(root, '2012/1/2/42'))).toEqual(['full.png']);
    expect(await store.delete(key)).toBe(true);
    expect(await store.delete(key)).toBe(false);
    expect(await store.exists(key)).toBe(false);
  });

  it('streams a stored file', async () => {
    await store.put('2020/1/1/1/thumb.png', Buffer.from('0123456789'));
    const chunks: Buffer[] = [];
    for await (const chunk of store.createReadStream('2020/1/1/1/thumb.png', { start: 2, end: 4 })) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('234');
  });

  it('moves an image directory (hiding) and deletes a tree', async () => {
    await store.put('2020/1/1/5/full.png', Buffer.from('a'));
    await store.put('2020/1/1/5/thumb.png', Buffer.from('b'));
    await store.move('2020/1/1/5', '2020/1/1/5-00112233aabb');
    expect(await store.exists('2020/1/1/5/full.png')).toBe(false);
    expect((await store.get('2020/1/1/5-00112233aabb/thumb.png'))?.toString()).toBe('b');
    await store.deleteTree('2020/1/1/5-00112233aabb');
    expect(await store.exists('2020/1/1/5-00112233aabb/full.png')).toBe(false);
  });

  it('refuses traversal in every operation', async () => {
    await expect(store.put('../evil.png', Buffer.from('x'))).rejects.toThrow(StorageKeyError);
    await expect(store.get('../../etc/passwd')).rejects.toThrow(StorageKeyError);
    await expect(store.stat('/etc/passwd')).rejects.toThrow(StorageKeyError);
    await expect(store.exists('a/../../b')).rejects.toThrow(StorageKeyError);
    await expect(store.delete('..')).rejects.toThrow(StorageKeyError);
    expect(() => store.resolve('x/../../y')).toThrow(StorageKeyError);
    expect(store.resolve('2020/1/1/1/full.png')).toBe(join(root, '2020/1/1/1/full.png'));
  });
});
