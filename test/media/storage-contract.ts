/**
 * What every `MediaStorage` backend does, checked against a real one (a directory, or a real
 * S3-compatible server): the same file operations, ranges, listing, areas and key checks.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StorageKeyError, type MediaStorage } from '../../src/media/storage.js';

async function text(stream: AsyncIterable<unknown> | null): Promise<string | null> {
  if (!stream) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

export function storageContract(name: string, storage: () => MediaStorage): void {
  describe(`${name}: the MediaStorage contract`, () => {
    it('puts, gets, stats, checks and deletes files', async () => {
      const store = storage();
      const key = '2012/1/2/42/full.png';
      expect(await store.exists(key)).toBe(false);
      expect(await store.get(key)).toBeNull();
      expect(await store.stat(key)).toBeNull();
      expect(await store.read(key)).toBeNull();
      await store.put(key, Buffer.from('hello'));
      expect((await store.get(key))?.toString()).toBe('hello');
      const stat = await store.stat(key);
      expect(stat?.size).toBe(5);
      expect(Math.abs(stat!.mtime.getTime() - Date.now())).toBeLessThan(60_000);
      expect(await store.exists(key)).toBe(true);
      await store.put(key, Buffer.from('replaced'));
      expect((await store.get(key))?.toString()).toBe('replaced');
      expect(await store.delete(key)).toBe(true);
      expect(await store.delete(key)).toBe(false);
      expect(await store.exists(key)).toBe(false);
    });

    it('streams a whole file or a byte range', async () => {
      const store = storage();
      await store.put('2020/1/1/1/thumb.png', Buffer.from('0123456789'));
      expect(await text(await store.read('2020/1/1/1/thumb.png'))).toBe('0123456789');
      expect(await text(await store.read('2020/1/1/1/thumb.png', { start: 2, end: 4 }))).toBe('234');
      expect(await text(await store.read('2020/1/1/1/thumb.png', { start: 9, end: 9 }))).toBe('9');
    });

    it('opens a file for serving: its stat, then the whole file, a part, or nothing', async () => {
      const store = storage();
      expect(await store.open('2020/1/1/2/thumb.png')).toBeNull();
      await store.put('2020/1/1/2/thumb.png', Buffer.from('abcdefghij'));
      const whole = await store.open('2020/1/1/2/thumb.png');
      expect(whole?.stat.size).toBe(10);
      expect(await text(await whole!.read({ start: 0, end: 9 }))).toBe('abcdefghij');
      const part = await store.open('2020/1/1/2/thumb.png');
      expect(await text(await part!.read({ start: 3, end: 5 }))).toBe('def');
      const unread = await store.open('2020/1/1/2/thumb.png');
      unread!.close();
      // Many opened and closed unread leave nothing held that stops the next.
      for (let i = 0; i < 60; i++) (await store.open('2020/1/1/2/thumb.png'))!.close();
      expect(await text(await (await store.open('2020/1/1/2/thumb.png'))!.read({ start: 9, end: 9 }))).toBe('j');
      await expect(store.open('../x')).rejects.toThrow(StorageKeyError);
    });

    it('stores a local file, lists by prefix and deletes a tree', async () => {
      const store = storage();
      const dir = await mkdtemp(join(tmpdir(), 'tagwise-contract-'));
      try {
        await writeFile(join(dir, 'full.gif'), 'GIF89a');
        expect(['linked', 'copied']).toContain(await store.putFile('2021/3/4/7/full.gif', join(dir, 'full.gif')));
        await store.put('2021/3/4/7/thumb.gif', Buffer.from('t'));
        await store.put('2021/3/4/70/full.gif', Buffer.from('other image'));
        const listed = [];
        for await (const o of store.list('2021/3/4/7')) listed.push([o.key, o.size]);
        expect(listed.sort()).toEqual([
          ['2021/3/4/7/full.gif', 6],
          ['2021/3/4/7/thumb.gif', 1],
        ]);
        await store.deleteTree('2021/3/4/7');
        expect(await store.exists('2021/3/4/7/full.gif')).toBe(false);
        expect(await store.exists('2021/3/4/70/full.gif')).toBe(true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('keeps areas apart', async () => {
      const store = storage();
      await store.area('avatars').put('a/b.png', Buffer.from('avatar'));
      expect(await store.area('images').exists('a/b.png')).toBe(false);
      expect((await store.area('avatars').get('a/b.png'))?.toString()).toBe('avatar');
      expect(store.area('avatars').health).toBe(store.health);
      expect(() => store.area('a/b')).toThrow(StorageKeyError);
      expect(() => store.area('..')).toThrow(StorageKeyError);
    });

    it('refuses traversal in every operation', async () => {
      const store = storage();
      await expect(store.put('../evil.png', Buffer.from('x'))).rejects.toThrow(StorageKeyError);
      await expect(store.get('../../etc/passwd')).rejects.toThrow(StorageKeyError);
      await expect(store.read('a//b')).rejects.toThrow(StorageKeyError);
      await expect(store.stat('/etc/passwd')).rejects.toThrow(StorageKeyError);
      await expect(store.exists('a/../../b')).rejects.toThrow(StorageKeyError);
      await expect(store.delete('..')).rejects.toThrow(StorageKeyError);
      await expect(store.deleteTree('../x')).rejects.toThrow(StorageKeyError);
    });
  });
}
