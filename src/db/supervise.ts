/**
 * Supervision of the embedded PostgreSQL this process owns: a server that died (killed, crashed,
 * stopped by hand) is started again on the same cluster and port, so the pools reconnect by
 * themselves; until then requests get 503 (`src/db/unavailable.ts`). Each restart is logged and
 * counted.
 */
import type { EmbeddedPostgres } from './embedded-postgres.js';

export interface Supervisor {
  stop(): Promise<void>;
}

export function superviseEmbeddedPostgres(
  server: EmbeddedPostgres,
  options: { intervalMs?: number; onRestart(): void; onError(err: unknown): void },
): Supervisor {
  let round: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    round = round.then(async () => {
      try {
        if (await server.restartIfDown()) options.onRestart();
      } catch (err) {
        options.onError(err);
      }
    });
  }, options.intervalMs ?? 500);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await round;
    },
  };
}
