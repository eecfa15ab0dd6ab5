/**
 * `GET` / `HEAD /healthcheck`, as oslo.middleware's healthcheck app answers it (which CloudKitty
 * mounts and operators script against): 200 (HEAD: 204) when every check passes, else 503; the
 * body as plain text, HTML or JSON by `Accept`; `?detailed` for those allowed to see details.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError } from '../../kernel/errors.js';
import type { HealthCheck } from './checks.js';
import { htmlBody, jsonBody, plainBody, type NamedResult } from './bodies.js';
import { negotiateMediaType } from './negotiation.js';

/** What {@link registerHealthcheck} needs. */
export interface HealthcheckOptions {
  /** The checks, in the order their reasons are listed (`disable_by_file` first, then `database`). */
  checks: readonly HealthCheck[];
  /**
   * Whether the caller of a `?detailed` request may see the details; when not, the plain answer is
   * given (never a 401 or 403: a load balancer must always get 200 or 503). Always true in noauth mode.
   */
  mayShowDetails: (request: FastifyRequest) => boolean | Promise<boolean>;
}

const OFFERS = ['text/plain', 'text/html', 'application/json'] as const;
const CONTENT_TYPES: Readonly<Record<(typeof OFFERS)[number], string>> = {
  'text/plain': 'text/plain; charset=UTF-8',
  'text/html': 'text/html; charset=UTF-8',
  'application/json': 'application/json; charset=UTF-8',
};

/**
 * `?detailed`, `?detailed=true|1|yes|on` asks for details, `false|0|no|off` or no parameter does not.
 *
 * @throws BadRequestError (400) for any other value, or the parameter given twice.
 */
function detailedAsked(request: FastifyRequest): boolean {
  const value = (request.query as Record<string, unknown> | undefined)?.detailed;
  if (value === undefined) return false;
  const word = typeof value === 'string' ? value.toLowerCase() : undefined;
  if (word === '' || word === 'true' || word === '1' || word === 'yes' || word === 'on') return true;
  if (word === 'false' || word === '0' || word === 'no' || word === 'off') return false;
  throw new BadRequestError(`Invalid input for field/attribute detailed. Value: '${String(value)}'. Expected true or false.`);
}

/** Runs every check; each check turns its own failures into an unavailable result. */
async function runChecks(checks: readonly HealthCheck[]): Promise<NamedResult[]> {
  return Promise.all(checks.map(async (check) => ({ ...(await check.run()), check: check.name })));
}

/**
 * Registers `GET` and `HEAD /healthcheck`.
 *
 * oslo.middleware compat: GET answers 200 or 503 with one reason a line (`OK`,
 * `DISABLED BY FILE`), HTML or JSON when `Accept` prefers them (never a 406); HEAD answers 204 or
 * 503 without a body. `?detailed` (Tariff's; oslo has a `detailed` option instead) adds each
 * check's details to the HTML and JSON forms, for callers `mayShowDetails` allows.
 */
export function registerHealthcheck(app: FastifyInstance, { checks, mayShowDetails }: HealthcheckOptions): void {
  app.route({
    method: ['GET', 'HEAD'],
    url: '/healthcheck',
    schema: { hide: true },
    handler: async (request, reply) => {
      const detailed = detailedAsked(request) && request.method === 'GET' && (await mayShowDetails(request));
      const results = await runChecks(checks);
      const healthy = results.every((result) => result.available);
      if (request.method === 'HEAD')
        return reply
          .code(healthy ? 204 : 503)
          .type(CONTENT_TYPES['text/plain'])
          .send();
      const mediaType = negotiateMediaType(request.headers.accept, OFFERS);
      const body =
        mediaType === 'text/html' ? htmlBody(results, detailed) : mediaType === 'application/json' ? jsonBody(results, detailed) : plainBody(results);
      return reply
        .code(healthy ? 200 : 503)
        .type(CONTENT_TYPES[mediaType])
        .send(body);
    },
  });
}
