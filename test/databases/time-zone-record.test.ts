/**
 * One time zone with CloudKitty (docs/operators/deploying-next-to-cloudkitty.md): the zone of the naive datetime columns is recorded in
 * `tariff_settings` when Tariff creates or adopts a database, and a process configured with
 * another `TARIFF_CLOUDKITTY_TIMEZONE` refuses it, on start and in `tariff db upgrade` (dry run
 * too), naming both zones; a database migrated before the record existed holds UTC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/database/connection.js';
import { migrateToLatest } from '../../src/database/migrate.js';
import { TimeZoneMismatchError } from '../../src/database/time-zone-record.js';
import { ratingModules } from '../../src/application.js';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/databases.js';
import { startTestApp } from '../helpers/app.js';
import { runTariffWith, startServerProcess } from '../helpers/server.js';

/** `tariff ARGS` on `databaseUrl` with `TARIFF_CLOUDKITTY_TIMEZONE=zone`. */
function tariff(databaseUrl: string, zone: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runTariffWith(databaseUrl, { TARIFF_CLOUDKITTY_TIMEZONE: zone }, ...args);
}

async function recorded(databaseUrl: string): Promise<unknown[]> {
  const database = openDatabase(databaseUrl);
  try {
    return (await sql`select name, value from tariff_settings`.execute(database.db)).rows;
  } finally {
    await database.close();
  }
}

/** Migrates `databaseUrl` as `tariff serve` does, with `zone` configured. */
async function migrateIn(databaseUrl: string, zone: string): Promise<void> {
  const database = openDatabase(databaseUrl, { cloudKittyTimeZone: zone });
  try {
    await migrateToLatest(database, ratingModules().migrations());
  } finally {
    await database.close();
  }
}

describe('the recorded time zone', () => {
  let directory: string;
  let scratch: ScratchDatabase;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-zone-record-'));
    scratch = await createScratchDatabase(directory);
  });
  afterAll(async () => {
    await scratch?.drop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('an unknown zone is a configuration error', () => {
    expect(() => loadConfig({ TARIFF_CLOUDKITTY_TIMEZONE: 'Mars/Olympus_Mons' })).toThrow(ConfigurationError);
    expect(() => loadConfig({ TARIFF_CLOUDKITTY_TIMEZONE: 'Mars/Olympus_Mons' })).toThrow(
      /TARIFF_CLOUDKITTY_TIMEZONE must be an IANA time zone name .* got 'Mars\/Olympus_Mons'/,
    );
    expect(loadConfig({}).cloudKittyTimeZone).toBe('UTC');
    expect(loadConfig({ TARIFF_CLOUDKITTY_TIMEZONE: 'Etc/UTC' }).cloudKittyTimeZone).toBe('UTC');
  });

  it('db upgrade --dry-run on a new database shows the zone it will record', async () => {
    const dryRun = await tariff(scratch.url, 'Asia/Tokyo', 'db', 'upgrade', '--dry-run');
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain('hold wall time in Asia/Tokyo (to be recorded by migration 0006_time_zone)');
  });

  it('a new database records the configured zone', async () => {
    const t = await startTestApp({ databaseUrl: scratch.url, config: { cloudKittyTimeZone: 'Asia/Tokyo' } });
    await t.close();
    expect(await recorded(scratch.url)).toEqual([{ name: 'cloudkitty_timezone', value: 'Asia/Tokyo' }]);
    const dryRun = await tariff(scratch.url, 'Asia/Tokyo', 'db', 'upgrade', '--dry-run');
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain('hold wall time in Asia/Tokyo (recorded in tariff_settings)');
  });

  it('another configured zone is refused on start and by db upgrade, naming both zones, changing nothing', async () => {
    const refusal = await migrateIn(scratch.url, 'UTC').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(TimeZoneMismatchError);
    expect((refusal as Error).message).toMatch(
      /records time zone Asia\/Tokyo for its naive datetimes, but TARIFF_CLOUDKITTY_TIMEZONE is UTC: set TARIFF_CLOUDKITTY_TIMEZONE=Asia\/Tokyo/,
    );
    expect((refusal as Error).message).not.toContain('\n');

    const server = await startServerProcess(scratch.url, { TARIFF_CLOUDKITTY_TIMEZONE: 'Europe/Paris' }).then(
      async (started) => {
        await started.stop();
        return 'started';
      },
      (error: Error) => error.message,
    );
    expect(server).toContain('records time zone Asia/Tokyo for its naive datetimes, but TARIFF_CLOUDKITTY_TIMEZONE is Europe/Paris');

    for (const args of [
      ['db', 'upgrade'],
      ['db', 'upgrade', '--dry-run'],
    ]) {
      const upgrade = await tariff(scratch.url, 'Europe/Paris', ...args);
      expect(upgrade.code).toBe(1);
      expect(upgrade.stderr.trim().split('\n')).toHaveLength(1);
      expect(upgrade.stderr).toMatch(
        /^tariff: .* records time zone Asia\/Tokyo .* TARIFF_CLOUDKITTY_TIMEZONE is Europe\/Paris: set TARIFF_CLOUDKITTY_TIMEZONE=Asia\/Tokyo/,
      );
    }
    expect(await recorded(scratch.url)).toEqual([{ name: 'cloudkitty_timezone', value: 'Asia/Tokyo' }]);
  });

  it('a database an earlier Tariff migrated (before 0006) holds UTC', async () => {
    const database = openDatabase(scratch.url);
    try {
      await sql`drop table tariff_settings`.execute(database.db);
      await sql`delete from tariff_migration where name = '0006_time_zone'`.execute(database.db);
    } finally {
      await database.close();
    }
    const refusal = await migrateIn(scratch.url, 'Asia/Tokyo').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(TimeZoneMismatchError);
    expect((refusal as Error).message).toContain(
      'was written by an earlier Tariff in UTC for its naive datetimes, but TARIFF_CLOUDKITTY_TIMEZONE is Asia/Tokyo',
    );
    await migrateIn(scratch.url, 'UTC');
    expect(await recorded(scratch.url)).toEqual([{ name: 'cloudkitty_timezone', value: 'UTC' }]);
  });
});
