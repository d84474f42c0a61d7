/**
 * `tsx import-then-die.ts TARGET_URL SOURCE_URL`: a first Philomena import whose process kills
 * itself (SIGKILL) once every row is in and before any key or index is rebuilt.
 */
import { createDatabase } from '../../../src/db/client.js';
import { openLiveSource } from '../../../src/import/philomena/live-source.js';
import { migratePhilomena } from '../../../src/import/philomena/run.js';

const [targetUrl, sourceUrl] = process.argv.slice(2);
const db = createDatabase(targetUrl!, { max: 2 });
const source = await openLiveSource(sourceUrl!);
await migratePhilomena(db, source, {
  onLoaded: async () => {
    process.stdout.write('loaded\n');
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => {});
  },
});
process.stdout.write('finished\n');
