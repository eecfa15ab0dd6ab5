/**
 * The web console's files (`console/`, built by `npm run build` into `dist/console`), served under
 * `/console/` from the same process and origin as the API, nothing fetched from elsewhere
 * (docs/console-decision.md). Hashed assets are cached for a year; the page itself is revalidated
 * every time, so a new build is seen at once. Any other path under `/console/` is a page of the
 * console's own router: it gets the page; a missing asset stays a 404.
 */
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

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
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    wildcard: false,
    cacheControl: false,
    setHeaders(reply, file) {
      reply.header('cache-control', file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.get('/console/*', { schema: { hide: true } }, (request, reply) => {
    if (request.url.startsWith('/console/assets/')) return reply.callNotFound();
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
  return true;
}
