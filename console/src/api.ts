/**
 * Calls to Tariff's API from the console, same origin. A fault answers with its message:
 * CloudKitty's WSME fault (`faultstring`) or the v2 modules' `{"message"}`.
 */

/** A refused call: the HTTP status and the server's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Sends a JSON request and reads the JSON answer (none for 204). @throws ApiError */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const answer: unknown = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) {
    const fault = answer as { faultstring?: string; message?: string } | undefined;
    throw new ApiError(response.status, fault?.faultstring ?? fault?.message ?? `${response.status} ${response.statusText}`);
  }
  return answer as T;
}
