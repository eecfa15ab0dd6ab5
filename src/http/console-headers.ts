/**
 * The security headers of the console's pages and session routes (`@fastify/helmet`): a
 * Content-Security-Policy the built console works under (its scripts and styles are files of its
 * own origin, its calls go to the same origin; CodeMirror's style elements carry the page's
 * nonce, its style attributes are allowed), no framing, `nosniff`, no referrer. The API's routes keep
 * their headers as CloudKitty's clients know them. Each answer has its own nonce in `style-src`
 * (and `script-src`): the page hands it to CodeMirror, whose style elements carry it.
 *
 * fix: issue 24, finding 9 — `/console/` sent none of them, so the operators' console could be framed.
 */
import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

const SELF = "'self'";
const NONE = "'none'";

/** What console/index.html holds where the page's nonce goes. */
export const CONSOLE_NONCE_PLACEHOLDER = 'TARIFF_CSP_NONCE';

/** The options of `@fastify/helmet` for the console's routes. */
export const CONSOLE_SECURITY_HEADERS: FastifyHelmetOptions = {
  enableCSPNonces: true,
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: [SELF],
      scriptSrc: [SELF],
      styleSrc: [SELF],
      // CodeMirror writes some of its layout as style attributes (setAttribute, not the CSSOM):
      // allowed, as attributes only. They cannot run script, and img-src/font-src keep them from
      // loading anything from elsewhere.
      styleSrcAttr: ["'unsafe-inline'"],
      // The page's icon is `data:,` (no request for /favicon.ico).
      imgSrc: [SELF, 'data:'],
      fontSrc: [SELF],
      connectSrc: [SELF],
      objectSrc: [NONE],
      baseUri: [NONE],
      formAction: [SELF],
      frameAncestors: [NONE],
    },
  },
  // Both: X-Frame-Options for browsers that predate frame-ancestors.
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  // TLS ends where the operator decides (often a proxy in front): Tariff does not pin browsers to HTTPS.
  strictTransportSecurity: false,
};

/**
 * Registers `routes` in a scope of their own with the console's security headers on every answer
 * of theirs (helmet's hooks stay in that scope: the API's routes never get them).
 */
export async function withConsoleSecurityHeaders(app: FastifyInstance, routes: (scope: FastifyInstance) => Promise<void> | void): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(fastifyHelmet, CONSOLE_SECURITY_HEADERS);
    await routes(scope);
  });
}
