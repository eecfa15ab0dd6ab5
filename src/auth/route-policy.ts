/**
 * Which policy rule guards which route, as CloudKitty's controllers call `policy.authorize`.
 */

/** Routes open without a token (version discovery and the health check), as in CloudKitty's paste pipeline. */
export const PUBLIC_ROUTES = new Set(['/', '/v1', '/v2', '/healthcheck']);

/**
 * Whether a route needs no token: the public ones, and the web console's routes (`/console/…`):
 * its files, since the page itself logs in and every API call it makes carries the token (its
 * session cookie) and meets the policy; and its session (`/console/session`, http/console-session.ts),
 * which reads the token itself: `GET` answers 401 without a valid one, `POST` is the login, `DELETE`
 * the logout, both requiring the console's header.
 */
export function isPublicRoute(route: string): boolean {
  return PUBLIC_ROUTES.has(route) || route === '/console' || route.startsWith('/console/');
}

/** Routes any valid token may read, with no policy rule (Tariff's own OpenAPI document). */
const ANY_TOKEN_ROUTES = new Set(['/v1/openapi.json']);

/**
 * CloudKitty's own resources that Tariff does not serve and forwards to the CloudKitty API behind
 * it (`TARIFF_CLOUDKITTY_API_URL`, http/cloudkitty-forward/): each prefix is registered as itself
 * and `<prefix>/*`, every method. CloudKitty compat: v1's `info`, `report`, `storage` and
 * `collector` controllers and v2's `summary`, `dataframes`, `scope` and `task` blueprints
 * (`cloudkitty/api/v1/controllers/__init__.py`, `cloudkitty/api/v2/__init__.py`); `rating` is
 * Tariff's own, in both versions.
 */
export const CLOUDKITTY_FORWARDED_PREFIXES = [
  '/v1/info',
  '/v1/report',
  '/v1/storage',
  '/v1/collector',
  '/v2/summary',
  '/v2/dataframes',
  '/v2/scope',
  '/v2/task',
] as const;

const FORWARDED_ROUTES = new Set(CLOUDKITTY_FORWARDED_PREFIXES.flatMap((prefix) => [prefix, `${prefix}/*`]));

/**
 * The rule guarding a route (its registered pattern, e.g. `/v1/rating/modules/:module_id`).
 *
 * CloudKitty compat: `rating:module_config` guards every `module_config/*` route and
 * `reload_modules`; `rating:list_modules` / `get_module` / `update_module` the v1 modules routes;
 * `rating:quote` the quote; `v2_rating:*` the v2 modules routes. Tariff's `POST /v2/rating/quote`
 * uses `rating:quote` too. fix: CloudKitty never checks `v2_rating:list_modules` on
 * `GET /v2/rating/modules` (any token lists the modules); Tariff does.
 *
 * Forwarded CloudKitty routes ({@link CLOUDKITTY_FORWARDED_PREFIXES}) need a valid token and no
 * rule: CloudKitty validates the token again and applies its own policy (`report:get_summary`,
 * `summary:get_summary` with the caller's project as target, …), which Tariff's target-less
 * enforcement could not match (api.md "Forwarded routes").
 *
 * @returns the rule name; null for routes any valid token may call; `context_is_admin` for a
 *   route this table does not know (closed by default).
 */
export function policyRuleFor(method: string, route: string): string | null {
  if (ANY_TOKEN_ROUTES.has(route) || FORWARDED_ROUTES.has(route)) return null;
  // Tariff's Prometheus metrics (issue 15) on the API's port: operators' data, admin only. A
  // scraper without a token uses TARIFF_METRICS_PORT, where no token is asked.
  if (route === '/metrics') return 'context_is_admin';
  const v1 = /^\/v1\/(?:rating|billing)(\/.*)$/.exec(route)?.[1];
  if (v1 !== undefined) {
    if (v1 === '/module_config' || v1.startsWith('/module_config/') || v1 === '/reload_modules') return 'rating:module_config';
    if (v1 === '/quote') return 'rating:quote';
    if (v1 === '/modules') return 'rating:list_modules';
    if (v1 === '/modules/:module_id') return method === 'PUT' ? 'rating:update_module' : 'rating:get_module';
  }
  const v2 = /^\/v2\/rating(\/.*)$/.exec(route)?.[1];
  if (v2 !== undefined) {
    if (v2 === '/quote') return 'rating:quote';
    // Tariff's price list is the whole configuration: CloudKitty's rule for configuration guards it.
    if (v2 === '/price_list' || v2 === '/price_list/schema' || v2 === '/price_list/simulation') return 'rating:module_config';
    // Tariff's audit trail of configuration writes (issue 15): as configuration, admin only.
    if (v2 === '/changes') return 'rating:module_config';
    if (v2 === '/modules') return 'v2_rating:list_modules';
    if (v2 === '/modules/:module_id') return method === 'PUT' ? 'v2_rating:update_module' : 'v2_rating:get_module';
  }
  return 'context_is_admin';
}
