/**
 * Writing one gzip-compressed JSON-lines file while counting its records, its bytes and their
 * SHA-256 on the way to the disk (the file is never read back to check it). Writes wait for the
 * compressor to drain, so memory stays at one batch whatever the file's size.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface WrittenFile {
  bytes: number;
  records: number;
  sha256: string;
}

export class JsonLinesGzipWriter {
  private readonly gzip = createGzip({ level: 6 });
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private records = 0;
  private readonly done: Promise<void>;
  private failure: unknown;

  constructor(path: string) {
    const tap = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        this.hash.update(chunk);
        this.bytes += chunk.length;
        callback(null, chunk);
      },
    });
    // `wx`: a file of this name must not exist yet (the directory is our own, fresh one).
    this.done = pipeline(this.gzip, tap, createWriteStream(path, { flags: 'wx', flush: true }));
    this.done.catch((err: unknown) => {
      this.failure = err;
    });
  }

  /** Append records, one JSON line each. */
  async write(records: readonly unknown[]): Promise<void> {
    if (this.failure) throw this.failure;
    if (records.length === 0) return;
    let text = '';
    for (const r of records) text += `${JSON.stringify(r)}\n`;
    this.records += records.length;
    if (!this.gzip.write(text)) {
      // Wait for room, unless the pipeline fails meanwhile (then `done` rejects).
      await Promise.race([once(this.gzip, 'drain'), this.done]);
    }
  }

  /** Finish the file (flushed to disk) and say what it holds. */
  async close(): Promise<WrittenFile> {
    this.gzip.end();
    await this.done;
    return { bytes: this.bytes, records: this.records, sha256: this.hash.digest('hex') };
  }

  /** Give up on the file (its directory is about to be removed). */
  abort(): void {
    this.gzip.destroy();
  }
}
