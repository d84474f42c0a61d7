/**
 * Optional ffprobe/ffmpeg support, used only for WebM (and never required for the other formats).
 * Binaries come from the options, else `FFPROBE_PATH` / `FFMPEG_PATH`, else `ffprobe` / `ffmpeg` on
 * PATH. A missing binary becomes a `MediaError` saying WebM support needs ffmpeg.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaError } from './errors.js';

export interface FfmpegOptions {
  /** Path of ffprobe; default `FFPROBE_PATH` or `ffprobe` on PATH. */
  ffprobePath?: string;
  /** Path of ffmpeg; default `FFMPEG_PATH` or `ffmpeg` on PATH. */
  ffmpegPath?: string;
  /** Per-command time limit; default 60 s. */
  timeoutMs?: number;
}

export interface VideoProbe {
  width: number;
  height: number;
  /** Seconds. */
  duration: number;
  frameCount: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

function ffprobeBinary(options?: FfmpegOptions): string {
  return options?.ffprobePath ?? process.env.FFPROBE_PATH ?? 'ffprobe';
}

function ffmpegBinary(options?: FfmpegOptions): string {
  return options?.ffmpegPath ?? process.env.FFMPEG_PATH ?? 'ffmpeg';
}

interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

function run(binary: string, args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 8192) err += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error.code === 'ENOENT' || error.code === 'EACCES' ? MediaError.webmUnsupported(error) : error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
  });
}

async function withTempFile<T>(bytes: Uint8Array, ext: string, fn: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'tagwise-media-'));
  try {
    const path = join(dir, `input.${ext}`);
    await writeFile(path, bytes);
    return await fn(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Dimensions, duration and frame count of the first video stream of a WebM file. */
export async function probeVideo(bytes: Uint8Array, options?: FfmpegOptions): Promise<VideoProbe> {
  return withTempFile(bytes, 'webm', async (path) => {
    const result = await run(
      ffprobeBinary(options),
      [
        '-v', 'error',
        '-print_format', 'json',
        '-count_packets',
        '-select_streams', 'v:0',
        '-show_entries', 'stream=width,height,nb_read_packets:format=duration',
        path,
      ],
      options?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    if (result.code !== 0) throw MediaError.corrupt(new Error(result.stderr.trim() || `ffprobe exited with ${result.code}`));
    let parsed: { streams?: Array<Record<string, unknown>>; format?: Record<string, unknown> };
    try {
      parsed = JSON.parse(result.stdout.toString('utf8')) as typeof parsed;
    } catch (error) {
      throw MediaError.corrupt(error);
    }
    const stream = parsed.streams?.[0];
    const width = Number(stream?.width ?? 0);
    const height = Number(stream?.height ?? 0);
    const frameCount = Number(stream?.nb_read_packets ?? 0);
    let duration = Number(parsed.format?.duration ?? 0);
    if (!(Number.isFinite(duration) && duration > 0) && frameCount > 0) {
      // Files written to a pipe (e.g. by recorders) carry no duration: take the end of the last packet.
      duration = await lastPacketEnd(path, options);
    }
    return {
      width: Number.isFinite(width) ? width : 0,
      height: Number.isFinite(height) ? height : 0,
      duration: Number.isFinite(duration) ? duration : 0,
      frameCount: Number.isFinite(frameCount) ? frameCount : 0,
    };
  });
}

async function lastPacketEnd(path: string, options?: FfmpegOptions): Promise<number> {
  const result = await run(
    ffprobeBinary(options),
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0', path],
    options?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  if (result.code !== 0) return 0;
  let end = 0;
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const [pts, dur] = line.split(',');
    const value = Number(pts) + (Number(dur) || 0);
    if (Number.isFinite(value) && value > end) end = value;
  }
  return end;
}

/** One frame of a video at `seconds`, as PNG bytes (the reference's `mediathumb`). */
export async function extractVideoFrame(bytes: Uint8Array, seconds: number, options?: FfmpegOptions): Promise<Buffer> {
  return withTempFile(bytes, 'webm', async (path) => {
    const timeout = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const attempt = (at: number) =>
      run(
        ffmpegBinary(options),
        ['-v', 'error', '-ss', at.toFixed(3), '-i', path, '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1'],
        timeout,
      );
    let result = await attempt(Math.max(0, seconds));
    // Seeking past the last key frame of a short clip can give no frame: fall back to the first.
    if ((result.code !== 0 || result.stdout.length === 0) && seconds > 0) result = await attempt(0);
    if (result.code !== 0 || result.stdout.length === 0) {
      throw MediaError.corrupt(new Error(result.stderr.trim() || `ffmpeg exited with ${result.code}`));
    }
    return result.stdout;
  });
}

let availability: Promise<boolean> | undefined;

/** Whether ffprobe and ffmpeg can be run (checked once per process for the default binaries). */
export function ffmpegAvailable(options?: FfmpegOptions): Promise<boolean> {
  const check = async () => {
    try {
      const probe = await run(ffprobeBinary(options), ['-version'], 10_000);
      const mpeg = await run(ffmpegBinary(options), ['-version'], 10_000);
      return probe.code === 0 && mpeg.code === 0;
    } catch {
      return false;
    }
  };
  if (options?.ffprobePath !== undefined || options?.ffmpegPath !== undefined) return check();
  availability ??= check();
  return availability;
}
