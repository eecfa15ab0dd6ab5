/**
 * `tariff status upgrade check`: what `cloudkitty-status upgrade check` checks before an upgrade,
 * for Tariff. Each check reads only; none changes the database.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { TariffConfig } from '../config.js';
import { openDatabase, type Database } from '../database/connection.js';
import { inspectDatabase, UnrecognisedDatabaseError, type DatabaseState } from '../database/adoption/inspect.js';
import { storedTimeZone, SETTINGS_TABLE } from '../database/time-zone-record.js';
import { upgradeDatabase, type TariffMigration } from '../database/migrate.js';
import { PolicyEnforcer } from '../auth/policy/enforcer.js';
import { KeystoneClient } from '../auth/keystone.js';
import { CheckCode, type CheckResult } from './report.js';
import { maskUrlCredentials } from '../kernel/url-credentials.js';

/** oslo.upgradecheck compat (`common_checks.check_policy_json`): the check's name and message, word for word. */
const POLICY_JSON_CHECK = 'Policy File JSON to YAML Migration';
const POLICY_JSON_MESSAGE =
  'Your policy file is JSON-formatted which is deprecated. You need to switch to YAML-formatted file. ' +
  'Use the ``oslopolicy-convert-json-to-yaml`` tool to convert the existing JSON-formatted files to YAML in a ' +
  'backwards-compatible manner: https://docs.openstack.org/oslo.policy/latest/cli/oslopolicy-convert-json-to-yaml.html.';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `promise`, or a rejection after `ms` naming what did not answer. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the database holds, in words. */
function describeState(state: DatabaseState): string {
  if (state.kind === 'new') return "no rating tables yet: 'tariff serve' creates them";
  if (state.kind === 'tariff') return "Tariff's tables";
  return `CloudKitty's rating tables (${state.modules.map((module) => `${module.layouts.module}: ${module.layouts[module.at].releases}`).join('; ')})`;
}

/**
 * The database and the time zone of its stored datetimes.
 *
 * Decisions: unreachable, or a layout Tariff does not recognise (unknown tables, a half-finished
 * upgrade) is a failure; CloudKitty 17-22 rating tables are a warning (`tariff serve` refuses them
 * until `tariff db upgrade` has run: a step of the upgrade, not a fault); Tariff's own pending
 * migrations are a success with details, since `tariff serve` applies them on start. The time
 * zone fails when the database records another zone than `TARIFF_CLOUDKITTY_TIMEZONE`.
 */
async function databaseChecks(config: TariffConfig, migrations: Readonly<Record<string, TariffMigration>>): Promise<CheckResult[]> {
  const DATABASE = 'Database';
  const TIME_ZONE = 'Time zone of stored datetimes';
  let database: Database;
  try {
    database = openDatabase(config.databaseUrl, { poolSize: 1, timeoutMs: config.databaseTimeoutMs, cloudKittyTimeZone: config.cloudKittyTimeZone });
  } catch (error) {
    return [
      { name: DATABASE, code: CheckCode.Failure, details: messageOf(error) },
      { name: TIME_ZONE, code: CheckCode.Failure, details: 'not checked: the database cannot be opened' },
    ];
  }
  try {
    let state: DatabaseState;
    try {
      await within(sql`select 1`.execute(database.db), config.databaseTimeoutMs, database.description);
      state = await inspectDatabase(database);
    } catch (error) {
      const unrecognised = error instanceof UnrecognisedDatabaseError;
      return [
        { name: DATABASE, code: CheckCode.Failure, details: unrecognised ? messageOf(error) : `${database.description} is unreachable: ${messageOf(error)}` },
        {
          name: TIME_ZONE,
          code: CheckCode.Failure,
          details: `not checked: the database ${unrecognised ? 'holds tables Tariff does not recognise' : 'did not answer'}`,
        },
      ];
    }
    const stored = await storedTimeZone(database, state);
    const configured = database.storedDateTimes.zone.name;
    const timeZone: CheckResult =
      stored.zone === configured
        ? {
            name: TIME_ZONE,
            code: CheckCode.Success,
            details: `naive datetimes hold wall time in ${configured} (${stored.source === 'recorded' ? `recorded in ${SETTINGS_TABLE}` : "not recorded yet: the next 'tariff serve' or 'tariff db upgrade' records it"})`,
          }
        : {
            name: TIME_ZONE,
            code: CheckCode.Failure,
            details:
              `the database ${stored.source === 'recorded' ? 'records' : 'was written by an earlier Tariff in'} time zone ${stored.zone}, but TARIFF_CLOUDKITTY_TIMEZONE is ${configured}: ` +
              `set it to ${stored.zone}, or convert the stored times first (docs/operators/deploying-next-to-cloudkitty.md: One time zone with CloudKitty)`,
          };
    const outdated = state.kind === 'cloudkitty' ? state.modules.filter((module) => module.at === 'before') : [];
    if (outdated.length > 0) {
      const details = `${database.description}: ${describeState(state)}. Stop CloudKitty, back the database up and run 'tariff db upgrade' before 'tariff serve', which refuses this layout`;
      return [{ name: DATABASE, code: CheckCode.Warning, details }, timeZone];
    }
    if (timeZone.code !== CheckCode.Success)
      return [{ name: DATABASE, code: CheckCode.Success, details: `${database.description}: ${describeState(state)}` }, timeZone];
    const report = await upgradeDatabase(database, migrations, { dryRun: true });
    const pending =
      state.kind === 'tariff' && report.migrations.length > 0 ? `; 'tariff serve' applies the pending migrations ${report.migrations.join(', ')} on start` : '';
    const upToDate = state.kind === 'tariff' && pending === '' ? ', up to date' : '';
    return [{ name: DATABASE, code: CheckCode.Success, details: `${database.description}: ${describeState(state)}${upToDate}${pending}` }, timeZone];
  } finally {
    await database.close();
  }
}

/**
 * oslo.upgradecheck compat (`check_policy_json`): a policy file whose text is JSON fails, with
 * oslo's message. (CloudKitty's `cloudkitty-status` reports it as a Failure, exit code 2.)
 */
function policyJsonCheck(config: TariffConfig): CheckResult {
  if (config.policyFile === undefined) return { name: POLICY_JSON_CHECK, code: CheckCode.Success, details: null };
  try {
    JSON.parse(readFileSync(config.policyFile, 'utf8'));
  } catch {
    return { name: POLICY_JSON_CHECK, code: CheckCode.Success, details: null };
  }
  return { name: POLICY_JSON_CHECK, code: CheckCode.Failure, details: POLICY_JSON_MESSAGE };
}

/** Tariff's: the policy file can be read and every rule parses (else `tariff serve` refuses to start); references to undefined rules warn. */
function policyRulesCheck(config: TariffConfig): CheckResult {
  const name = 'Policy rules';
  if (config.policyFile === undefined) return { name, code: CheckCode.Success, details: 'no policy file: the default rules apply' };
  try {
    const enforcer = new PolicyEnforcer({ policyFile: config.policyFile });
    if (enforcer.warnings.length > 0) return { name, code: CheckCode.Warning, details: `${config.policyFile}: ${enforcer.warnings.join('; ')}` };
    return { name, code: CheckCode.Success, details: `${config.policyFile} parses` };
  } catch (error) {
    return { name, code: CheckCode.Failure, details: messageOf(error) };
  }
}

/** The CloudKitty API Tariff forwards to (`TARIFF_CLOUDKITTY_API_URL`): its root answers within `TARIFF_CLOUDKITTY_TIMEOUT`. */
async function cloudKittyCheck(config: TariffConfig): Promise<CheckResult> {
  const name = 'CloudKitty API';
  const { url, timeoutMs } = config.cloudKitty;
  if (url === undefined) {
    return { name, code: CheckCode.Success, details: "TARIFF_CLOUDKITTY_API_URL is not set: CloudKitty's routes Tariff does not serve answer 404" };
  }
  const started = Date.now();
  try {
    const response = await fetch(`${url}/`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    const answered = `${maskUrlCredentials(url)}/ answered ${response.status} in ${Date.now() - started} ms`;
    return response.status < 500 ? { name, code: CheckCode.Success, details: answered } : { name, code: CheckCode.Failure, details: answered };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return { name, code: CheckCode.Failure, details: `${maskUrlCredentials(url)}/ did not answer: ${messageOf(cause ?? error)}` };
  }
}

/**
 * Keystone mode: Tariff's service user logs in to Keystone (and the token is revoked again)
 * within `TARIFF_KEYSTONE_TIMEOUT`, as every token validation needs it to.
 */
async function keystoneCheck(config: TariffConfig): Promise<CheckResult> {
  const name = 'Keystone';
  const settings = config.keystone;
  if (settings === undefined) return { name, code: CheckCode.Success, details: 'auth_strategy is noauth: no Keystone to check' };
  const client = new KeystoneClient(settings);
  const who = `service user ${settings.username} (project ${settings.projectName}) at ${maskUrlCredentials(settings.authUrl)}`;
  try {
    const issued = await client.issueToken({
      userName: settings.username,
      password: settings.password,
      projectName: settings.projectName,
      userDomainName: settings.userDomainName,
      projectDomainName: settings.projectDomainName,
      userDomainId: settings.userDomainId,
      projectDomainId: settings.projectDomainId,
    });
    await client.revokeToken(issued.token).catch(() => false);
    return { name, code: CheckCode.Success, details: `${who} logged in` };
  } catch (error) {
    return { name, code: CheckCode.Failure, details: `${who} cannot log in: ${messageOf(error)}` };
  }
}

/**
 * Runs every check, in the order printed: Database, Time zone of stored datetimes, Policy File
 * JSON to YAML Migration, Policy rules, Keystone, CloudKitty API.
 *
 * @param migrations - the registered rating modules' migrations (application.ts `ratingModules()`).
 */
export async function runUpgradeChecks(config: TariffConfig, migrations: Readonly<Record<string, TariffMigration>>): Promise<CheckResult[]> {
  const [database, keystone, cloudKitty] = await Promise.all([databaseChecks(config, migrations), keystoneCheck(config), cloudKittyCheck(config)]);
  return [...database, policyJsonCheck(config), policyRulesCheck(config), keystone, cloudKitty];
}
