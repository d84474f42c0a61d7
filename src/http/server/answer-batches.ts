/**
 * Answers leave in batches: every answer ready during one turn of the event loop is written at
 * the end of that turn (in its check phase, `setImmediate`), one after another, instead of each as
 * soon as its handler returns.
 *
 * Why: on loopback and on a busy host, most of the cost of a socket write is the kernel waking
 * the reader. A client that keeps many connections (a load balancer, a crawler, a bench) sleeps
 * between answers that arrive tens of microseconds apart, so each answer wakes it anew; answers
 * written back to back find it awake. The wait is the rest of the current turn, well under a
 * millisecond: the turn's input was read already, nothing else is waited for.
 */

let turnEnd: Promise<void> | undefined;

/** Resolves once, in the check phase of the current turn, for every caller of this turn. */
function endOfTurn(): Promise<void> {
  turnEnd ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      turnEnd = undefined;
      resolve();
    }),
  );
  return turnEnd;
}

/** `fetch` whose answers are handed to the server at the end of the turn they were made in. */
export function batchAnswers<A extends unknown[]>(fetch: (req: Request, ...rest: A) => Response | Promise<Response>): (req: Request, ...rest: A) => Promise<Response> {
  return async (req, ...rest) => {
    const res = await fetch(req, ...rest);
    await endOfTurn();
    return res;
  };
}
