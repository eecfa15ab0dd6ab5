/**
 * Unversioned routes: API version discovery (`/`, `/v1`, `/v2`) and the OpenAPI document
 * (`/healthcheck` is `healthcheck/route.ts`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { faultResponses } from './fault-schema.js';

function baseUrl(request: FastifyRequest): string {
  const proto = String(request.headers['x-forwarded-proto'] ?? request.protocol)
    .split(',')[0]
    .trim();
  const host = String(request.headers['x-forwarded-host'] ?? request.host)
    .split(',')[0]
    .trim();
  return `${proto}://${host}`;
}

function version(request: FastifyRequest, id: 'v1' | 'v2') {
  return {
    id,
    status: id === 'v1' ? 'CURRENT' : 'EXPERIMENTAL',
    links: [{ href: `${baseUrl(request)}/${id}/`, rel: 'self' }],
    'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.rating-v1+json' }],
  };
}

/** Registers `/`, `/v1`, `/v2` and `/v1/openapi.json`. */
export function registerRootRoutes(app: FastifyInstance): void {
  const hide = { schema: { hide: true } };
  app.get('/', hide, async (request) => ({ versions: [version(request, 'v1'), version(request, 'v2')] }));
  app.get('/v1', hide, async (request) => ({ version: version(request, 'v1') }));
  app.get('/v2', hide, async (request) => ({ version: version(request, 'v2') }));
  // Public routes answer only 200; the document needs a token in Keystone mode (a 401 fault).
  app.get(
    '/v1/openapi.json',
    {
      schema: {
        hide: true,
        response: faultResponses(401),
      },
    },
    async () => app.swagger(),
  );
}
