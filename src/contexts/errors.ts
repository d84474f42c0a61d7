/** The errors a context throws when a request breaks one of its rules; messages are fit to show. */

/** A refused admin operation; the message is one line, fit to print as is. */
export class AdminError extends Error {
  override name = 'AdminError';
}

/** A rule of the tag system was broken; the message is fit to show to whoever asked. */
export class TagRuleError extends Error {
  override name = 'TagRuleError';
}
