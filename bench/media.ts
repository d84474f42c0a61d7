/**
 * `npm run bench -- media [--runs N]`: the processing of one submitted image (what the
 * `process-image` job does apart from the database: analysis, intensities, every representation,
 * video files, and writing the files), for a 4000×3000 JPEG and for each other format.
 *
 * The budget is 1.5 s of one core for the 4000×3000 JPEG. We measure CPU time (user + system of
 * every thread of the process, libvips included) with libvips limited to one thread per operation,
 * so the figure is the cost on one core whatever the machine (ffmpeg/ffprobe subprocesses are
 * counted too, from /proc/self/stat on Linux); wall time is printed beside it.
 * The baseline, measured in the same run on the same file, is a plain
 * `sharp(jpeg).resize(250).toBuffer()`. The last line is JSON.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { processForStorage } from '../src/contexts/images/process-job.js';
import { generateDemoImage } from '../src/media/demo-images.js';
import { mulberry32 } from '../src/lib/random.js';
import { ffmpegAvailable } from '../src/media/ffmpeg.js';
import { DirectoryStorage } from '../src/media/storage-directory.js';
import { pathFor } from '../src/media/storage.js';

const BUDGET_CPU_MS = 1500;
const argRuns = process.argv.indexOf('--runs');
const RUNS = argRuns > 0 ? Math.max(1, Number(process.argv[argRuns + 1]) || 5) : 5;

sharp.concurrency(1);
sharp.cache(false);

interface Timing {
  cpuMs: number;
  wallMs: number;
}

/**
 * CPU time of finished child processes (ffmpeg, ffprobe) in ms: `cutime + cstime` of
 * /proc/self/stat (Linux; 0 elsewhere), in clock ticks of 10 ms.
 */
function childCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

async function measure(fn: () => Promise<unknown>, runs = RUNS): Promise<Timing> {
  await fn(); // warm-up
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const k0 = childCpuMs();
    const t0 = performance.now();
    await fn();
    const c = process.cpuUsage(c0);
    wall.push(performance.now() - t0);
    cpu.push((c.user + c.system) / 1000 + (childCpuMs() - k0));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { cpuMs: Math.round(median(cpu)), wallMs: Math.round(median(wall)) };
}

/** A photo-like 4000×3000 JPEG: the demo scene at that size with deterministic grain. */
async function photoJpeg(width: number, height: number): Promise<{ jpeg: Buffer; png: Buffer }> {
  const scene = await generateDemoImage(4242, 'svg');
  const svg = scene.bytes.toString('utf8').replace(/^(<svg\b[^>]*?\swidth=")\d+("\s+height=")\d+"/, `$1${width}$2${height}"`);
  const raw = await sharp(Buffer.from(svg)).resize(width, height, { fit: 'fill' }).removeAlpha().raw().toBuffer();
  const rng = mulberry32(7);
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i]! + Math.floor((rng() - 0.5) * 24);
    raw[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  const image = () => sharp(raw, { raw: { width, height, channels: 3 } });
  return { jpeg: await image().jpeg({ quality: 90 }).toBuffer(), png: await image().png({ compressionLevel: 6 }).toBuffer() };
}

function makeWebm(): Buffer | null {
  const dir = mkdtempSync(join(tmpdir(), 'tagwise-bench-'));
  try {
    const out = join(dir, 'clip.webm');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=24', '-t', '3', '-c:v', 'libvpx', '-b:v', '1M', out]);
    return readFileSync(out);
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-bench-store-'));
const store = new DirectoryStorage(dataDir);
let nextId = 1;

/** What the job does with the bytes: process, then write every file. */
async function job(bytes: Buffer): Promise<number> {
  const { files } = await processForStorage(bytes);
  const id = nextId++;
  const at = new Date('2026-01-02T03:04:05Z');
  for (const f of files) await store.put(pathFor(at, id, f.name, f.ext), f.buffer);
  return files.length;
}

try {
  const { jpeg, png } = await photoJpeg(4000, 3000);
  console.log(`input: 4000×3000 JPEG, ${(jpeg.length / 1e6).toFixed(2)} MB; libvips threads per operation: 1; median of ${RUNS} runs`);

  const baseline = await measure(() => sharp(jpeg).resize(250).toBuffer());
  const processing = await measure(() => job(jpeg));
  const ratio = processing.cpuMs / Math.max(1, baseline.cpuMs);
  const line = (label: string, t: Timing, extra = '') =>
    console.log(`${label.padEnd(34)} cpu ${String(t.cpuMs).padStart(6)} ms   wall ${String(t.wallMs).padStart(6)} ms${extra}`);
  line('baseline sharp resize(250)', baseline);
  line('process-image, 4000×3000 JPEG', processing, `   ×${ratio.toFixed(1)} baseline, budget ${BUDGET_CPU_MS} ms cpu: ${processing.cpuMs <= BUDGET_CPU_MS ? 'ok' : 'OVER'}`);

  const formats: Record<string, Timing & { input: string }> = { jpeg_4000x3000: { ...processing, input: '4000×3000' } };
  formats.png_4000x3000 = { ...(await measure(() => job(png), Math.min(RUNS, 3))), input: '4000×3000' };
  line('process-image, 4000×3000 PNG', formats.png_4000x3000);
  const gif = await generateDemoImage(4243, 'gif');
  formats.gif = { ...(await measure(() => job(gif.bytes), Math.min(RUNS, 3))), input: `${gif.width}×${gif.height} animated GIF` };
  line(`process-image, ${formats.gif.input}`, formats.gif);
  const svg = await generateDemoImage(4244, 'svg');
  formats.svg = { ...(await measure(() => job(svg.bytes), Math.min(RUNS, 3))), input: `${svg.width}×${svg.height} SVG` };
  line(`process-image, ${formats.svg.input}`, formats.svg);
  const webm = (await ffmpegAvailable()) ? makeWebm() : null;
  if (webm) {
    formats.webm = { ...(await measure(() => job(webm), 1)), input: '640×360 3 s WebM' };
    line(`process-image, ${formats.webm.input}`, formats.webm, '   (ffmpeg and ffprobe included)');
  } else {
    console.log('process-image, WebM: skipped (ffmpeg not installed)');
  }

  console.log(
    JSON.stringify({
      bench: 'media',
      runs: RUNS,
      baseline_cpu_ms: baseline.cpuMs,
      baseline_wall_ms: baseline.wallMs,
      jpeg_4000x3000_cpu_ms: processing.cpuMs,
      jpeg_4000x3000_wall_ms: processing.wallMs,
      ratio_to_baseline: Number(ratio.toFixed(2)),
      budget_cpu_ms: BUDGET_CPU_MS,
      within_budget: processing.cpuMs <= BUDGET_CPU_MS,
      formats,
    }),
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
