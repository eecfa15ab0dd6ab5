/**
 * CloudKitty's options and Tariff's `[tariff]` section, read from the configuration files, as
 * fallbacks of the `TARIFF_*` environment variables: src/config.ts reads the merged map (the
 * environment wins) and validates every value as it validates the environment's.
 */
import { homedir } from 'node:os';
import { ConfigFileError } from './ini.js';
import { findFile, readConfigFiles, type ChosenValue, type ConfigFileArguments, type ConfigFiles } from './files.js';
import { convertSqlAlchemyUrl, UnusableDatabaseUrlError } from './sqlalchemy-url.js';

/** Where a `TARIFF_*` value came from: the file, the line and the option (`[database] connection`). */
export interface SettingOrigin {
  file: string;
  /** Absent for a default the files imply (`auth_strategy` unset: keystone). */
  line?: number;
  option: string;
}

/** What the configuration files give Tariff. */
export interface FileSettings {
  /** The files read, in order (absolute paths); empty when none was given. */
  files: string[];
  /** `TARIFF_*` name → value, to merge under the environment. */
  variables: Record<string, string>;
  /** `TARIFF_*` name → the option it came from, to name the file and line when config.ts refuses the value. */
  origins: Record<string, SettingOrigin>;
  /** Options of the files Tariff does not use, `section.key`, each once in file order (logged once at start-up). */
  unusedOptions: string[];
  /** Things dropped on the way (a URL's driver-only options), for the same log line. */
  notes: string[];
}

/** The mapped CloudKitty options: `[section] key` → the `TARIFF_*` variable it sets. */
const COPIED_OPTIONS: readonly { section: string; key: string; variable: string }[] = [
  { section: 'keystone_authtoken', key: 'auth_url', variable: 'TARIFF_KEYSTONE_AUTH_URL' },
  { section: 'keystone_authtoken', key: 'username', variable: 'TARIFF_KEYSTONE_USERNAME' },
  { section: 'keystone_authtoken', key: 'password', variable: 'TARIFF_KEYSTONE_PASSWORD' },
  { section: 'keystone_authtoken', key: 'project_name', variable: 'TARIFF_KEYSTONE_PROJECT_NAME' },
  { section: 'keystone_authtoken', key: 'user_domain_name', variable: 'TARIFF_KEYSTONE_USER_DOMAIN_NAME' },
  { section: 'keystone_authtoken', key: 'project_domain_name', variable: 'TARIFF_KEYSTONE_PROJECT_DOMAIN_NAME' },
  { section: 'keystone_authtoken', key: 'user_domain_id', variable: 'TARIFF_KEYSTONE_USER_DOMAIN_ID' },
  { section: 'keystone_authtoken', key: 'project_domain_id', variable: 'TARIFF_KEYSTONE_PROJECT_DOMAIN_ID' },
  // keystonemiddleware's: seconds to wait for Keystone; seconds a validated token is trusted.
  { section: 'keystone_authtoken', key: 'http_connect_timeout', variable: 'TARIFF_KEYSTONE_TIMEOUT' },
  { section: 'keystone_authtoken', key: 'token_cache_time', variable: 'TARIFF_TOKEN_CACHE_TIME' },
  { section: 'oslo_policy', key: 'enforce_new_defaults', variable: 'TARIFF_POLICY_ENFORCE_NEW_DEFAULTS' },
  { section: 'oslo_policy', key: 'enforce_scope', variable: 'TARIFF_POLICY_ENFORCE_SCOPE' },
  { section: 'api', key: 'host_ip', variable: 'TARIFF_HOST' },
  { section: 'api', key: 'port', variable: 'TARIFF_PORT' },
];

/** Options read by {@link fileSettings} beyond {@link COPIED_OPTIONS} (so they are not listed as unused). */
const READ_OPTIONS = [
  'DEFAULT.auth_strategy',
  'DEFAULT.debug',
  'database.connection',
  'keystone_authtoken.www_authenticate_uri',
  'keystone_authtoken.auth_uri',
  'oslo_policy.policy_file',
];

/** The section of Tariff's own settings: `key` is a `TARIFF_*` name without the prefix, lowercased. */
export const TARIFF_SECTION = 'tariff';

/** oslo.config compat (BoolOpt). */
function oslosBoolean(chosen: ChosenValue, option: string): boolean {
  const word = chosen.value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(word)) return true;
  if (['false', '0', 'no', 'off'].includes(word)) return false;
  throw new ConfigFileError(chosen, `${option} must be true or false, got '${chosen.value}'`);
}

/**
 * Reads the files and maps their options to `TARIFF_*` variables:
 *
 * - `[DEFAULT] auth_strategy` → `TARIFF_AUTH` (`noauth` or `keystone`; CloudKitty's default,
 *   `keystone`, when a file is given without it); `debug = true` → `TARIFF_LOG_LEVEL=debug`.
 * - `[database] connection` (an SQLAlchemy URL) → `TARIFF_DATABASE_URL` (sqlalchemy-url.ts).
 * - `[keystone_authtoken]` `auth_url`, `www_authenticate_uri` (or the older `auth_uri`),
 *   `username`, `password`, `project_name`, `user_domain_name` / `user_domain_id`,
 *   `project_domain_name` / `project_domain_id` (an id wins over a name, as in keystoneauth),
 *   `http_connect_timeout`, `token_cache_time` → the `TARIFF_KEYSTONE_*` variables.
 * - `[oslo_policy] policy_file` → `TARIFF_POLICY_FILE`, looked up as oslo.policy does
 *   (files.ts `findFile`); unset, CloudKitty's default name `policy.yaml` is used when found
 *   there. `enforce_new_defaults`, `enforce_scope` → `TARIFF_POLICY_ENFORCE_*`.
 * - `[api] host_ip`, `port` → `TARIFF_HOST`, `TARIFF_PORT`.
 * - `[tariff] name = value` → `TARIFF_NAME`, for every name in `knownVariables`.
 *
 * @param knownVariables - every `TARIFF_*` name src/config.ts reads.
 * @throws ConfigFileError naming the file and line: a file that cannot be read or parsed, an
 *   unknown `[tariff]` key, an `auth_strategy` or `debug` out of range, a connection URL Tariff
 *   cannot serve, a `policy_file` that is nowhere, a `$` reference to an unset option.
 */
export function fileSettings(arguments_: ConfigFileArguments, knownVariables: readonly string[], homeDirectory = homedir()): FileSettings {
  const settings: FileSettings = { files: [], variables: {}, origins: {}, unusedOptions: [], notes: [] };
  if (arguments_.files.length === 0 && arguments_.dirs.length === 0) return settings;
  const files = readConfigFiles(arguments_);
  settings.files = files.files;
  const set = (variable: string, value: string, chosen: ChosenValue | undefined, option: string) => {
    settings.variables[variable] = value;
    if (chosen) settings.origins[variable] = { file: chosen.file, line: chosen.line > 0 ? chosen.line : undefined, option };
  };
  const used = new Set(READ_OPTIONS);
  for (const { section, key, variable } of COPIED_OPTIONS) {
    used.add(`${section}.${key}`);
    const chosen = files.get(section, key);
    if (chosen) set(variable, chosen.value, chosen, `[${section}] ${key}`);
  }
  mapDefaults(files, set);
  mapDatabase(files, settings, set);
  const uri = files.get('keystone_authtoken', 'www_authenticate_uri') ?? files.get('keystone_authtoken', 'auth_uri');
  if (uri) set('TARIFF_KEYSTONE_WWW_AUTHENTICATE_URI', uri.value, uri, '[keystone_authtoken] www_authenticate_uri');
  mapPolicyFile(files, homeDirectory, set);
  const known = new Set(knownVariables);
  for (const option of files.options) {
    if (option.section === TARIFF_SECTION) {
      const variable = `TARIFF_${option.key.toUpperCase()}`;
      if (!known.has(variable) || option.key !== option.key.toLowerCase()) {
        throw new ConfigFileError(
          option,
          `[tariff] ${option.key} is not a Tariff setting (a key is a TARIFF_ variable's name without TARIFF_, lowercased: db_timeout for TARIFF_DB_TIMEOUT)`,
        );
      }
      const chosen = files.get(TARIFF_SECTION, option.key);
      if (chosen) set(variable, chosen.value, chosen, `[tariff] ${option.key}`);
    } else if (!used.has(`${option.section}.${option.key}`)) {
      const name = `${option.section}.${option.key}`;
      if (!settings.unusedOptions.includes(name)) settings.unusedOptions.push(name);
    }
  }
  return settings;
}

type Setter = (variable: string, value: string, chosen: ChosenValue | undefined, option: string) => void;

function mapDefaults(files: ConfigFiles, set: Setter): void {
  const strategy = files.get('DEFAULT', 'auth_strategy');
  if (strategy && strategy.value !== 'noauth' && strategy.value !== 'keystone') {
    throw new ConfigFileError(strategy, `[DEFAULT] auth_strategy must be noauth or keystone, got '${strategy.value}'`);
  }
  if (strategy) set('TARIFF_AUTH', strategy.value, strategy, '[DEFAULT] auth_strategy');
  // CloudKitty compat: auth_strategy defaults to keystone.
  else set('TARIFF_AUTH', 'keystone', { file: files.files[0], line: 0, value: 'keystone' }, "[DEFAULT] auth_strategy unset, CloudKitty's default keystone");
  const debug = files.get('DEFAULT', 'debug');
  if (debug && oslosBoolean(debug, '[DEFAULT] debug')) set('TARIFF_LOG_LEVEL', 'debug', debug, '[DEFAULT] debug');
}

function mapDatabase(files: ConfigFiles, settings: FileSettings, set: Setter): void {
  const connection = files.get('database', 'connection');
  if (!connection) return;
  try {
    const converted = convertSqlAlchemyUrl(connection.value);
    set('TARIFF_DATABASE_URL', converted.url, connection, '[database] connection');
    if (converted.dropped.length > 0) settings.notes.push(`[database] connection: driver options not used: ${converted.dropped.join(', ')}`);
  } catch (error) {
    if (error instanceof UnusableDatabaseUrlError) throw new ConfigFileError(connection, `[database] connection: ${error.message}`);
    throw error;
  }
}

function mapPolicyFile(files: ConfigFiles, homeDirectory: string, set: Setter): void {
  const policyFile = files.get('oslo_policy', 'policy_file');
  // CloudKitty compat (cloudkitty/common/policy.py): the default file name is policy.yaml.
  const found = findFile(files, policyFile?.value ?? 'policy.yaml', homeDirectory);
  if (found) set('TARIFF_POLICY_FILE', found, policyFile, '[oslo_policy] policy_file');
  else if (policyFile) {
    throw new ConfigFileError(
      policyFile,
      `[oslo_policy] policy_file '${policyFile.value}' is in none of the folders oslo.policy looks in (the --config-dir, the config files' folders, ~/.cloudkitty, ~, /etc/cloudkitty, /etc)`,
    );
  }
}

/**
 * The message of a configuration error, with the file and line of the value it names when that
 * value came from a file: `TARIFF_PORT must be ...` becomes
 * `/etc/cloudkitty/cloudkitty.conf:40: [api] port: TARIFF_PORT must be ...`. Other messages are
 * returned as they are.
 */
export function attributeToFile(message: string, settings: Pick<FileSettings, 'origins'>, environment: Readonly<Record<string, string | undefined>>): string {
  for (const variable of message.match(/TARIFF_[A-Z0-9_]+/g) ?? []) {
    const origin = settings.origins[variable];
    if (origin && !environment[variable]) return `${origin.file}${origin.line === undefined ? '' : `:${origin.line}`}: ${origin.option}: ${message}`;
  }
  return message;
}
