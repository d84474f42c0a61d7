/**
 * The command lines of the `npm run …` programs: node:util's `parseArgs`, with every mistake in a
 * command line a `UsageError`, which a program answers with `error: <message>`, its usage text on
 * stderr and exit status 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in the command line: usage is printed, exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `parseArgs` (strict unless said otherwise); what it refuses is thrown as a `UsageError`. */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Prints a `UsageError` with `usage` and gives the exit status, 2; anything else is rethrown. */
export function usageErrorExit(err: unknown, usage: string): number {
  if (!(err instanceof UsageError)) throw err;
  console.error(`error: ${err.message}\n\n${usage}`);
  return 2;
}

/**
 * A program's command line as `read` makes it of process.argv, or the exit status when the program
 * has nothing more to do: 2 after a `UsageError` (see `usageErrorExit`), 0 after printing `usage`
 * for --help.
 */
export function commandLineOrExit<T extends { help?: boolean | undefined }>(read: () => T, usage: string): T | number {
  let line: T;
  try {
    line = read();
  } catch (err) {
    return usageErrorExit(err, usage);
  }
  if (line.help) {
    console.log(usage);
    return 0;
  }
  return line;
}
