/**
 * Date values as OpenSearch reads them, for the evaluator and the embedded engine alike: epoch
 * milliseconds (UTC), with the default date format (`strict_date_optional_time||epoch_millis`),
 * the round-up parser for `lte`/`gt` bounds, date math (`now-1d/d`, `2024-01-01||+1M`),
 * `time_zone` as a fixed offset and `format: epoch_second`.
 */

const DAY = 86_400_000;

function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

function digitsAt(s: string, i: number, n: number): number {
  if (i + n > s.length) return -1;
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(i + k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * `yyyy[-MM[-dd[THH[:mm[:ss[.f]]]]]]` with an optional `Z` / `±HH[:mm]` offset (a space or `t`
 * may replace `T`), or NaN. Without an offset the text is read at `tzOffset` minutes east of
 * UTC. With `roundUp`, missing fields default as OpenSearch's round-up parser does (month and
 * day 1, time 23:59:59.999), so `lte` / `gt` on a bare date cover that whole day.
 */
function parseIsoDate(s: string, roundUp = false, tzOffset = 0): number {
  const n = s.length;
  let i = 0;
  let sign = 1;
  const c0 = s.charCodeAt(0);
  if (c0 === 45 || c0 === 43) {
    sign = c0 === 45 ? -1 : 1;
    i = 1;
  }
  const year = digitsAt(s, i, 4);
  if (year < 0) return NaN;
  i += 4;
  let month = 1;
  let day = 1;
  let hour = roundUp ? 23 : 0;
  let minute = roundUp ? 59 : 0;
  let second = roundUp ? 59 : 0;
  let ms = roundUp ? 999 : 0;
  let offsetMin = tzOffset;
  parse: {
    if (i === n) break parse;
    if (s[i] !== '-') return NaN;
    month = digitsAt(s, i + 1, 2);
    if (month < 1 || month > 12) return NaN;
    i += 3;
    if (i === n) break parse;
    if (s[i] !== '-') return NaN;
    day = digitsAt(s, i + 1, 2);
    if (day < 1 || day > daysInMonth(sign * year, month)) return NaN;
    i += 3;
    if (i === n) break parse;
    const t = s[i];
    if (t !== 'T' && t !== 't' && t !== ' ') return NaN;
    hour = digitsAt(s, i + 1, 2);
    if (hour < 0 || hour > 23) return NaN;
    i += 3;
    if (i < n && s[i] === ':') {
      minute = digitsAt(s, i + 1, 2);
      if (minute < 0 || minute > 59) return NaN;
      i += 3;
      if (i < n && s[i] === ':') {
        second = digitsAt(s, i + 1, 2);
        if (second < 0 || second > 59) return NaN;
        i += 3;
        if (i < n && (s[i] === '.' || s[i] === ',')) {
          i++;
          let digits = 0;
          ms = 0;
          while (i < n) {
            const c = s.charCodeAt(i) - 48;
            if (c < 0 || c > 9) break;
            if (digits < 3) ms = ms * 10 + c;
            digits++;
            i++;
          }
          if (digits === 0 || digits > 9) return NaN;
          for (let k = digits; k < 3; k++) ms *= 10;
        } else if (!roundUp) ms = 0;
      } else if (!roundUp) second = 0;
    }
    if (i === n) break parse;
    const z = s[i];
    if (z === 'Z' || z === 'z') {
      offsetMin = 0;
      i++;
    } else if (z === '+' || z === '-') {
      const oh = digitsAt(s, i + 1, 2);
      if (oh < 0 || oh > 18) return NaN;
      i += 3;
      let om = 0;
      if (i < n && s[i] === ':') {
        om = digitsAt(s, i + 1, 2);
        i += 3;
      } else if (i + 2 <= n && digitsAt(s, i, 2) >= 0) {
        om = digitsAt(s, i, 2);
        i += 2;
      }
      if (om < 0 || om > 59) return NaN;
      offsetMin = (z === '-' ? -1 : 1) * (oh * 60 + om);
    } else return NaN;
    if (i !== n) return NaN;
  }
  const days = daysFromCivil(sign * year, month, day);
  return days * DAY + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms - offsetMin * 60_000;
}

const EPOCH_MILLIS_RE = /^-?\d+(\.\d+)?$/;

/** A document's date value (Date, epoch milliseconds as number or digits, ISO text), or NaN. */
export function toEpochMillis(v: unknown): number {
  if (typeof v === 'string') {
    const t = parseIsoDate(v);
    if (t === t) return t;
    if (EPOCH_MILLIS_RE.test(v)) return Math.trunc(Number(v));
    return NaN;
  }
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : NaN;
  if (v instanceof Date) return v.getTime();
  return NaN;
}

/** `time_zone` as minutes east of UTC (UTC and fixed offsets). */
export function parseTimeZone(tz: unknown): number {
  if (tz === undefined || tz === null) return 0;
  if (typeof tz !== 'string') throw new Error(`Invalid time_zone: ${String(tz)}`);
  if (tz === 'UTC' || tz === 'Z' || tz === 'GMT' || tz === 'Etc/UTC') return 0;
  const m = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(tz);
  if (!m) throw new Error(`Unsupported time_zone: ${tz} (use UTC or a fixed offset such as +01:00)`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

function addUnit(t: number, n: number, unit: string): number {
  switch (unit) {
    case 's':
      return t + n * 1000;
    case 'm':
      return t + n * 60_000;
    case 'h':
    case 'H':
      return t + n * 3_600_000;
    case 'd':
      return t + n * DAY;
    case 'w':
      return t + n * 7 * DAY;
    case 'M':
    case 'y': {
      const d = new Date(t);
      let y = d.getUTCFullYear();
      let m = d.getUTCMonth() + (unit === 'M' ? n : 12 * n);
      y += Math.floor(m / 12);
      m = ((m % 12) + 12) % 12;
      const day = Math.min(d.getUTCDate(), daysInMonth(y, m + 1));
      const timeOfDay = ((t % DAY) + DAY) % DAY;
      return daysFromCivil(y, m + 1, day) * DAY + timeOfDay;
    }
    default:
      throw new Error(`Unknown date math unit: ${unit}`);
  }
}

function floorUnit(t: number, unit: string): number {
  switch (unit) {
    case 's':
      return Math.floor(t / 1000) * 1000;
    case 'm':
      return Math.floor(t / 60_000) * 60_000;
    case 'h':
    case 'H':
      return Math.floor(t / 3_600_000) * 3_600_000;
    case 'd':
      return Math.floor(t / DAY) * DAY;
    case 'w': {
      const days = Math.floor(t / DAY);
      const dow = (((days + 3) % 7) + 7) % 7; // Monday first
      return (days - dow) * DAY;
    }
    case 'M': {
      const d = new Date(t);
      return daysFromCivil(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) * DAY;
    }
    case 'y':
      return daysFromCivil(new Date(t).getUTCFullYear(), 1, 1) * DAY;
    default:
      throw new Error(`Unknown date math unit: ${unit}`);
  }
}

const MATH_RE = /([+-])(\d+)([yMwdhHms])|\/([yMwdhHms])/y;

export interface DateBoundOptions {
  /** Minutes east of UTC (`time_zone`). */
  tzOffset?: number;
  /** `format` includes epoch_second (and not epoch_millis). */
  epochSecond?: boolean;
}

/**
 * A date bound: a constant instant, or a function of `now` when it is date math on `now` (so a
 * compiled predicate moves with the clock). `roundUp` is true for `gt` and `lte`: rounding
 * (`/d`) and a bare date go to the last millisecond of their unit. Errors name `field` if given.
 */
export function compileDateBound(value: unknown, roundUp: boolean, opts: DateBoundOptions = {}, field?: string): number | ((now: number) => number) {
  const tz = opts.tzOffset ?? 0;
  const fail = (detail = '') => new Error(`${field === undefined ? '' : `[${field}] `}failed to parse date field [${String(value)}]${detail}`);
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw fail();
    return Math.trunc(opts.epochSecond ? value * 1000 : value);
  }
  if (typeof value !== 'string') throw fail();
  const isNow = value.startsWith('now');
  const sep = isNow ? -1 : value.indexOf('||');
  const anchor = isNow ? 'now' : sep >= 0 ? value.slice(0, sep) : value;
  const math = isNow ? value.slice(3) : sep >= 0 ? value.slice(sep + 2) : '';
  const ops: ({ add: number; unit: string } | { round: string })[] = [];
  let pos = 0;
  while (pos < math.length) {
    MATH_RE.lastIndex = pos;
    const m = MATH_RE.exec(math);
    if (!m) throw fail(': invalid date math');
    ops.push(m[4] !== undefined ? { round: m[4] } : { add: (m[1] === '-' ? -1 : 1) * Number(m[2]), unit: m[3]! });
    pos = MATH_RE.lastIndex;
  }
  // date math works on local wall time, then converts back
  const apply = (base: number): number => {
    let t = base + tz * 60_000;
    for (const op of ops) {
      if ('round' in op) t = roundUp ? addUnit(floorUnit(t, op.round), 1, op.round) - 1 : floorUnit(t, op.round);
      else t = addUnit(t, op.add, op.unit);
    }
    return t - tz * 60_000;
  };
  if (isNow) return apply;
  let base: number;
  if (opts.epochSecond && EPOCH_MILLIS_RE.test(anchor)) base = Math.trunc(Number(anchor) * 1000);
  else if (/^\d{4}$/.test(anchor) || !EPOCH_MILLIS_RE.test(anchor)) base = parseIsoDate(anchor, roundUp && ops.length === 0, tz);
  else base = Math.trunc(Number(anchor));
  if (base !== base) throw fail();
  return apply(base);
}

/** A date bound as epoch milliseconds at `now` (see `compileDateBound`). */
export function parseDateBound(value: unknown, roundUp: boolean, now: number, opts: DateBoundOptions = {}): number {
  const bound = compileDateBound(value, roundUp, opts);
  return typeof bound === 'number' ? bound : bound(now);
}
