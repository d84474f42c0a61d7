/**
 * The search page's small helpers (bundled with client.ts): element lookup and creation, the
 * JSON API with the session's key, and the timing of answers to typing.
 */

/** The JSON API's prefix; the bundler writes it in. */
declare const API_PREFIX: string;

export const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<Record<string, string>> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) if (v !== undefined) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}

/** What every error answer may carry (a query error says where it is). */
export interface ErrorFields {
  error?: string;
  parameter?: string;
  position?: { offset: number; line: number; column: number };
  excerpt?: { text: string; at: number };
}

interface ApiAnswer<T> {
  status: number;
  /** The answer's body: `T` on success, the error fields otherwise. */
  body: T & ErrorFields;
}

export const KEY_STORE = 'tagwise-search-key';

/**
 * A GET of the JSON API, or a POST of `send.json` when given; `send.fresh` skips the browser's
 * cache (for answers the page itself has just changed, such as the key user's filters).
 */
export async function api<T>(path: string, params: Record<string, string | number | undefined>, send: { json?: unknown; fresh?: boolean } = {}): Promise<ApiAnswer<T>> {
  const search = new URLSearchParams();
  // An empty value is sent: an empty inline filter part means "nothing", not "the current filter".
  for (const [k, v] of Object.entries(params)) if (v !== undefined) search.set(k, String(v));
  const key = sessionStorage.getItem(KEY_STORE);
  if (key) search.set('key', key);
  const init: RequestInit =
    send.json === undefined
      ? { headers: { accept: 'application/json' }, ...(send.fresh ? { cache: 'no-store' as const } : {}) }
      : { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: JSON.stringify(send.json) };
  const res = await fetch(`${API_PREFIX}${path}?${search}`, init);
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = { error: `HTTP ${res.status}` };
  }
  return { status: res.status, body: body as T & ErrorFields };
}

/** Calls `fn` once the input has paused for `ms`; only the latest call's answer is used. */
export function debounced(ms: number, fn: () => Promise<void>): () => void {
  let timer: number | undefined;
  return () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void fn(), ms);
  };
}

/** A counter that tells a stale answer from the latest one. */
export function latest() {
  let n = 0;
  return () => {
    const mine = ++n;
    return () => mine === n;
  };
}
