// The engine thread's entry. Node 20 gives a worker's entry module no TypeScript loader (an
// `--import` of one applies to the worker's preloads, not to its entry), so this plain module
// registers tsx and then loads the TypeScript host; a built host needs no loader.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

if (workerData.host.endsWith('.ts')) register();
await import(workerData.host);
