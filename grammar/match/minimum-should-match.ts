/**
 * OpenSearch's `minimum_should_match` arithmetic (`Queries.calculateMinShouldMatch`): integers,
 * negative integers, percentages, negative percentages and conditional specs (`3<90%`).
 */
export function minimumShouldMatch(optionalClauses: number, spec: number | string): number {
  const calc = (s: string): number => {
    s = s.trim();
    let result = optionalClauses;
    if (s.includes('<')) {
      const specs = s.replace(/\s*<\s*/g, '<').split(/\s+/);
      for (const one of specs) {
        const [bound, rest] = one.split('<') as [string, string | undefined];
        if (rest === undefined || !/^-?\d+$/.test(bound)) throw new Error(`Invalid minimum_should_match: ${s}`);
        if (optionalClauses <= Number(bound)) return result;
        result = calc(rest);
      }
      return result;
    }
    if (s.endsWith('%')) {
      const pct = s.slice(0, -1);
      if (!/^-?\d+$/.test(pct)) throw new Error(`Invalid minimum_should_match: ${s}`);
      const v = (optionalClauses * Number(pct)) / 100;
      result = v < 0 ? optionalClauses + Math.trunc(v) : Math.trunc(v);
    } else {
      if (!/^-?\d+$/.test(s)) throw new Error(`Invalid minimum_should_match: ${s}`);
      const v = Number(s);
      result = v < 0 ? optionalClauses + v : v;
    }
    return result < 0 ? 0 : result;
  };
  return calc(String(spec));
}
