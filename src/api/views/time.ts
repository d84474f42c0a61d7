/** Timestamps as the API writes them: RFC 3339 in UTC at second precision, `YYYY-MM-DDTHH:MM:SSZ`. */
export function formatTime(value: Date): string;
export function formatTime(value: Date | null | undefined): string | null;
export function formatTime(value: Date | null | undefined): string | null {
  if (value == null) return null;
  return `${value.toISOString().slice(0, 19)}Z`;
}
