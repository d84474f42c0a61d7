import { describe, expect, it } from 'vitest';
import {
  FORMATS,
  formatForMimeType,
  isSvg,
  representationExtension,
  sniff,
  sniffMimeType,
  trueMimeType,
} from '../../src/media/index.js';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { grayGif, solidJpeg, solidPng, webmHeaderOnly } from './helpers.js';

describe('formats', () => {
  it('lists the five accepted formats with their MIME types and extensions', () => {
    expect(FORMATS.map((f) => [f.format, f.mimeType, f.ext])).toEqual([
      ['gif', 'image/gif', 'gif'],
      ['jpg', 'image/jpeg', 'jpg'],
      ['png', 'image/png', 'png'],
      ['svg', 'image/svg+xml', 'svg'],
      ['webm', 'video/webm', 'webm'],
    ]);
    expect(formatForMimeType('image/jpeg')).toBe('jpg');
    expect(formatForMimeType('image/webp')).toBeNull();
  });

  it('gives representation extensions: svg → png, webm stays webm, others unchanged', () => {
    expect(representationExtension('svg')).toBe('png');
    expect(representationExtension('webm')).toBe('webm');
    expect(representationExtension('jpg')).toBe('jpg');
    expect(representationExtension('JPEG')).toBe('jpeg');
    expect(representationExtension('gif')).toBe('gif');
    expect(representationExtension('png')).toBe('png');
  });

  it('corrects image/svg and audio/webm', () => {
    expect(trueMimeType('image/svg')).toBe('image/svg+xml');
    expect(trueMimeType('audio/webm')).toBe('video/webm');
    expect(trueMimeType('image/png')).toBe('image/png');
  });
});

describe('sniffing from bytes', () => {
  it('recognises png, jpeg, gif, svg and webm by content', async () => {
    expect(await sniff(await solidPng(4, 4))).toEqual({ mimeType: 'image/png', format: 'png' });
    expect(await sniff(await solidJpeg(4, 4))).toEqual({ mimeType: 'image/jpeg', format: 'jpg' });
    expect(await sniff(await grayGif([0, 255], [100, 100]))).toEqual({ mimeType: 'image/gif', format: 'gif' });
    expect(await sniff((await generateDemoImage(3, 'svg')).bytes)).toEqual({ mimeType: 'image/svg+xml', format: 'svg' });
    expect(await sniff(webmHeaderOnly())).toEqual({ mimeType: 'video/webm', format: 'webm' });
  });

  it('ignores what a name would say: the bytes decide', async () => {
    // A PNG "named" photo.jpg and a JPEG "named" image.png: there is no name to pass at all.
    const png = await solidPng(2, 2);
    expect(await sniffMimeType(png)).toBe('image/png');
    const jpeg = await solidJpeg(2, 2);
    expect(await sniffMimeType(jpeg)).toBe('image/jpeg');
  });

  it('reports unaccepted and unknown types', async () => {
    expect(await sniffMimeType(Buffer.alloc(0))).toBe('application/x-empty');
    expect(await sniffMimeType(Buffer.from('just some text\n'))).toBe('text/plain');
    expect(await sniffMimeType(Buffer.from([0x00, 0x01, 0x02, 0x03, 0xff, 0xfe, 0x00, 0x10]))).toBe('application/octet-stream');
    const webp = Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1');
    expect((await sniff(webp)).format).toBeNull();
    expect(await sniffMimeType(Buffer.from('<?xml version="1.0"?><html></html>'))).toBe('application/xml');
  });

  it('detects SVG through a prolog, comments, a DOCTYPE with an internal subset, a BOM and a prefix', () => {
    const svg = (s: string) => isSvg(Buffer.from(s, 'utf8'));
    expect(svg('<svg xmlns="http://www.w3.org/2000/svg"/>')).toBe(true);
    expect(svg('\ufeff  <?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n<svg width="1" height="1"></svg>')).toBe(true);
    expect(
      svg('<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd" [ <!ENTITY a "b>c"> ]><svg/>'),
    ).toBe(true);
    expect(svg('<svg:svg xmlns:svg="http://www.w3.org/2000/svg"></svg:svg>')).toBe(true);
    expect(isSvg(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<svg/>', 'utf16le')]))).toBe(true);
    expect(svg('<svgfoo/>')).toBe(false);
    expect(svg('<html><svg/></html>')).toBe(false);
    expect(svg('hello <svg/>')).toBe(false);
    expect(svg('<!-- unterminated <svg/>')).toBe(false);
  });
});
