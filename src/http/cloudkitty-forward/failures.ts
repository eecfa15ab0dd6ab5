/**
 * What a caller is answered when CloudKitty's API cannot answer a forwarded request: a 502 when
 * there is no connection or it is lost before the answer, a 504 when the answer does not come in
 * time; each with the fault body and the setting to look at, and a metrics kind.
 */
import type { ForwardErrorKind } from '../../kernel/metrics.js';
import type { CloudKittyApiSettings } from '../../config.js';

/** A failed forwarding, as answered and counted. */
export interface ForwardFailure {
  status: 502 | 504;
  kind: Exclude<ForwardErrorKind, 'answer_cut'>;
  /** The fault's `faultstring`: what failed and the setting to look at, never CloudKitty's address. */
  message: string;
  /** The underlying error code (`ECONNREFUSED`, `UND_ERR_CONNECT_TIMEOUT`, …), for the log. */
  code: string;
}

/** Connection failures before any byte was exchanged, with their words. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
};

/** The first `code` in `error`'s cause chain (reply-from wraps undici's errors). */
function codeOf(error: unknown): string {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth += 1) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string' && !code.startsWith('FST_REPLY_FROM')) return code;
    // AggregateError (a host with several addresses): the first address's reason.
    if (current instanceof AggregateError && current.errors.length > 0) return codeOf(current.errors[0]);
  }
  return 'unknown';
}

/**
 * Classifies the error reply-from reports for `method path`.
 *
 * @param settings - for the timeouts named in the message.
 */
export function forwardFailure(error: unknown, method: string, path: string, settings: CloudKittyApiSettings): ForwardFailure {
  const code = codeOf(error);
  const what = `${method} ${path}`;
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return {
      status: 504,
      kind: 'timeout',
      code,
      message: `CloudKitty's API did not answer ${what} within ${settings.timeoutMs / 1000} s (TARIFF_CLOUDKITTY_TIMEOUT).`,
    };
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return {
      status: 502,
      kind: 'unreachable',
      code,
      message: `CloudKitty's API is unreachable: no connection within ${settings.connectTimeoutMs / 1000} s (TARIFF_CLOUDKITTY_CONNECT_TIMEOUT); ${what} was not forwarded.`,
    };
  }
  const reason = UNREACHABLE[code];
  if (reason) {
    return {
      status: 502,
      kind: 'unreachable',
      code,
      message: `CloudKitty's API is unreachable: ${reason} (${code}, TARIFF_CLOUDKITTY_API_URL); ${what} was not forwarded.`,
    };
  }
  return {
    status: 502,
    kind: 'connection_lost',
    code,
    message: `CloudKitty's API closed the connection before answering ${what} (${code}).`,
  };
}
