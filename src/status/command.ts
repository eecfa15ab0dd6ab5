/**
 * `tariff status upgrade check [--json]`: oslo.upgradecheck's command, as `cloudkitty-status upgrade
 * check` runs it, with Tariff's checks (checks.ts) and oslo's output and exit codes (report.ts).
 */
import { ConfigurationError } from '../config.js';
import { loadConfiguration } from '../config-file/load.js';
import type { ConfigFileArguments } from '../config-file/files.js';
import { ratingModules } from '../application.js';
import { runUpgradeChecks } from './checks.js';
import { exitCode, reportJson, reportTable } from './report.js';

/** The usage lines of the command, for `tariff --help`. */
export const STATUS_USAGE = `  status upgrade check [--json]
                        check the database, its time zone, the policy file and the CloudKitty API
                        before an upgrade; exit 0 success, 1 warning, 2 failure (oslo.upgradecheck)`;

/**
 * oslo.upgradecheck compat: the exit code when the checks cannot run at all (a configuration that
 * cannot be loaded), "so it's not confused with the upgrade check exit codes".
 */
const CANNOT_RUN = 255;

/**
 * Runs `status …` and returns its exit code: the highest check code (0, 1, 2); 2 (usage) for
 * another subcommand; {@link CANNOT_RUN} with one line on stderr when the configuration cannot be loaded.
 */
export async function runStatusCommand(args: readonly string[], configFiles: ConfigFileArguments, environment: NodeJS.ProcessEnv): Promise<number> {
  const json = args.includes('--json');
  const words = args.filter((arg) => arg !== '--json');
  if (words.join(' ') !== 'upgrade check') {
    console.error(`usage: tariff status upgrade check [--json] [--config-file PATH]...\n${STATUS_USAGE}`);
    return 2;
  }
  let loaded;
  try {
    loaded = loadConfiguration(configFiles, environment);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    console.error(`tariff: ${error.message}`);
    return CANNOT_RUN;
  }
  const results = await runUpgradeChecks(loaded.config, ratingModules().migrations());
  process.stdout.write(json ? reportJson(results) : reportTable(results));
  return exitCode(results);
}
