/**
 * PostgreSQL COPY text format, as both a live `COPY … TO STDOUT` and `pg_restore -f -` emit it:
 * one row a line, columns separated by tabs, `\N` for null, backslash escapes inside values.
 */
import { StringDecoder } from 'node:string_decoder';

/** One COPY field decoded to its text (null for `\N`). */
export function decodeCopyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  let out = '';
  for (let i = 0; i < field.length; i++) {
    const c = field[i]!;
    if (c !== '\\' || i === field.length - 1) {
      out += c;
      continue;
    }
    const n = field[++i]!;
    switch (n) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x': {
        const hex = /^[0-9a-fA-F]{1,2}/.exec(field.slice(i + 1))![0];
        out += String.fromCharCode(parseInt(hex, 16));
        i += hex.length;
        break;
      }
      default:
        if (n >= '0' && n <= '7') {
          const oct = /^[0-7]{1,3}/.exec(field.slice(i))![0];
          out += String.fromCharCode(parseInt(oct, 8));
          i += oct.length - 1;
        } else out += n;
    }
  }
  return out;
}

/** A COPY line (without its newline) decoded into its fields. */
export function decodeCopyLine(line: string): Array<string | null> {
  return line.split('\t').map(decodeCopyField);
}

/**
 * The table and column list of a `COPY public.images (id, "user", …) FROM stdin;` header line
 * written by pg_dump, or undefined when the line is not one.
 */
export function parseCopyHeader(line: string): { table: string; columns: string[] } | undefined {
  const m = /^COPY\s+(?:("(?:[^"]|"")+"|[^\s.(]+)\.)?("(?:[^"]|"")+"|[^\s(]+)\s*\(([^)]*)\)\s+FROM\s+stdin;\s*$/i.exec(line);
  if (!m) return undefined;
  return { table: unquoteIdentifier(m[2]!), columns: m[3]!.split(',').map((c) => unquoteIdentifier(c.trim())) };
}

function unquoteIdentifier(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name;
}

/** The end-of-data marker of a COPY block in a script. */
export const COPY_END = '\\.';

/**
 * The lines of a byte stream (COPY output), without their newlines, in batches (those each chunk
 * completes: a consumer handles millions of lines, and one await per line would cost more than
 * the line). Reads the stream to its end, chunk by chunk, so the producer is never left half-read.
 */
export async function* streamLines(stream: AsyncIterable<Buffer | string>): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of stream) {
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    const lines = text.split('\n');
    rest = lines.pop()!;
    if (lines.length > 0) yield lines;
  }
  rest += decoder.end();
  if (rest !== '') yield [rest];
}
