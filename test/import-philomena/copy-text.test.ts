import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { decodeCopyField, decodeCopyLine, parseCopyHeader, streamLines } from '../../src/import/philomena/copy-text.js';

describe('COPY text format', () => {
  test('fields decode nulls and every backslash escape', () => {
    expect(decodeCopyField('\\N')).toBeNull();
    expect(decodeCopyField('plain ünï')).toBe('plain ünï');
    expect(decodeCopyField('a\\tb\\nc\\rd\\\\e\\bf\\fg\\vh')).toBe('a\tb\nc\rd\\e\bf\fg\vh');
    expect(decodeCopyField('\\101\\x42\\7')).toBe('AB\x07');
    expect(decodeCopyField('\\N\\N')).toBe('NN');
    expect(decodeCopyLine('1\t\\N\ttab\\there')).toEqual(['1', null, 'tab\there']);
  });

  test('headers of pg_dump COPY blocks give the table and its columns', () => {
    expect(parseCopyHeader('COPY public.images (id, "user", image_name) FROM stdin;')).toEqual({ table: 'images', columns: ['id', 'user', 'image_name'] });
    expect(parseCopyHeader('COPY "Odd ""Name""" (a) FROM stdin;')).toEqual({ table: 'Odd "Name"', columns: ['a'] });
    expect(parseCopyHeader('SET statement_timeout = 0;')).toBeUndefined();
  });

  test('lines survive chunks that split them, and characters split across chunks', async () => {
    const bytes = Buffer.from('1\tünï\n2\tb\n3\tlast', 'utf8');
    const chunks = [bytes.subarray(0, 4), bytes.subarray(4, 9), bytes.subarray(9)];
    const lines: string[] = [];
    for await (const batch of streamLines(Readable.from(chunks))) lines.push(...batch);
    expect(lines).toEqual(['1\tünï', '2\tb', '3\tlast']);
  });
});
