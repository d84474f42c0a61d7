/**
 * The worker thread behind `EngineThread`: an `EmbeddedEngine` of its own, answering the calls
 * posted to it in the order they come. Each engine method awaits the snapshot load once and then
 * runs to completion, so calls that follow one another on the port also take effect in order.
 * The answers of one turn go back in one reply (see engine-thread.ts). Besides the engine's
 * methods it answers `cacheReport`: the thread's caches as plain data, for the main thread's
 * `/metrics`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CacheSnapshot } from '../../../lib/cache-registry.js';
import { EmbeddedEngine, type EmbeddedEngineOptions } from '../engine.js';
import type { EngineCall, EngineCalls, EngineReplies, EngineReply } from './engine-thread.js';
import { ParsedRequests } from './parsed-requests.js';

const engine = new EmbeddedEngine((workerData as { options: EmbeddedEngineOptions }).options);
const port = parentPort!;

const requests = new ParsedRequests(engine.caches);

/** The engine's caches and the parsed requests, as the calls posted before this one left them. */
async function cacheReport(): Promise<CacheSnapshot[]> {
  // awaited as every engine method awaits it: this call's turn comes after theirs
  await engine.open();
  return engine.caches.report();
}

/** A call's arguments as the engine takes them: a search's request comes as JSON text. */
function argumentsOf(call: EngineCall): unknown[] {
  if (call.method === 'search') return [call.args[0], requests.parse(call.args[1] as string)];
  return call.args;
}

let replies: EngineReplies = [];

/** Queue a reply; the replies of this turn are posted together when it ends. */
function reply(answer: EngineReply): void {
  if (replies.length === 0) setImmediate(postReplies);
  replies.push(answer);
}

function postReplies(): void {
  const batch = replies;
  replies = [];
  port.postMessage(batch);
}

function run(call: EngineCall): void {
  const method = (call.method === 'cacheReport' ? cacheReport : engine[call.method]) as (...args: unknown[]) => Promise<unknown>;
  let args: unknown[];
  try {
    args = argumentsOf(call);
  } catch (err) {
    reply({ id: call.id, ok: false, error: { name: 'Error', message: String(err) } });
    return;
  }
  method.apply(engine, args).then(
    (value) => reply({ id: call.id, ok: true, value }),
    (err: unknown) => {
      const error = err instanceof Error ? { name: err.name, message: err.message } : { name: 'Error', message: String(err) };
      reply({ id: call.id, ok: false, error });
    },
  );
}

port.on('message', (calls: EngineCalls) => {
  for (const call of calls) run(call);
});
