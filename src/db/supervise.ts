/**
 * Supervision of the embedded PostgreSQL the service uses, whoever started it: a server that died
 * (killed, crashed, stopped by hand or by the CLI that had started it) is started again on the
 * same cluster and port, so the pools reconnect by themselves; until then requests get 503
 * (`src/db/unavailable.ts`). A running server started by a CLI is taken over
 * (`embedded-ownership.ts`). Each restart is logged and counted.
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
