/**
 * The login form (Keystone mode): user, password, project and their domains (`Default` unless
 * changed). Tariff exchanges them with Keystone for a token kept in an HttpOnly cookie; the
 * password and the token never reach script-readable storage. A refusal is shown as an alert
 * saying what happened ({@link loginFault}).
 */
import { useState } from 'preact/hooks';
import { ApiError, messageOf } from '../../api/client.js';
import { Fault } from '../../components/fault.js';
import { Notice } from '../../components/notice.js';
import type { LoginCredentials } from '../../api/session.js';
import './login.css';

/**
 * What a refused login means, in words (fix: issue 26, the alert read Keystone's "The request you
 * have made requires authentication." for a wrong password). Keystone answers 401 alike for an
 * unknown user, a wrong password, an unknown project and a user without a role in the project,
 * and does not say which; other faults (Keystone unreachable: 503) keep the server's message.
 */
export function loginFault(error: unknown, credentials: LoginCredentials): string {
  if (error instanceof ApiError && error.status === 401)
    return `The user name or password is wrong, or ${credentials.user} has no role in project ${credentials.project}: Keystone refused the login.`;
  return messageOf(error);
}

/** The domain the OpenStack clients assume when none is named. */
const DEFAULT_DOMAIN = 'Default';

/**
 * The login page. `onLogIn` logs in (throws with the server's message when refused); `notice`
 * says why the form is shown (logged out, session ended).
 */
export function Login({ onLogIn, notice }: { onLogIn: (credentials: LoginCredentials) => Promise<void>; notice?: string }) {
  const [credentials, setCredentials] = useState<LoginCredentials>({
    user: '',
    password: '',
    project: '',
    user_domain: DEFAULT_DOMAIN,
    project_domain: DEFAULT_DOMAIN,
  });
  const [fault, setFault] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const field = (name: keyof LoginCredentials) => ({
    name,
    id: `login-${name}`,
    value: credentials[name],
    required: true,
    onInput: (event: Event) => {
      const value = (event.currentTarget as HTMLInputElement).value;
      setCredentials((current) => ({ ...current, [name]: value }));
    },
  });

  const submit = async (event: Event) => {
    event.preventDefault();
    setFault(undefined);
    setBusy(true);
    try {
      await onLogIn(credentials);
    } catch (error) {
      setFault(loginFault(error, credentials));
      setBusy(false);
    }
  };

  return (
    <>
      <header class="masthead">
        <span class="brand">Tariff</span>
      </header>
      <main>
        <section class="login">
          <h1>Log in</h1>
          <p class="hint">With your OpenStack (Keystone) account; Tariff keeps the token in a cookie scripts cannot read.</p>
          <Notice message={notice} />
          <Fault message={fault} />
          <form onSubmit={(event) => void submit(event)}>
            <label for="login-user">User</label>
            <input {...field('user')} autoComplete="username" autoFocus />
            <label for="login-password">Password</label>
            <input {...field('password')} type="password" autoComplete="current-password" />
            <label for="login-project">Project</label>
            <input {...field('project')} />
            <label for="login-user_domain">User domain</label>
            <input {...field('user_domain')} />
            <label for="login-project_domain">Project domain</label>
            <input {...field('project_domain')} />
            <button type="submit" disabled={busy}>
              {busy ? 'Logging in…' : 'Log in'}
            </button>
          </form>
        </section>
      </main>
    </>
  );
}
