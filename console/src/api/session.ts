/**
 * The console's login session (`GET`/`POST`/`DELETE /console/session`, docs/api.md §12): who is
 * logged in and which policy rules allow them, a login and a logout.
 *
 * The OpenAPI document does not describe these routes: the server hides them from
 * `/v1/openapi.json` (they are the console's, not the rating API's), so schema.d.ts has no type for
 * them and their shapes are written here by hand, after src/http/console-session.ts.
 */
import { call } from './client.js';

/**
 * What a login sends to `POST /console/session`; the domains are names (`Default`). Written by
 * hand: the route is not in `/v1/openapi.json`.
 */
export interface LoginCredentials {
  user: string;
  password: string;
  project: string;
  user_domain: string;
  project_domain: string;
}

/**
 * The session as the server describes it (`GET /console/session`, and the login's answer): the
 * mode, the user and project in Keystone mode (by id, and by name when Keystone gave it), and
 * whether each policy rule the console depends on allows this user (all true in noauth mode).
 * Written by hand: the route is not in `/v1/openapi.json`.
 */
export interface SessionBody {
  mode: 'noauth' | 'keystone';
  user?: { id: string; name: string | null };
  project?: { id: string | null; name: string | null };
  allowed: Record<string, boolean>;
}

/** The session path. */
const SESSION = '/console/session';

/**
 * The current session.
 *
 * @throws ApiError 401 in Keystone mode without a valid session (the login form's cue); another
 *   status when the server could not answer.
 */
export function readSession(): Promise<SessionBody> {
  return call<SessionBody>('GET', SESSION);
}

/**
 * Logs in (Keystone mode): Tariff exchanges the credentials with Keystone for a token kept in an
 * HttpOnly cookie, and answers the new session (201).
 *
 * @throws ApiError 401 when Keystone refuses the login (a wrong name or password, or no role in
 *   the project: Keystone does not say which), 400 for a malformed body, 503 when Keystone cannot
 *   be reached.
 */
export function createSession(credentials: LoginCredentials): Promise<SessionBody> {
  return call<SessionBody>('POST', SESSION, credentials);
}

/**
 * Logs out (Keystone mode): the server clears the cookie and revokes the token (204).
 *
 * @throws ApiError 503 when Keystone could not be told: the cookie is cleared all the same, but the
 *   token may not be revoked.
 */
export async function deleteSession(): Promise<void> {
  await call('DELETE', SESSION);
}
