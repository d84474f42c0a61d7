/**
 * A job worker in a process of its own, for the restart test: it runs the real image handlers and
 * freezes after storing `freezeAfter` files (printing `frozen <n>`), so the parent can kill it in
 * the middle of processing an image.
 *
 * Arguments: database URL, image store root, freezeAfter.
 */
import { createDatabase } from '../../src/db/client.js';
import { createJobHandlers } from '../../src/contexts/images/process-job.js';
import { JobWorker } from '../../src/jobs/index.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';

const [dbUrl, root, freezeAfterArg] = process.argv.slice(2);
const freezeAfter = Number(freezeAfterArg ?? 2);

class FreezingStore extends DirectoryStorage {
  private puts = 0;
  override async put(key: string, buffer: Uint8Array): Promise<void> {
    await super.put(key, buffer);
    this.puts++;
    if (this.puts >= freezeAfter) {
      process.stdout.write(`frozen ${this.puts}\n`);
      await new Promise(() => {});
    }
  }
}

const db = createDatabase(dbUrl!, { max: 2 });
const worker = new JobWorker({ db, handlers: createJobHandlers({ db, fileStore: new FreezingStore(root!) }), pollMs: 50 });
await worker.start();
process.stdout.write('ready\n');
