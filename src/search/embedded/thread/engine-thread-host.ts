/**
 * The worker thread behind `EngineThread`: an `EmbeddedEngine` of its own, answering the calls
 * posted to it in the order they come. Each engine method awaits the snapshot load once and then
 * runs to completion, so calls that follow one another on the port also take effect in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { EmbeddedEngine, type EmbeddedEngineOptions } from '../engine.js';
import type { EngineCall, EngineReply } from './engine-thread.js';

const engine = new EmbeddedEngine((workerData as { options: EmbeddedEngineOptions }).options);
const port = parentPort!;

/** A call's arguments as the engine takes them: a search's request comes as JSON text. */
function argumentsOf(call: EngineCall): unknown[] {
  if (call.method === 'search') return [call.args[0], JSON.parse(call.args[1] as string)];
  return call.args;
}

port.on('message', (call: EngineCall) => {
  const method = engine[call.method] as (...args: unknown[]) => Promise<unknown>;
  let args: unknown[];
  try {
    args = argumentsOf(call);
  } catch (err) {
    port.postMessage({ id: call.id, ok: false, error: { name: 'Error', message: String(err) } } satisfies EngineReply);
    return;
  }
  method.apply(engine, args).then(
    (value) => port.postMessage({ id: call.id, ok: true, value } satisfies EngineReply),
    (err: unknown) => {
      const error = err instanceof Error ? { name: err.name, message: err.message } : { name: 'Error', message: String(err) };
      port.postMessage({ id: call.id, ok: false, error } satisfies EngineReply);
    },
  );
});
