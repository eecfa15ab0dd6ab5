/**
 * The web console's files (`console/`, built by `npm run build` into `dist/console`), served under
 * `/console/` from the same process and origin as the API, nothing fetched from elsewhere
 * (docs/console-decision.md). Hashed assets are cached for a year; the page itself is revalidated
 * every time, so a new build is seen at once. Any other path under `/console/` is a page of the
 * console's own router: it gets the page; a missing asset stays a 404. Every answer carries the
 * console's security headers (console-headers.ts: Content-Security-Policy, no framing, nosniff).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CONSOLE_NONCE_PLACEHOLDER, withConsoleSecurityHeaders } from './console-headers.js';

/** Where the built console is, beside the compiled server (`dist/console`). */
export const CONSOLE_ROOT = fileURLToPath(new URL('../console/', import.meta.url));

/**
 * Serves the console from `root` when it has been built there; does nothing otherwise (the
 * server from sources, in tests).
 *
 * @returns whether the console is served.
 */
export async function registerConsole(app: FastifyInstance, root: string = CONSOLE_ROOT): Promise<boolean> {
  if (!existsSync(join(root, 'index.html'))) return false;
  await withConsoleSecurityHeaders(app, async (scope) => {
    await registerConsoleFiles(scope, root);
  });
  return true;
}

/**
 * The built files, and the page for any other path under `/console/`. The page is not served as
 * a file: each answer gets its own Content-Security-Policy nonce in place of
 * {@link CONSOLE_NONCE_PLACEHOLDER} (the `csp-nonce` meta element CodeMirror's styles read).
 */
async function registerConsoleFiles(app: FastifyInstance, root: string): Promise<void> {
  const page = readFileSync(join(root, 'index.html'), 'utf8');
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    wildcard: false,
    globIgnore: ['index.html'],
    cacheControl: false,
    setHeaders(reply, file) {
      reply.header('cache-control', file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const sendPage = (reply: FastifyReply) =>
    reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page.replaceAll(CONSOLE_NONCE_PLACEHOLDER, reply.cspNonce.style));
  // `/console/` (and `/console`: the router ignores a trailing slash), then any page of the console's router.
  app.get('/console/', { schema: { hide: true } }, (_request, reply) => sendPage(reply));
  app.get('/console/*', { schema: { hide: true } }, (request, reply) => {
    if (request.url.startsWith('/console/assets/')) return reply.callNotFound();
    return sendPage(reply);
  });
}
