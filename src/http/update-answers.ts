/**
 * CloudKitty's success codes for updates, without its request storm (api.md §1, issue 23 class 2).
 *
 * CloudKitty compat: `PUT /v1/rating/modules/{id}`, a mapping PUT and a threshold PUT answer 302
 * with `Location` and no body; a script PUT answers 201 with the script. Tempest asserts those
 * codes, after following up to five redirects itself (urllib3), so the answer it ends on must be
 * a 302 too.
 *
 * fix: CloudKitty's `Location` is the URL the PUT went to, and keystoneauth (the `cloudkitty` CLI,
 * Horizon) repeats the same PUT there for every 302, up to 31 times. Tariff's `Location` is the
 * object's URL with `?update_request=<the update's request id>`: a PUT there is the client
 * following the redirect of an update already applied, so it changes nothing, records nothing and
 * answers 302 without a `Location`, where keystoneauth and urllib3 both stop (keystoneauth logs
 * `Failed to redirect request … as new location was not provided.` once). One update is then two
 * requests. A GET there (clients that turn a followed 302 into a GET) reads the object as usual.
 *
 * A client asking `Prefer: return=representation` (RFC 7240; Tariff's console does) gets the
 * updated object with 200 instead, and no redirect at all.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError } from '../kernel/errors.js';
import { appendRouteHook } from './route-hooks.js';

/** Route config key: how the route's successful update answers on the wire. */
export interface UpdateAnswerRouteConfig {
  /** `redirect`: 302, `Location`, no body (modules, mappings, thresholds); `created`: 201 with the object (scripts). */
  updateAnswer?: 'redirect' | 'created';
}

/** The query parameter naming the update a followed redirect comes from. */
export const FOLLOWED_UPDATE_PARAMETER = 'update_request';

const REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** PUT requests that follow the redirect of an applied update. */
const followUps = new WeakSet<FastifyRequest>();

function updateAnswerOf(request: FastifyRequest): UpdateAnswerRouteConfig['updateAnswer'] {
  return (request.routeOptions.config as UpdateAnswerRouteConfig | undefined)?.updateAnswer;
}

/**
 * Takes {@link FOLLOWED_UPDATE_PARAMETER} out of the query before the route's schema sees it
 * (called by the app's `preValidation`). A PUT carrying it on a `redirect` route is remembered as
 * a follow-up, answered 204 by {@link installUpdateAnswers}'s `preHandler`.
 *
 * @throws BadRequestError (the unknown-argument fault) when the parameter is not one request id
 *   (`req-<uuid>`), or comes with a method and route that answer no redirect.
 */
export function takeFollowedUpdate(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown> | undefined;
  const value = query?.[FOLLOWED_UPDATE_PARAMETER];
  if (value === undefined) return;
  // A GET carrying it comes from a client that turned the followed 302 into a GET: read as usual.
  const followsRedirect = request.method === 'GET' || (request.method === 'PUT' && updateAnswerOf(request) === 'redirect');
  if (!followsRedirect || typeof value !== 'string' || !REQUEST_ID.test(value)) {
    throw new BadRequestError(`Unknown argument: "${FOLLOWED_UPDATE_PARAMETER}"`);
  }
  delete query![FOLLOWED_UPDATE_PARAMETER];
  if (request.method === 'PUT') followUps.add(request);
}

/** The object's URL with the follow-up parameter of this update. */
function followUpLocation(request: FastifyRequest, reply: FastifyReply): string | undefined {
  const location = reply.getHeader('location');
  if (typeof location !== 'string') return undefined;
  return `${location}?${FOLLOWED_UPDATE_PARAMETER}=${request.id}`;
}

/** Whether the request asks for the updated object itself (`Prefer: return=representation`, RFC 7240). */
function prefersRepresentation(request: FastifyRequest): boolean {
  const prefer = request.headers.prefer;
  return typeof prefer === 'string' && /(?:^|[\s,;])return=representation(?:$|[\s,;])/i.test(prefer);
}

/**
 * Installs the answers, as route hooks of the routes with `config.updateAnswer` when they register
 * (no other request runs them): a remembered follow-up PUT is answered 302 without `Location` after
 * authentication, policy and validation, before its handler (nothing written); a successful PUT
 * leaves with CloudKitty's code (`redirect`: 302, the follow-up `Location`, no body; `created`:
 * 201, its body and `Location`), unless it asked for the representation (200 with the object, as
 * the handler answered).
 */
export function installUpdateAnswers(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const answer = (route.config as UpdateAnswerRouteConfig | undefined)?.updateAnswer;
    if (answer === undefined) return;
    appendRouteHook(route, 'preHandler', (request, reply, done) => {
      if (followUps.has(request)) {
        reply.code(302).send();
        return;
      }
      done();
    });
    appendRouteHook(route, 'onSend', (request, reply, payload, done) => {
      if (request.method !== 'PUT' || reply.statusCode !== 200 || prefersRepresentation(request)) return done(null, payload);
      if (answer === 'created') {
        reply.code(201);
        return done(null, payload);
      }
      const location = followUpLocation(request, reply);
      if (location === undefined) return done(null, payload);
      reply.code(302).header('location', location).removeHeader('content-type');
      done(null, '');
    });
  });
}
