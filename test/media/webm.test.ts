import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { analyzeImage, computeIntensities, ffmpegAvailable, makeRepresentations, MediaError } from '../../src/media/index.js';
import { webmHeaderOnly } from './helpers.js';

const hasFfmpeg = await ffmpegAvailable();

/** One second of flat red at 10 fps, 64×48, VP8. */
function redWebm(): Buffer {
  const result = spawnSync(
    'ffmpeg',
    ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=red:s=64x48:d=1:r=10', '-c:v', 'libvpx', '-b:v', '200k', '-f', 'webm', 'pipe:1'],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(result.stderr.toString());
  return result.stdout;
}

describe('WebM', () => {
  it('says WebM support needs ffmpeg when ffprobe/ffmpeg cannot be run', async () => {
    const options = { ffprobePath: '/nonexistent/ffprobe', ffmpegPath: '/nonexistent/ffmpeg' };
    await expect(analyzeImage(webmHeaderOnly(), options)).rejects.toThrow(/WebM support needs ffmpeg/);
    await expect(computeIntensities(webmHeaderOnly(), { format: 'webm', duration: 1 }, options)).rejects.toBeInstanceOf(MediaError);
    expect(await ffmpegAvailable(options)).toBe(false);
  });

  it.skipIf(!hasFfmpeg)('analyses a WebM with ffprobe and takes its middle frame with ffmpeg', async () => {
    const webm = redWebm();
    const a = await analyzeImage(webm);
    expect(a).toMatchObject({ mimeType: 'video/webm', format: 'webm', width: 64, height: 48, animated: true, frameCount: 10 });
    expect(a.duration).toBeCloseTo(1, 1);
    const intensities = await computeIntensities(webm, a);
    // Red through VP8's YUV 4:2:0 is close to, not exactly, pure red (luma 54.213).
    for (const v of Object.values(intensities)) expect(Math.abs(v - 54.213)).toBeLessThan(6);
    const reps = await makeRepresentations(webm, a);
    expect(reps.map((r) => `${r.name}.${r.ext} ${r.width}x${r.height}`)).toEqual(['full.webm 64x48', 'rendered.png 64x48']);
  });

  it.skipIf(!hasFfmpeg)('rejects a WebM header without a stream as corrupt', async () => {
    const error = await analyzeImage(webmHeaderOnly()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).field).toBe('image');
  });
});
