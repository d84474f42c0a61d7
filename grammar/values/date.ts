/**
 * Values of date fields (reference §1.7). Each value is an interval `[lower, upper)` in whole
 * seconds since the epoch, UTC.
 *
 * - Absolute: `YYYY[-MM[-DD[<sep>[HH[:MM[:SS]]]]]][<tz>]`, `<sep>` = `T`, `t` or one whitespace
 *   character, `<tz>` = `Z`, `z`, `±HH` or `±HH:MM`. Every component has exactly 4 or 2 digits.
 *   The interval spans the most precise component given; the offset moves it to UTC.
 * - Relative: `<N> <unit>[s] ago` (one whitespace character, then one space before `ago`), units
 *   second … year (month = 30 days, year = 365 days), at most 1000 years back. It means the
 *   unit-long window `[now-(N+1)·unit, now-N·unit)`. (The reference swaps two arguments and ends
 *   up with an N-second window; this is the intended meaning.)
 */
import { expected, failedAt } from './value-error.js';
import { isDigit } from './number-text.js';
import { isSpace } from '../lexer.js';

export const DATE_LABEL = "a RFC3339 datetime fragment, like `2019-01-01', or relative date, like `3 days ago'";

export interface DateInterval {
  /** Inclusive lower bound, seconds since the epoch (UTC). */
  lower: number;
  /** Exclusive upper bound, seconds since the epoch (UTC). */
  upper: number;
}

const MILLENNIUM_SECONDS = 31_536_000_000;

const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['second', 1],
  ['minute', 60],
  ['hour', 3_600],
  ['day', 86_400],
  ['week', 604_800],
  ['month', 2_592_000],
  ['year', 31_536_000],
];

/**
 * Parse a date value; `nowMs` reads the current time, for relative dates only: a caller that
 * keeps compiled queries tells by it whether one depends on the clock, and one holding only
 * absolute dates stays the same query for as long as it is kept.
 */
export function parseDate(value: string, nowMs: () => number): DateInterval {
  const absolute = parseAbsolute(value);
  if (absolute) return absolute;
  const relative = parseRelative(value, nowMs);
  if (relative) return relative;
  throw expected(DATE_LABEL, value, 0);
}

function twoDigits(s: string, i: number): number {
  if (!isDigit(s.charCodeAt(i)) || !isDigit(s.charCodeAt(i + 1))) return -1;
  return (s.charCodeAt(i) - 48) * 10 + (s.charCodeAt(i + 1) - 48);
}

/** The absolute form, or null when it does not match (a calendar error throws). */
function parseAbsolute(s: string): DateInterval | null {
  for (let k = 0; k < 4; k++) if (!isDigit(s.charCodeAt(k))) return null;
  const parts: number[] = [Number(s.slice(0, 4))];
  let i = 4;
  // Each optional part either matches whole or leaves the position where it was.
  if (s.charCodeAt(i) === 45 /* - */ && twoDigits(s, i + 1) >= 0) {
    parts.push(twoDigits(s, i + 1));
    i += 3;
    if (s.charCodeAt(i) === 45 && twoDigits(s, i + 1) >= 0) {
      parts.push(twoDigits(s, i + 1));
      i += 3;
      const sep = s.charCodeAt(i);
      if (sep === 84 /* T */ || sep === 116 /* t */ || isSpace(sep)) {
        i += 1;
        if (twoDigits(s, i) >= 0) {
          parts.push(twoDigits(s, i));
          i += 2;
          if (s.charCodeAt(i) === 58 /* : */ && twoDigits(s, i + 1) >= 0) {
            parts.push(twoDigits(s, i + 1));
            i += 3;
            if (s.charCodeAt(i) === 58 && twoDigits(s, i + 1) >= 0) {
              parts.push(twoDigits(s, i + 1));
              i += 3;
            }
          }
        }
      }
    }
  }
  // Time zone.
  const tz: Array<string | number> = [];
  let offsetSeconds = 0;
  const t = s.charCodeAt(i);
  if ((t === 43 /* + */ || t === 45) /* - */ && twoDigits(s, i + 1) >= 0) {
    const hours = twoDigits(s, i + 1);
    tz.push(s[i]!, hours);
    i += 3;
    let minutes = 0;
    if (s.charCodeAt(i) === 58 && twoDigits(s, i + 1) >= 0) {
      minutes = twoDigits(s, i + 1);
      tz.push(minutes);
      i += 3;
    }
    offsetSeconds = (t === 45 ? -1 : 1) * (hours * 3600 + minutes * 60);
    if (hours > 23 || minutes > 59) offsetSeconds = NaN;
  } else if (t === 90 /* Z */ || t === 122 /* z */) {
    i += 1;
  }
  if (i !== s.length) return null;

  const bounds = localBounds(parts);
  if (bounds === null || Number.isNaN(offsetSeconds)) {
    throw failedAt(`invalid date format in input, parsed as ${[...parts, ...tz].join(', ')}`, s.length);
  }
  return { lower: bounds[0] - offsetSeconds, upper: bounds[1] - offsetSeconds };
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeapYear(y) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (any year). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** `[lower, upper)` of the components as a local (offset-free) time, or null if impossible. */
function localBounds(parts: number[]): [number, number] | null {
  const [y, m = 1, d = 1, hh = 0, mm = 0, ss = 0] = parts as [number, ...number[]];
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || hh > 23 || mm > 59 || ss > 59) return null;
  const lower = daysFromCivil(y, m, d) * 86_400 + hh * 3_600 + mm * 60 + ss;
  let span: number;
  switch (parts.length) {
    case 1:
      span = (isLeapYear(y) ? 366 : 365) * 86_400;
      break;
    case 2:
      span = daysInMonth(y, m) * 86_400;
      break;
    case 3:
      span = 86_400;
      break;
    case 4:
      span = 3_600;
      break;
    case 5:
      span = 60;
      break;
    default:
      span = 1;
  }
  return [lower, lower + span];
}

/** The relative form, or null when it does not match (too far back throws). */
function parseRelative(s: string, nowMs: () => number): DateInterval | null {
  let i = 0;
  while (isDigit(s.charCodeAt(i))) i++;
  if (i === 0 || !isSpace(s.charCodeAt(i))) return null;
  const countText = s.slice(0, i);
  i++;
  for (const [name, seconds] of UNITS) {
    if (!s.startsWith(name, i)) continue;
    let j = i + name.length;
    if (s.charCodeAt(j) === 115 /* s */) j++;
    if (!s.startsWith(' ago', j) || j + 4 !== s.length) return null;
    const digits = countText.replace(/^0+(?=\d)/, '');
    // At most 11 significant digits can stay within a millennium of seconds.
    if (digits.length > 12 || Number(digits) * seconds > MILLENNIUM_SECONDS) {
      throw failedAt(
        `invalid date format in input; requested time ${multiplyDecimal(digits, seconds)} seconds is over a millennium ago`,
        s.length,
      );
    }
    const count = Number(digits);
    const now = Math.floor(nowMs() / 1000);
    return { lower: now - (count + 1) * seconds, upper: now - count * seconds };
  }
  return null;
}

/** A decimal digit string times a small positive integer, exactly, in linear time. */
function multiplyDecimal(digits: string, factor: number): string {
  const out: number[] = new Array(digits.length);
  let carry = 0;
  for (let i = digits.length - 1; i >= 0; i--) {
    const v = (digits.charCodeAt(i) - 48) * factor + carry;
    out[i] = v % 10;
    carry = Math.floor(v / 10);
  }
  return (carry > 0 ? String(carry) : '') + out.join('');
}

/**
 * The instants a date query may name, in seconds: years 0000 through 9999 (UTC), what
 * `strict_date_optional_time` (OpenSearch's default date format, which the embedded engine reads
 * too) writes with its four-digit year. Query values can fall outside by an offset or a span
 * (`9999-12-31T23:59:59-23:59`, or `9999`, which ends at 10000-01-01); `dateComparison` keeps
 * every compiled bound inside, so both engines read the same query.
 */
export const DATE_RANGE = { min: daysFromCivil(0, 1, 1) * 86_400, max: daysFromCivil(10_000, 1, 1) * 86_400 - 1 } as const;

export type DateComparison = 'gt' | 'gte' | 'lt' | 'lte';

/**
 * `{ [op]: text }` for "date op seconds", written inside `DATE_RANGE`. A bound beyond an end of
 * the range becomes a comparison with that end selecting the same instants of the range: above
 * it, `lt`/`lte` keep everything (`lte` max) and `gt`/`gte` keep nothing (`gt` max); below it,
 * the other way round (`gte` min, `lt` min).
 */
export function dateComparison(op: DateComparison, seconds: number): Partial<Record<DateComparison, string>> {
  const below = op === 'lt' || op === 'lte';
  if (seconds > DATE_RANGE.max) return below ? { lte: formatUtc(DATE_RANGE.max) } : { gt: formatUtc(DATE_RANGE.max) };
  if (seconds < DATE_RANGE.min) return below ? { lt: formatUtc(DATE_RANGE.min) } : { gte: formatUtc(DATE_RANGE.min) };
  return { [op]: formatUtc(seconds) };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** `YYYY-MM-DDTHH:MM:SSZ` for seconds since the epoch (years outside 0–9999 keep all digits). */
export function formatUtc(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  let rest = seconds - days * 86_400;
  const hh = Math.floor(rest / 3_600);
  rest -= hh * 3_600;
  const mm = Math.floor(rest / 60);
  const ss = rest - mm * 60;
  // Civil date from days (inverse of daysFromCivil).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const year = y < 0 ? `-${pad(-y, 4)}` : pad(y, 4);
  return `${year}-${pad(m, 2)}-${pad(d, 2)}T${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}Z`;
}
