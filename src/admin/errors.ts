/** A refused admin operation; the message is one line, fit to print as is. */
export class AdminError extends Error {
  override name = 'AdminError';
}
