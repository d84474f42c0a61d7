/** What a test reads of an HTTP answer. */
export interface Answer {
  status: number;
  headers: Headers;
  /** The body parsed as JSON; its text when it is not JSON; null when it is empty. */
  body: any;
}

/** Read `res` whole into an `Answer`. */
export async function readAnswer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, headers: res.headers, body };
}
