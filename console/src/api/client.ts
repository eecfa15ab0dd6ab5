/**
 * Calls to Tariff's API from the console, same origin. A fault answers with its message:
 * CloudKitty's WSME fault (`faultstring`) or the v2 modules' `{"message"}`.
 *
 * Every call carries `X-Tariff-Console: 1`: in Keystone mode the session cookie is honoured only
 * with it, and a page of another origin cannot send that header without a CORS preflight Tariff
 * never grants (the CSRF guard). And `X-Tariff-Datetimes: offset`: the console reads instants, so
 * CloudKitty's routes answer it UTC with `+00:00` instead of their naive wall time; and
 * `Prefer: return=representation`: an update answers the updated object with 200 instead of
 * CloudKitty's 302 (api.md §1).
 */

/** The header every console call carries (see the module comment). */
export const CONSOLE_HEADER = 'x-tariff-console';
/** The header asking for datetimes with explicit offsets (see the module comment). */
const DATETIMES_HEADER = 'x-tariff-datetimes';

/**
 * A refused call: the HTTP status, the server's message and, when the answer was a JSON object,
 * the whole fault (e.g. the price list's `problems` beside `faultstring`).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fault?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** Listeners told when a call answers 401 (the session ended): the app shows the login form. */
const unauthenticatedListeners = new Set<() => void>();

/** Calls `listener` whenever an API call answers 401; returns the unsubscribe function. */
export function onUnauthenticated(listener: () => void): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

/**
 * Sends a request with the console's headers and answers its response, not yet read, when its
 * status is a success. `body` may be a `FormData` (the browser writes its multipart type);
 * `signal` aborts the request and the reading of its answer.
 *
 * @throws ApiError for any other status, with the fault the answer carries.
 */
export async function send(
  method: string,
  path: string,
  body?: string | FormData,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  const response = await fetch(path, {
    method,
    headers: { [CONSOLE_HEADER]: '1', [DATETIMES_HEADER]: 'offset', prefer: 'return=representation', ...headers },
    body,
    credentials: 'same-origin',
    signal,
  });
  if (response.ok) return response;
  const text = await response.text();
  if (response.status === 401) unauthenticatedListeners.forEach((listener) => listener());
  let fault: { faultstring?: string; message?: string } | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    fault = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    fault = undefined;
  }
  throw new ApiError(response.status, fault?.faultstring ?? fault?.message ?? `${response.status} ${response.statusText}`, fault);
}

/** Sends a request with the console's header and reads the answer as text. @throws ApiError */
export async function callText(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<string> {
  return (await send(method, path, body, headers)).text();
}

/** Sends a JSON request and reads the JSON answer (none for 204). @throws ApiError */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const text = await callText(
    method,
    path,
    body === undefined ? undefined : JSON.stringify(body),
    body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
  );
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** The message of anything thrown, for an alert. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `H`: the hashmap module's configuration root. */
export const HASHMAP = '/v1/rating/module_config/hashmap';
/** `P`: the pyscripts module's configuration root. */
export const PYSCRIPTS = '/v1/rating/module_config/pyscripts';
