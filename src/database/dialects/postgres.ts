/**
 * PostgreSQL through node-postgres: timestamps stay naive text, NUMERIC stays text, every
 * parameterised statement is prepared once per connection, and connection faults are reported
 * instead of ending the process.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { maskUrlCredentials } from '../../kernel/url-credentials.js';
import type { OpenedDatabase, PoolSettings } from './opening.js';
import type { TariffTables } from '../tables.js';
import { countingConnections } from './connection-counts.js';

const types = {
  // timestamp (1114) and date (1082) stay text: naive wall time, as stored (database/stored-datetimes.ts).
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 1114 || oid === 1082
      ? (text: string) => text
      : (pg.types.getTypeParser(oid, format) as (text: string) => unknown)) as typeof pg.types.getTypeParser,
};

/** Statement names by SQL text; beyond this many texts, new ones run unprepared. */
const statementNames = new Map<string, string>();
const PREPARED_STATEMENT_LIMIT = 1000;

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < PREPARED_STATEMENT_LIMIT) {
    name = `tariff_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Makes a client prepare each parameterised SQL text once (a named statement) and reuse it:
 * PostgreSQL then skips parsing and planning Kysely's queries on every call.
 */
function preparingStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      const name = statementName(config);
      if (name) return query({ name, text: config, values }, callback);
    }
    return query(config, values, callback);
  };
}

/** Severities of an error after which the server has ended the session. */
const SESSION_ENDING_SEVERITIES = new Set(['FATAL', 'PANIC']);

/**
 * Ends a client whose server ended the session under a query (a terminated backend, a server
 * shutting down), so that the pool drops it when it is released. node-postgres learns that the
 * connection is gone only when its socket closes, after the query's error; until then the pool
 * would lend the dead connection to the next query, which would fail too.
 */
function endingLostSessions(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      result.catch((error: { severity?: unknown } | undefined) => {
        if (SESSION_ENDING_SEVERITIES.has(String(error?.severity))) void client.end();
      });
    }
    return result;
  };
}

/** Opens a connection pool to the PostgreSQL database at `url`. */
export function openPostgres(url: string, settings: PoolSettings): OpenedDatabase {
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.poolSize,
    types,
    connectionTimeoutMillis: settings.timeoutMs,
    query_timeout: settings.timeoutMs,
    statement_timeout: settings.timeoutMs,
    idleTimeoutMillis: 30_000,
  });
  // A connection lost while idle in the pool is reported once, by the pool (which repeats its
  // client's 'error'). One lost while lent fails the query or transaction using it, which reports
  // it (the HTTP shell, transaction.ts): its client's errors (the server's message, then the
  // closed socket) are only heard, as an unheard 'error' event would end the process.
  pool.on('error', settings.onPoolError);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    preparingStatements(client);
    endingLostSessions(client);
  });
  const { dialect, counts } = countingConnections(new PostgresDialect({ pool }));
  const db = new Kysely<TariffTables>({ dialect });
  return { db, description: maskUrlCredentials(url), pool: () => ({ inUse: counts.inUse, idle: pool.idleCount, waiting: counts.waiting }) };
}
