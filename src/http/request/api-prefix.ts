/** Where the JSON API lives: Philomena's prefix, which clients have built in. */
export const API_PREFIX = '/api/v1/json';
