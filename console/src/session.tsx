/**
 * Who uses the console. In noauth mode there is no login and every page is open; in Keystone mode
 * the session (a Keystone token in an HttpOnly cookie, never in script-readable storage) says who
 * is logged in and which policy rules allow them, and pages they may not use are hidden.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

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
