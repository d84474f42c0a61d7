/**
 * A plain text table for terminals: columns padded to their widest cell, a rule under the header,
 * the columns in `leftColumns` (by default the first, which names the row) left-aligned and the
 * others, which hold figures, right-aligned.
 */
export function table(header: string[], rows: readonly (readonly (string | number)[])[], leftColumns: readonly number[] = [0]): string {
  const cells = rows.map((r) => r.map(String));
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: readonly string[]) =>
    r.map((cell, c) => (leftColumns.includes(c) ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}
