/**
 * A real Keystone for the Keystone-mode tests, started by `setup.sh` in a state directory, and
 * what the tests do with it: log users in, revoke tokens, pause it (a Keystone that does not
 * answer) and release it. Most files use the run's shared Keystone (shared.ts); {@link startKeystone}
 * starts one of the file's own.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../helpers/server.js';

const run = promisify(execFile);
const HERE = fileURLToPath(new URL('.', import.meta.url));

/** The users setup.sh creates. */
export type KeystoneUser = 'ADMIN' | 'TARIFF' | 'MEMBER' | 'READER';

/** The `cloudkitty` CLI's options for a password login of `user` on `project` through the catalog of `env`'s region, as an operator types them. */
export function passwordClientArguments(env: Record<string, string>, user: KeystoneUser, project: string): string[] {
  return [
    '--os-auth-type',
    'password',
    '--os-auth-url',
    env.KEYSTONE_URL,
    '--os-username',
    env[`KEYSTONE_${user}_USER`],
    '--os-password',
    env[`KEYSTONE_${user}_PASSWORD`],
    '--os-project-name',
    project,
    '--os-user-domain-name',
    'Default',
    '--os-project-domain-name',
    'Default',
    '--os-region-name',
    env.KEYSTONE_REGION,
  ];
}

/** What {@link passwordLogin} may change. */
export interface LoginOptions {
  /** Keystone's `scope` (default: the user's project: admin's, service's, or demo). */
  scope?: Record<string, unknown>;
  /** Keep the catalog in the answer (default: `?nocatalog`). */
  catalog?: boolean;
  timeoutMs?: number;
}

/**
 * A password login of one of env.sh's users at the test Keystone (`POST /v3/auth/tokens`, domain
 * Default): the token and the answer's body (`token`, with `catalog` when asked).
 *
 * @throws Error naming the user, Keystone's status and answer, when it refuses.
 */
export async function passwordLogin(env: Record<string, string>, user: KeystoneUser, options: LoginOptions = {}): Promise<{ token: string; body: any }> {
  const project = user === 'ADMIN' ? env.KEYSTONE_ADMIN_PROJECT : user === 'TARIFF' ? env.KEYSTONE_SERVICE_PROJECT : env.KEYSTONE_DEMO_PROJECT;
  const response = await fetch(`${env.KEYSTONE_URL}/auth/tokens${options.catalog ? '' : '?nocatalog'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: env[`KEYSTONE_${user}_USER`], password: env[`KEYSTONE_${user}_PASSWORD`], domain: { id: 'default' } } },
        },
        scope: options.scope ?? { project: { name: project, domain: { id: 'default' } } },
      },
    }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  if (response.status !== 201)
    throw new Error(`login of ${user} (${JSON.stringify(options.scope ?? project)}) failed: ${response.status} ${await response.text()}`);
  return { token: response.headers.get('x-subject-token')!, body: await response.json() };
}

/** A running Keystone and its env.sh values (`KEYSTONE_URL`, `KEYSTONE_ADMIN_USER_ID`, ...). */
export interface Keystone {
  env: Record<string, string>;
  /** A project-scoped token of the user (admin: project admin; member, reader: demo). */
  token(user: KeystoneUser): Promise<string>;
  revoke(token: string): Promise<void>;
  /** SIGSTOP / SIGCONT every Keystone process: it accepts connections but never answers. */
  pause(): void;
  resume(): void;
  /**
   * The test file is done with it: a private Keystone ({@link startKeystone}) is stopped; the
   * run's shared one (shared.ts) keeps running and gets back what this handle changed.
   */
  release(): Promise<void>;
}

/**
 * Runs setup.sh for the state directory `directory` (a new Keystone, or the one already running
 * there, reused) and returns the values of the env.sh it wrote.
 *
 * @throws Error with setup.sh's last output when Keystone does not start.
 */
export async function runSetup(directory: string, settings: { tokenExpiration: number; ratingEndpointUrl: string }): Promise<Record<string, string>> {
  const environment = {
    ...process.env,
    KEYSTONE_DIR: directory,
    // A port the system picked, unless the directory has its own already: setup.sh's own choice (the
    // first free from 5000) is made ~15 s before uwsgi binds it, and Keystones starting at once
    // picked the same.
    ...(existsSync(join(directory, 'port')) ? {} : { KEYSTONE_PORT: String(await freePort()) }),
    KEYSTONE_TOKEN_EXPIRATION: String(settings.tokenExpiration),
    RATING_ENDPOINT_URL: settings.ratingEndpointUrl,
  };
  let envFile: string;
  try {
    envFile = (await run('bash', [join(HERE, 'setup.sh')], { env: environment, timeout: 900_000 })).stdout.trim().split('\n').pop()!;
  } catch (error: any) {
    await stopKeystone(directory);
    throw new Error(`Keystone did not start: ${error.stderr?.slice(-3000) ?? error}`);
  }
  return readKeystoneEnvironment(envFile);
}

/** Stops the Keystone running in `directory` (stop.sh), `purge` also removing the directory; never throws. */
export async function stopKeystone(directory: string, options: { purge?: boolean } = {}): Promise<void> {
  await run('bash', [join(HERE, 'stop.sh'), ...(options.purge ? ['--purge'] : []), directory], { timeout: 60_000 }).catch(() => undefined);
}

/** The `KEYSTONE_*` and `RATING_*` values an env.sh exports. */
export function readKeystoneEnvironment(envFile: string): Record<string, string> {
  const printed = execFileSync('bash', ['-c', `. '${envFile}' && env -0`], { encoding: 'utf8' });
  const env: Record<string, string> = {};
  for (const line of printed.split('\0')) {
    const at = line.indexOf('=');
    if (at > 0 && /^(KEYSTONE_|RATING_)/.test(line)) env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

/** The calls on the Keystone `env` describes; `release` is what the handle's owner does when done with it. */
export function keystoneHandle(env: Record<string, string>, release: () => Promise<void>): Keystone {
  const processes = () => {
    const master = readFileSync(env.KEYSTONE_PID_FILE, 'utf8').trim();
    const children = execFileSync('pgrep', ['-P', master], { encoding: 'utf8' }).split('\n').filter(Boolean);
    return [master, ...children].map(Number);
  };
  const keystone: Keystone = {
    env,
    async token(user) {
      return (await passwordLogin(env, user)).token;
    },
    async revoke(token) {
      const admin = await keystone.token('ADMIN');
      const response = await fetch(`${env.KEYSTONE_URL}/auth/tokens`, { method: 'DELETE', headers: { 'x-auth-token': admin, 'x-subject-token': token } });
      if (response.status !== 204) throw new Error(`revoking failed: ${response.status}`);
    },
    pause() {
      for (const pid of processes()) process.kill(pid, 'SIGSTOP');
    },
    resume() {
      for (const pid of processes()) process.kill(pid, 'SIGCONT');
    },
    release,
  };
  return keystone;
}

/**
 * Starts a Keystone of the test file's own, in a new state directory; `tokenExpiration` in
 * seconds; `ratingEndpointUrl` is put in the catalog. For a file that needs what the run's shared
 * Keystone (shared.ts) cannot give, such as short-lived tokens.
 */
export async function startKeystone(options: { tokenExpiration: number; ratingEndpointUrl: string }): Promise<Keystone> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-keystone-'));
  const env = await runSetup(directory, options);
  const keystone = keystoneHandle(env, async () => {
    try {
      keystone.resume();
    } catch {
      // already gone
    }
    await stopKeystone(directory);
  });
  return keystone;
}

/** Tariff's environment for Keystone mode against this Keystone, as its service user. */
export function keystoneModeEnvironment(keystone: Keystone, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TARIFF_AUTH: 'keystone',
    TARIFF_KEYSTONE_AUTH_URL: keystone.env.KEYSTONE_URL,
    TARIFF_KEYSTONE_USERNAME: keystone.env.KEYSTONE_TARIFF_USER,
    TARIFF_KEYSTONE_PASSWORD: keystone.env.KEYSTONE_TARIFF_PASSWORD,
    TARIFF_KEYSTONE_PROJECT_NAME: keystone.env.KEYSTONE_SERVICE_PROJECT,
    TARIFF_KEYSTONE_TIMEOUT: '2',
    ...extra,
  };
}
