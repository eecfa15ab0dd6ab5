/**
 * The configuration files of one process, read in oslo.config's order: every `--config-file` in
 * the order given, then each `--config-dir`'s `*.conf` files in sorted name order; a later file's
 * value wins. Values may refer to others as oslo.config allows (`$option`, `${section.option}`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigFileError, parseIni, type IniOption, type Origin } from './ini.js';

/** Where the configuration files are: `--config-file` (repeatable) and `--config-dir` (repeatable) arguments. */
export interface ConfigFileArguments {
  files: readonly string[];
  dirs: readonly string[];
}

/** A value chosen from the files, with where it was written. */
export interface ChosenValue extends Origin {
  value: string;
}

/** The files read and their options, the last assignment of each key winning. */
export interface ConfigFiles {
  /** Absolute paths of the files read, in the order read. */
  files: string[];
  /** Absolute paths of the `--config-dir` directories. */
  dirs: string[];
  /** Every assignment, in reading order (for the list of options Tariff does not use). */
  options: IniOption[];
  /**
   * The value of `section.key` (section as normalised by {@link normalizeSection}), `$`
   * references substituted; undefined when no file sets it.
   *
   * @throws ConfigFileError when it refers to an option no file sets.
   */
  get(section: string, key: string): ChosenValue | undefined;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigFileError({ file }, `cannot read the configuration file${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`);
  }
}

/** oslo.config compat: a config dir's `*.conf` files, sorted by name; a missing directory is refused. */
function confFilesIn(dir: string): string[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new ConfigFileError({ file: dir }, 'the --config-dir is not a directory');
    names = readdirSync(dir);
  } catch (error) {
    if (error instanceof ConfigFileError) throw error;
    throw new ConfigFileError({ file: dir }, `cannot read the --config-dir (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return names
    .filter((name) => name.endsWith('.conf'))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * oslo.config compat (`ConfigOpts._substitute`, a `string.Template`): `$$` and `\$` are a `$`;
 * `$name` / `${name}` is the option `name` of the same section, else of `[DEFAULT]`;
 * `$section.name` that section's. A `$` followed by no name stays as it is. Tariff does not know
 * CloudKitty's option defaults, so a reference to an option no file sets is refused.
 */
function substitute(value: ChosenValue, section: string, lookUp: (section: string, key: string) => ChosenValue | undefined, seen: string[]): string {
  return value.value
    .replace(/\\\$/g, '$$$$')
    .replace(/\$(?:\$|([_a-z][._a-z0-9]*)|\{([_a-z][._a-z0-9]*)\})/gi, (whole: string, bare?: string, braced?: string) => {
      const name = bare ?? braced;
      if (name === undefined) return '$';
      const dot = name.indexOf('.');
      const candidates: [string, string][] =
        dot > 0 ? [[name.slice(0, dot).toLowerCase() === 'default' ? 'DEFAULT' : name.slice(0, dot).toLowerCase(), name.slice(dot + 1)]] : [];
      candidates.push([section, name], ['DEFAULT', name]);
      const found = candidates.map(([inSection, key]) => ({ inSection, key, chosen: lookUp(inSection, key) })).find((candidate) => candidate.chosen);
      if (found?.chosen === undefined) {
        throw new ConfigFileError(
          value,
          `${whole} refers to an option no configuration file sets (Tariff does not know CloudKitty's defaults): write the value, or '$$' for a '$'`,
        );
      }
      const reference = `${found.inSection}.${found.key}`;
      if (seen.includes(reference)) throw new ConfigFileError(value, `${whole} refers back to itself (${[...seen, reference].join(' → ')})`);
      return substitute(found.chosen, found.inSection, lookUp, [...seen, reference]);
    });
}

/**
 * Reads and parses the files, in oslo.config's order.
 *
 * @throws ConfigFileError naming the file (and line) that cannot be read or parsed.
 */
export function readConfigFiles(arguments_: ConfigFileArguments): ConfigFiles {
  const dirs = arguments_.dirs.map((dir) => resolve(dir));
  const files = [...arguments_.files.map((file) => resolve(file)), ...dirs.flatMap(confFilesIn)];
  const options = files.flatMap((file) => parseIni(readText(file), file));
  const last = new Map<string, IniOption>();
  for (const option of options) last.set(`${option.section}\0${option.key}`, option);
  const raw = (section: string, key: string) => last.get(`${section}\0${key}`);
  return {
    files,
    dirs,
    options,
    get(section, key) {
      const option = raw(section, key);
      if (option === undefined) return undefined;
      return { file: option.file, line: option.line, value: substitute(option, section, raw, [`${section}.${key}`]) };
    },
  };
}

/**
 * oslo.config compat (`ConfigOpts.find_file`, which oslo.policy uses for `policy_file`): the
 * first of `--config-dir` directories, then the folders of the config files (the last file's
 * first), then `~/.cloudkitty/`, `~/`, `/etc/cloudkitty/`, `/etc/` that holds `name` (an absolute
 * `name` is itself); undefined when none does.
 */
export function findFile(configFiles: Pick<ConfigFiles, 'files' | 'dirs'>, name: string, homeDirectory: string): string | undefined {
  const folders = [...configFiles.dirs, ...[...configFiles.files].reverse().map((file) => dirname(file))];
  folders.push(join(homeDirectory, '.cloudkitty'), homeDirectory, '/etc/cloudkitty', '/etc');
  for (const folder of folders) {
    const path = resolve(folder, name);
    try {
      statSync(path);
      return path;
    } catch {
      // not there
    }
  }
  return undefined;
}
