/**
 * Route-level hooks added as routes register (`onRoute`): a hook that concerns some routes only
 * runs on those, and no request looks up its route's options (Fastify builds
 * `request.routeOptions` anew at each access).
 */
import type { RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preValidation' | 'preHandler' | 'onSend';

/** Appends `hook` to the route's own `name` hooks (Fastify takes one hook or a list). */
export function appendRouteHook<Name extends HookName>(
  route: RouteOptions,
  name: Name,
  hook: NonNullable<RouteOptions[Name]> extends (infer Hook)[] | infer Hook ? Hook : never,
): void {
  const existing = route[name] as unknown;
  const hooks: unknown[] = existing === undefined ? [] : Array.isArray(existing) ? (existing as unknown[]) : [existing];
  (route as unknown as Record<string, unknown>)[name] = [...hooks, hook];
}
