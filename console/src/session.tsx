/**
 * Who uses the console. In noauth mode there is no login and every page is open; in Keystone mode
 * the session (a Keystone token in an HttpOnly cookie, never in script-readable storage) says who
 * is logged in and which policy rules allow them, and pages they may not use are hidden.
 *
 * The server's side is `GET`/`POST`/`DELETE /console/session` (docs/api.md §12), called through
 * api/session.ts.
 */
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { ApiError, messageOf, onUnauthenticated } from './api/client.js';
import { createSession, deleteSession, readSession, type LoginCredentials, type SessionBody } from './api/session.js';

/** The console's view of its user. */
export interface Session {
  /** `noauth`: no login; `keystone`: logged in through the console's login form. */
  mode: 'noauth' | 'keystone';
  /** The user's name and project (Keystone mode). */
  user?: { name: string; project: string };
  /** Whether a policy rule (`rating:module_config`, `rating:quote`, ...) allows this user. */
  can: (rule: string) => boolean;
  /** Ends the session (revokes the token); nothing in noauth mode. */
  logout: () => Promise<void>;
}

/** The noauth session: everything allowed, nobody to log out. */
export const NOAUTH_SESSION: Session = { mode: 'noauth', can: () => true, logout: async () => undefined };

/** The current session, provided by the app. */
export const SessionContext = createContext<Session>(NOAUTH_SESSION);

/** The current session. */
export function useSession(): Session {
  return useContext(SessionContext);
}

/** Where the console stands with its user. */
export type SessionState =
  | { status: 'loading' }
  /** Keystone mode without a valid session: the login form, with why it is shown (`notice`). */
  | { status: 'login'; notice?: string }
  | { status: 'ready'; session: Session }
  /** The session could not be read at all (server unreachable): the message. */
  | { status: 'failed'; message: string };

/**
 * The console's session and how to log in: reads the session once, shows the login form (state
 * `login`) whenever any API call answers 401 (the token expired or was revoked), and back to the
 * pages once logged in.
 */
export function useConsoleSession(): { state: SessionState; logIn: (credentials: LoginCredentials) => Promise<void> } {
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  const logout = useCallback(async () => {
    try {
      await deleteSession();
      setState({ status: 'login', notice: 'You have logged out.' });
    } catch (error) {
      setState({ status: 'login', notice: `Logged out here, but the token may not be revoked: ${messageOf(error)}` });
    }
  }, []);

  const adopt = useCallback((body: SessionBody) => setState({ status: 'ready', session: sessionFrom(body, logout) }), [logout]);

  useEffect(() => {
    const unsubscribe = onUnauthenticated(() =>
      setState((current) =>
        current.status === 'login' ? current : { status: 'login', notice: current.status === 'ready' ? 'Your session has ended: log in again.' : undefined },
      ),
    );
    readSession().then(adopt, (error: unknown) => {
      if (!(error instanceof ApiError && error.status === 401)) setState({ status: 'failed', message: messageOf(error) });
    });
    return unsubscribe;
  }, [adopt]);

  const logIn = useCallback(async (credentials: LoginCredentials) => adopt(await createSession(credentials)), [adopt]);

  return { state, logIn };
}

/** The console's session from the server's description. */
function sessionFrom(body: SessionBody, logout: () => Promise<void>): Session {
  if (body.mode === 'noauth') return NOAUTH_SESSION;
  return {
    mode: 'keystone',
    user: { name: body.user?.name ?? body.user?.id ?? '', project: body.project?.name ?? body.project?.id ?? '' },
    can: (rule) => body.allowed[rule] === true,
    logout,
  };
}
