/**
 * The log lines' `time` field: the ISO 8601 UTC text of pino's `isoTime`, character for
 * character, without formatting a `Date` for every line. The text up to the seconds is made once a
 * second and the milliseconds appended; formatting the whole date was the largest part of writing
 * a request's log line.
 */
let currentSecond = Number.NaN;
let secondPrefix = '';

/** `,"time":"YYYY-MM-DDTHH:MM:SS.mmmZ"` for `now` (milliseconds since the epoch). */
export function isoTimeAt(now: number): string {
  const second = Math.floor(now / 1000);
  if (second !== currentSecond) {
    currentSecond = second;
    // "YYYY-MM-DDTHH:MM:SS." of the second
    secondPrefix = `,"time":"${new Date(second * 1000).toISOString().slice(0, 20)}`;
  }
  const ms = now - second * 1000;
  return `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}

/** pino's `timestamp` option: the time of the line being written. */
export const logLineTime = (): string => isoTimeAt(Date.now());
