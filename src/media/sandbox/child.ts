/**
 * A sandbox child (sandbox/pool.ts forks it): runs the tasks it is sent (tasks.ts) one at a time
 * and answers each. It holds no state worth keeping, so the parent kills it (SIGKILL, with the
 * ffmpeg processes it started) whenever a task runs past its deadline or memory, and it ends
 * itself when the parent goes away.
 */
import sharp from 'sharp';
import { isMediaError } from '../errors.js';
import type { ChildReply, ChildRequest } from './protocol.js';
import { isSandboxTask, runTask } from './tasks.js';

// One libvips thread and no operation cache: the parent runs few children, each one decode at a
// time, and memory is what the parent watches.
sharp.concurrency(1);
sharp.cache(false);

function reply(message: ChildReply): void {
  process.send?.(message);
}

process.on('message', (message: ChildRequest) => {
  void (async () => {
    const { id, task, bytes, options } = message;
    try {
      if (!isSandboxTask(task)) throw new Error(`unknown sandbox task ${String(task)}`);
      const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      reply({ id, ok: true, value: await runTask(task, input, options as never) });
    } catch (error) {
      if (isMediaError(error)) reply({ id, ok: false, media: { field: error.field, message: error.message, errors: error.errors } });
      else reply({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
    }
  })();
});

// The parent is gone (or closed the channel): nothing will read an answer.
process.on('disconnect', () => process.exit(0));
reply({ ready: true });
