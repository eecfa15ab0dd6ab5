/**
 * The configuration of a server command (`serve`, `db upgrade`, `status upgrade check`): the
 * `--config-file` / `--config-dir` arguments, the files' values under the environment, validated
 * by src/config.ts. Order: defaults < configuration files (in reading order) < environment.
 */
import { ConfigurationError, loadConfig, TARIFF_SETTINGS, type TariffConfig } from '../config.js';
import type { ConfigFileArguments } from './files.js';
import { attributeToFile, fileSettings, type FileSettings } from './settings.js';

/** The command line without the configuration-file arguments, and those arguments. */
export interface SplitCommandLine {
  /** The other arguments, in order (`serve`, `status upgrade check --json`). */
  rest: string[];
  configFiles: ConfigFileArguments;
}

/** oslo.config's options naming configuration files, as `--name value` or `--name=value`. */
const FILE_OPTIONS = { '--config-file': 'files', '--config-dir': 'dirs' } as const;

/**
 * Takes `--config-file PATH` and `--config-dir DIR` (each repeatable, `--name=value` too) out of
 * the command line, wherever they are (oslo.config accepts them before or after the command).
 *
 * @throws ConfigurationError for an option without its value.
 */
export function splitConfigFileArguments(argv: readonly string[]): SplitCommandLine {
  const files: string[] = [];
  const dirs: string[] = [];
  const lists = { files, dirs };
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const equals = argument.indexOf('=');
    const name = equals > 0 ? argument.slice(0, equals) : argument;
    if (!(name in FILE_OPTIONS)) {
      rest.push(argument);
      continue;
    }
    const value = equals > 0 ? argument.slice(equals + 1) : argv[(index += 1)];
    if (value === undefined || value === '') throw new ConfigurationError(`${name} needs a path`);
    lists[FILE_OPTIONS[name as keyof typeof FILE_OPTIONS]].push(value);
  }
  return { rest, configFiles: { files, dirs } };
}

/** A validated configuration and what the files gave (for the start-up log). */
export interface LoadedConfiguration {
  config: TariffConfig;
  fileSettings: FileSettings;
}

/**
 * Reads the configuration files, then validates their values under the environment's.
 *
 * @param environment - the process's variables (config.ts `environmentVariables()`).
 * @throws ConfigurationError whose message is one line: `<file>:<line>: <problem>` for a file
 *   that cannot be read or parsed or an option Tariff cannot use; a value config.ts refuses is
 *   named with the file and line it came from.
 */
export function loadConfiguration(configFiles: ConfigFileArguments, environment: NodeJS.ProcessEnv): LoadedConfiguration {
  const settings = fileSettings(configFiles, TARIFF_SETTINGS);
  try {
    return { config: loadConfig(environment, settings.variables), fileSettings: settings };
  } catch (error) {
    if (error instanceof ConfigurationError) throw new ConfigurationError(attributeToFile(error.message, settings, environment));
    throw error;
  }
}
