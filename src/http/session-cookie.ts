/**
 * The web console's session cookie (Keystone mode): the user's Keystone token in an `HttpOnly;
 * SameSite=Strict; Path=/` cookie, never readable by scripts, honoured only on requests carrying
 * `X-Tariff-Console: 1`. A page of another origin can neither send that header without a CORS
 * preflight (Tariff grants none) nor get a SameSite=Strict cookie sent: the CSRF guard.
 */
import type { FastifyRequest } from 'fastify';

/** The cookie's name. */
export const SESSION_COOKIE = 'tariff_session';

/** The header every console call carries (console/src/api/client.ts), lowercased as Node gives it. */
export const CONSOLE_HEADER = 'x-tariff-console';

/** Whether the request says it comes from the console's own scripts (`X-Tariff-Console: 1`). */
export function isConsoleRequest(request: FastifyRequest): boolean {
  return request.headers[CONSOLE_HEADER] === '1';
}

/** The session cookie's token, only on a console request (see the module comment); else undefined. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  if (!isConsoleRequest(request)) return undefined;
  const cookies = request.headers.cookie;
  if (cookies === undefined) return undefined;
  for (const pair of cookies.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === SESSION_COOKIE) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** Whether the browser reached Tariff over https: TLS here, or `X-Forwarded-Proto: https` from a proxy. */
function isSecure(request: FastifyRequest): boolean {
  const forwarded = request.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0].trim().toLowerCase();
  return proto === undefined ? request.protocol === 'https' : proto === 'https';
}

/**
 * The `Set-Cookie` value holding `token` for `maxAgeSeconds` (the token's remaining lifetime),
 * `Secure` when the request came over https. A Keystone token is URL-safe base64 (with dots for
 * JWS): no character needs escaping in a cookie value.
 */
export function sessionCookie(request: FastifyRequest, token: string, maxAgeSeconds: number): string {
  const secure = isSecure(request) ? '; Secure' : '';
  return `${SESSION_COOKIE}=${token}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; Path=/; HttpOnly; SameSite=Strict${secure}`;
}

/** The `Set-Cookie` value that makes the browser drop the session cookie. */
export function clearedSessionCookie(request: FastifyRequest): string {
  return sessionCookie(request, '', 0);
}
