/**
 * The `tariff` command: `tariff serve` (default) runs the API; `tariff db upgrade` applies the
 * migrations and exits. Configuration comes from the environment (see config.ts).
 */
import { ConfigurationError, loadConfig } from './config.js';
import { TariffError } from './rating/common/errors.js';
import { openDatabase } from './database/connection.js';
import { migrateToLatest } from './database/migrate.js';
import { startServer } from './server.js';

const USAGE = `usage: tariff [serve | db upgrade]

  serve        run the rating API (TARIFF_HOST, TARIFF_PORT, TARIFF_DATABASE_URL, TARIFF_LOG_LEVEL)
  db upgrade   apply the database migrations to TARIFF_DATABASE_URL and exit`;

async function serve(): Promise<void> {
  const server = await startServer(loadConfig());
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server.app.log.info({ signal }, 'shutting down');
      server.stop().then(
        () => process.exit(0),
        (error) => {
          server.app.log.error({ err: error }, 'unclean shutdown');
          process.exit(1);
        },
      );
    });
  }
}

async function upgrade(): Promise<void> {
  const config = loadConfig();
  const database = openDatabase(config.databaseUrl);
  try {
    const applied = await migrateToLatest(database);
    console.log(applied.length === 0 ? `${database.description}: already up to date` : `${database.description}: applied ${applied.map((result) => result.migrationName).join(', ')}`);
  } finally {
    await database.close();
  }
}

/** Runs the command line; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const command = argv.join(' ');
  try {
    if (command === '' || command === 'serve') await serve();
    else if (command === 'db upgrade') await upgrade();
    else if (command === '--help' || command === 'help') console.log(USAGE);
    else {
      console.error(USAGE);
      return 2;
    }
    return 0;
  } catch (error) {
    console.error(`tariff: ${error instanceof ConfigurationError || error instanceof TariffError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}
