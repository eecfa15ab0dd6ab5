/**
 * The `tariff` command: `tariff serve` (default) runs the API; `tariff db upgrade` applies the
 * migrations and exits; `tariff price-list …` is the operator's client of a running server
 * (src/client/); `tariff status upgrade check` checks before an upgrade (src/status/). Configuration
 * comes from the environment over `--config-file` (config.ts, config-file/; the client's: client/settings.ts).
 */
import { ConfigurationError, environmentVariables } from './config.js';
import { loadConfiguration, splitConfigFileArguments } from './config-file/load.js';
import type { ConfigFileArguments } from './config-file/files.js';
import { runStatusCommand, STATUS_USAGE } from './status/command.js';
import { TARIFF_VERSION } from './kernel/version.js';
import { TariffError } from './kernel/errors.js';
import { DatabaseOpenError, openDatabase, sqliteFileToBeCreated } from './database/connection.js';
import { MigrationError, upgradeDatabase, type UpgradeReport } from './database/migrate.js';
import { ListenError, startServer } from './server.js';
import { ratingModules } from './application.js';
import { PRICE_LIST_USAGE } from './client/arguments.js';
import { runPriceListCommand } from './client/price-list-commands.js';
import { processEnvironment } from './client/settings.js';
import { POLICY_USAGE, runPolicyCommand } from './auth/policy/command.js';

const USAGE = `usage: tariff [serve | db upgrade [--dry-run] | status upgrade check | policy sample | price-list export|diff|apply|simulate ...] [--config-file PATH]...

  serve                 run the rating API (TARIFF_HOST, TARIFF_PORT, TARIFF_DATABASE_URL, TARIFF_LOG_LEVEL)
  db upgrade            apply the database migrations to TARIFF_DATABASE_URL and exit; a CloudKitty
                        17-22 database has its rating tables upgraded in place
                        (docs/operators/migrating.md)
  db upgrade --dry-run  print what 'db upgrade' would change, changing nothing
${STATUS_USAGE}
  --config-file PATH    read CloudKitty's cloudkitty.conf (and a [tariff] section) under the
                        environment; repeatable, later files win (docs/operators/configuration.md)
  --config-dir DIR      then read DIR/*.conf in name order
  --version, -V         print Tariff's version
${POLICY_USAGE}
${PRICE_LIST_USAGE}`;

/** Past the drain's timeout, how long closing the sandbox and the database may take before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 5000;

/**
 * Serves until SIGTERM or SIGINT, then drains (server.ts) and exits: 0 when every request in
 * flight finished within `TARIFF_SHUTDOWN_TIMEOUT`; 1 when some were cut at the timeout, when
 * closing failed, or when it still had not finished {@link SHUTDOWN_GRACE_MS} after the timeout.
 * A second signal of the same kind ends the process at once (Node's default).
 */
async function serve(configFiles: ConfigFileArguments): Promise<void> {
  const { config, fileSettings } = loadConfiguration(configFiles, environmentVariables());
  const server = await startServer(config, { fileSettings });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server.lifecycleLog.info({ signal }, 'shutting down');
      setTimeout(() => {
        server.app.log.error({ timeout_s: config.shutdownTimeoutMs / 1000 }, 'shutdown did not finish in time; exiting');
        process.exit(1);
      }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref();
      server.stop().then(
        (report) => process.exit(report.cutConnections > 0 ? 1 : 0),
        (error) => {
          server.app.log.error({ err: error }, 'unclean shutdown');
          process.exit(1);
        },
      );
    });
  }
}

function describeState(report: UpgradeReport): string {
  const { state } = report;
  if (state.kind === 'new') return 'an empty database';
  if (state.kind === 'tariff') return "Tariff's tables";
  return `CloudKitty's rating tables (${state.modules.map((module) => `${module.layouts.module}: ${module.layouts[module.at].releases}, revision ${module.layouts[module.at].revision}`).join('; ')})`;
}

/** Prints an upgrade report: what was found, then each step and statement, then Tariff's migrations. */
function printReport(description: string, report: UpgradeReport, dryRun: boolean): void {
  console.log(`${description}: ${describeState(report)}`);
  const verb = dryRun ? 'would' : 'did';
  if (report.adoption.length > 0) {
    console.log(`upgrade of CloudKitty's rating tables to CloudKitty 23's layout (${verb}):`);
    for (const step of report.adoption) {
      console.log(`  - ${step.description}`);
      for (const statement of step.statements) console.log(`      ${statement};`);
    }
  }
  if (report.creates.length > 0) {
    console.log(`new database: the migrations ${dryRun ? 'would create' : 'created'}:`);
    for (const line of report.creates) console.log(`  - ${line}`);
  }
  const zoneSource =
    report.timeZone.source === 'recorded' ? 'recorded in tariff_settings' : `${dryRun ? 'to be recorded' : 'recorded'} by migration 0006_time_zone`;
  console.log(`naive datetime columns (start, end, created_at, deleted) hold wall time in ${report.timeZone.zone} (${zoneSource})`);
  if (report.migrations.length > 0) console.log(`Tariff migrations (${dryRun ? 'pending' : 'applied'}): ${report.migrations.join(', ')}`);
  if (report.adoption.length === 0 && report.migrations.length === 0) console.log('already up to date');
  else if (dryRun) console.log('dry run: nothing was changed');
}

async function upgrade(dryRun: boolean, configFiles: ConfigFileArguments): Promise<void> {
  const { config } = loadConfiguration(configFiles, environmentVariables());
  // Migration statements (DDL on an adopted CloudKitty database) get the start-up's bound, not a request's.
  // A dry run creates nothing: an SQLite file that does not exist yet is read as the empty database it would be.
  const missingFile = dryRun ? sqliteFileToBeCreated(config.databaseUrl) : undefined;
  const database = openDatabase(missingFile === undefined ? config.databaseUrl : 'sqlite::memory:', {
    cloudKittyTimeZone: config.cloudKittyTimeZone,
    timeoutMs: config.databaseStartTimeoutMs,
  });
  const description = missingFile === undefined ? database.description : `sqlite:${missingFile} (does not exist yet; the dry run did not create it)`;
  try {
    printReport(description, await upgradeDatabase(database, ratingModules().migrations(), { dryRun }), dryRun);
  } finally {
    await database.close();
  }
}

/** Runs the command line; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'policy') return runPolicyCommand(argv.slice(1), { stdout: process.stdout, stderr: process.stderr });
  if (argv[0] === 'price-list') {
    return runPriceListCommand(argv.slice(1), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, environment: processEnvironment() });
  }
  try {
    const { rest, configFiles } = splitConfigFileArguments(argv);
    const command = rest.join(' ');
    if (rest[0] === 'status') return await runStatusCommand(rest.slice(1), configFiles, environmentVariables());
    if (command === '' || command === 'serve') await serve(configFiles);
    else if (command === 'db upgrade') await upgrade(false, configFiles);
    else if (command === 'db upgrade --dry-run') await upgrade(true, configFiles);
    else if (command === '--version' || command === '-V') console.log(`tariff ${TARIFF_VERSION}`);
    else if (command === '--help' || command === 'help') console.log(USAGE);
    else {
      console.error(USAGE);
      return 2;
    }
    return 0;
  } catch (error) {
    console.error(
      `tariff: ${error instanceof ConfigurationError || error instanceof ListenError || error instanceof TariffError || error instanceof MigrationError || error instanceof DatabaseOpenError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return 1;
  }
}
