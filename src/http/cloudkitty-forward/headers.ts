/**
 * Which headers cross the forwarding, each way: the end-to-end ones (the token, the request id,
 * `Accept`, `Content-Type`, `Content-Length`, …) pass; the hop-by-hop ones (RFC 9110 §7.6.1) and
 * those a `Connection` header names stay on their own connection.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { SESSION_COOKIE, sessionTokenOf } from '../session-cookie.js';

/**
 * Hop-by-hop headers, plus `expect` (Node answers `100-continue` itself before the handler runs,
 * and undici refuses to send it) and `http2-settings`.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'expect',
  'http2-settings',
]);

/** `headers` without the hop-by-hop ones and those its `Connection` header names (a new object). */
export function endToEndHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    [headers.connection ?? '']
      .flat()
      .join(',')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!HOP_BY_HOP.has(lower) && !named.has(lower)) kept[lower] = value;
  }
  return kept;
}

/**
 * The headers sent to CloudKitty for `request` (`headers`: what reply-from prepared, with the
 * `Host` of CloudKitty): the end-to-end ones; `X-Openstack-Request-Id` set to Tariff's request id
 * (the caller's when well-formed: CloudKitty logs it as the global request id); the caller's
 * address appended to `X-Forwarded-For`; `X-Forwarded-Host` and `X-Forwarded-Proto` kept when
 * given, else the caller's `Host` and scheme. The web console's session cookie is Tariff's alone:
 * it is taken out of `Cookie`, and a console request authenticated by it (http/console-session.ts)
 * carries its token to CloudKitty as `X-Auth-Token`, which CloudKitty reads.
 */
export function upstreamRequestHeaders(request: FastifyRequest, headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept = endToEndHeaders(headers);
  if (kept['x-auth-token'] === undefined) {
    const sessionToken = sessionTokenOf(request);
    if (sessionToken !== undefined) kept['x-auth-token'] = sessionToken;
  }
  if (kept.cookie !== undefined) {
    const others = [kept.cookie]
      .flat()
      .join('; ')
      .split(';')
      .filter((pair) => pair.split('=')[0].trim() !== SESSION_COOKIE && pair.trim() !== '');
    if (others.length > 0) kept.cookie = others.map((pair) => pair.trim()).join('; ');
    else delete kept.cookie;
  }
  kept['x-openstack-request-id'] = request.id;
  const forwardedFor = request.headers['x-forwarded-for'];
  const address = request.socket.remoteAddress ?? request.ip;
  kept['x-forwarded-for'] = forwardedFor ? `${[forwardedFor].flat().join(', ')}, ${address}` : address;
  kept['x-forwarded-host'] ??= request.headers.host;
  kept['x-forwarded-proto'] ??= request.protocol;
  return kept;
}
