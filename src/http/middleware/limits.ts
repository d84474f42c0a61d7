/**
 * Request limits (usage terms 2–4): every request to the API and to the stored files is charged
 * to its caller — the user of its `key`, else its IP address — against one of the caller's
 * budgets (`RATE_LIMIT_*`):
 *
 * - `search` for `/search…`, costing `searchCost(q, page, per_page)` (wildcards and deep pages
 *   cost more); a reverse-image search costs `REVERSE_SEARCH_COST`;
 * - `read` for everything else, and for stored files (`/img/…`, avatars, badge and tag images)
 *   at `FILE_COST` each, since one page of results loads many thumbnails;
 * - `POST /images` is charged to `read` here: the submission route itself charges the `upload`
 *   budget, per key and per IP, once the request is well-formed (charging it here as well would
 *   count every submission twice).
 *
 * Over budget: `429 {"error":"Too many requests: slow down and retry after N seconds"}` with
 * `Retry-After: N`. Repeated within `BAN_WINDOW_SECONDS`, a temporary ban (`BAN_SECONDS`) is
 * stored. A banned caller — automatically or by an operator (`npm run admin -- ban …`, by user
 * or by IP range) — gets `403 {"error":"Banned: <reason>","reason":…,"expires_at":<RFC 3339 or
 * null>}` on every limited route. `RATE_LIMITS=off` turns the budgets off, not the bans.
 * `/healthz`, `/readyz` and `/metrics` are never limited. A request with a body refused again
 * before its wait is over (or while banned) gets its refusal after a pause of about a second,
 * with `Connection: close` (see `refuse`).
 *
 * Client address: `clientAddress` (src/http/client-address.ts), the socket's peer or, with
 * `TRUST_PROXY=true`, the last entry of `X-Forwarded-For`.
 */
import type { ActiveBan } from '../../contexts/users/active-bans.js';
import { callerIdentity, searchCost, type Budget, type Caller, type LimitDecision, type RequestLimiter } from '../../limits/index.js';
import type { BanCache } from '../../caches/ban-cache.js';
import type { Metrics } from '../../observability/metrics.js';
import { API_PREFIX } from '../api-prefix.js';
import type { AppContext } from '../context.js';
import { readPage, readPerPage } from '../schemas/params.js';
import { tarpitOf } from '../tarpit.js';
import { carriesBody } from './body-limit.js';
import { clientAddress } from '../client-address.js';
import { toPaging } from './paging.js';
import { formatTime } from '../views/time.js';
import { queryParam } from '../request-query.js';

/** Cost of one stored file against the `read` budget. */
export const FILE_COST = 0.2;
/** Cost of a reverse-image search (a download and an image analysis) against `search`. */
export const REVERSE_SEARCH_COST = 5;

const FILE_PREFIXES = ['/img/', '/avatars/', '/badge-img/', '/tag-img/'];

export interface LimitsOptions {
  /** `api`: under `/api/v1/json`, after key auth; `files`: the stored files, at the top level. */
  scope: 'api' | 'files';
  /** null when limits are off (`RATE_LIMITS=off`): only bans are checked, with `bans`. */
  limiter: RequestLimiter | null;
  /** Ban lookups when there is no limiter. */
  bans?: BanCache;
  /** Honour `X-Forwarded-For` (`TRUST_PROXY`). */
  trustProxy: boolean;
  metrics?: Metrics;
}

interface Charge {
  budget: Budget;
  cost: number;
}

/** Which budget a request spends and how much of it; undefined for unlimited paths. */
export function chargeFor(path: string, query: (name: string) => string | undefined): Charge | undefined {
  if (path.startsWith(`${API_PREFIX}/`) || path === API_PREFIX) {
    const rest = path.slice(API_PREFIX.length);
    if (rest === '/search/reverse') return { budget: 'search', cost: REVERSE_SEARCH_COST };
    if (rest === '/search' || rest.startsWith('/search/')) {
      const { page, perPage } = toPaging({ page: readPage(query('page')), per_page: readPerPage(query('per_page')) });
      return { budget: 'search', cost: searchCost(query('q'), page, perPage) };
    }
    return { budget: 'read', cost: 1 };
  }
  if (FILE_PREFIXES.some((p) => path.startsWith(p))) return { budget: 'read', cost: FILE_COST };
  return undefined;
}

export function bannedResponse(c: AppContext, ban: ActiveBan): Response {
  return c.json({ error: `Banned: ${ban.reason}`, reason: ban.reason, expires_at: formatTime(ban.validUntil) }, 403);
}

export function tooManyResponse(c: AppContext, retryAfterSeconds: number): Response {
  c.header('Retry-After', String(retryAfterSeconds));
  return c.json({ error: `Too many requests: slow down and retry after ${retryAfterSeconds} seconds` }, 429);
}

/**
 * A refusal of a request that sends a body goes through the app's tarpit (src/http/tarpit.ts): at
 * once the first time, after a pause and closing the connection when the caller comes back before
 * its wait is over, so that resending a large body does not make the server read it at full speed.
 * A refusal without a body is answered at once: it costs no more than its headers did, and holding
 * it would take a place under the tarpit's shared cap and make a keep-alive client open a new
 * connection for each request.
 */
function refuse(c: AppContext, caller: Caller, waitSeconds: number, answer: () => Response): Response | Promise<Response> {
  return carriesBody(c) ? tarpitOf(c.get('deps')).hold(c, callerIdentity(caller), waitSeconds, answer) : answer();
}

/** Seconds left of a ban (a permanent one never ends). */
const banSecondsLeft = (ban: ActiveBan) => (ban.validUntil ? Math.max(0, (ban.validUntil.getTime() - Date.now()) / 1000) : Number.POSITIVE_INFINITY);

/** A request's limits: undefined to go on, else the refusal's answer (a promise only when the answer needs a lookup). */
export type LimitCheck = (c: AppContext) => Response | Promise<Response | undefined> | undefined;

/**
 * The limits of one scope, or undefined when nothing is ever checked (no limiter and no bans).
 * Under `/api/v1/json` it must run after key auth (it charges the key's user); for stored files
 * the request frame runs it (no key there: the address is charged).
 */
export function requestLimits(options: LimitsOptions): LimitCheck | undefined {
  const { limiter, bans, trustProxy, metrics, scope } = options;
  if (!limiter && !bans) return undefined;
  const refuseBanned = (c: AppContext, caller: Caller, charge: Charge, ban: ActiveBan) => {
    metrics?.rateLimitRejections.inc({ budget: charge.budget, outcome: 'banned' });
    return refuse(c, caller, banSecondsLeft(ban), () => bannedResponse(c, ban));
  };
  const decide = (c: AppContext, caller: Caller, charge: Charge, decision: LimitDecision) => {
    if (decision.kind === 'ok') return undefined;
    if (decision.kind === 'banned') return refuseBanned(c, caller, charge, decision.ban);
    metrics?.rateLimitRejections.inc({ budget: charge.budget, outcome: decision.kind });
    const wait = decision.retryAfterSeconds;
    return refuse(c, caller, wait, () => tooManyResponse(c, wait));
  };
  return (c) => {
    if (c.req.method === 'OPTIONS') return undefined;
    if ((scope === 'api') !== c.req.path.startsWith(API_PREFIX)) return undefined;
    const charge = chargeFor(c.req.path, (name) => queryParam(c, name));
    if (!charge) return undefined;
    const user = c.get('user');
    const ip = clientAddress(c, trustProxy);
    const caller: Caller = {};
    if (user) caller.userId = user.id;
    if (ip) caller.ip = ip;
    if (limiter) return limiter.check(caller, charge.budget, charge.cost).then((decision) => decide(c, caller, charge, decision));
    // a caller whose answer is remembered passes without a promise
    const known = bans!.known(caller);
    if (known) return known.ban ? refuseBanned(c, caller, charge, known.ban) : undefined;
    return bans!.lookup(caller).then((ban) => (ban ? refuseBanned(c, caller, charge, ban) : undefined));
  };
}
