/**
 * Database faults (issue 3), against a private PostgreSQL or MariaDB server that the test stops
 * and starts for real. Start-up waits for the database, saying so. Under a load of concurrent
 * creates the server is stopped (cleanly, then by a crash): every request sent while it is down
 * fails within the configured timeout with 503 and a fault body, nothing else, and the process
 * lives on; when the server is back the same process answers 2xx again; and every write it
 * acknowledged is in the database, read there directly rather than through the API.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseHas, databaseServerKind, type PerServer } from '../helpers/database-kind.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { startPrivateDatabase, type PrivateDatabase, type StopMode } from '../helpers/private-database.js';
import { callServer, spawnServerProcess, waitForOutput, waitUntilServing, type ServerProcess } from '../helpers/server.js';

const HASHMAP = '/v1/rating/module_config/hashmap';
const kind = testDatabaseKind();
const DATABASE_TIMEOUT_SECONDS = 2;
/** How long an answer may take while the database is away: the timeout plus some slack. */
const ANSWER_LIMIT_MS = (DATABASE_TIMEOUT_SECONDS + 1.5) * 1000;
const CONCURRENT_CLIENTS = 4;
/**
 * How long the test waits for the load to do what it waits for (writes acknowledged before the
 * stop, answers to requests sent during the outage): a fraction of a second normally, longer on a
 * machine busy with other tests.
 */
const LOAD_LIMIT_MS = 30_000;

/** One answer of the server, with when its request was sent and answered. */
interface TimedAnswer {
  status: number;
  body: any;
  sentAt: number;
  answeredAt: number;
}

/** Sends one JSON request; a transport failure is an answer with status 0 and the error as body. */
async function call(server: ServerProcess, method: string, path: string, body?: unknown): Promise<TimedAnswer> {
  const sentAt = Date.now();
  try {
    const answer = await callServer(server, method, path, body);
    return { status: answer.status, body: answer.body, sentAt, answeredAt: sentAt + answer.milliseconds };
  } catch (error) {
    return { status: 0, body: String(error), sentAt, answeredAt: Date.now() };
  }
}

/** The mapping ids among `ids` (not empty) that are stored in the database at `url`, read with each server's driver. */
const STORED_MAPPING_IDS: PerServer<(url: string, ids: string[]) => Promise<Set<string>>> = {
  async postgres(url, ids) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const result = await client.query<{ mapping_id: string }>('select mapping_id from hashmap_mappings where mapping_id = any($1)', [ids]);
      return new Set(result.rows.map((row) => row.mapping_id));
    } finally {
      await client.end();
    }
  },
  async mysql(url, ids) {
    const connection = await createConnection(url);
    try {
      const [rows] = await connection.query('select mapping_id from hashmap_mappings where mapping_id in (?)', [ids]);
      return new Set((rows as Array<{ mapping_id: string }>).map((row) => row.mapping_id));
    } finally {
      await connection.end();
    }
  },
};

/** The mapping ids among `ids` that are stored in `database`, read with the driver itself. */
async function storedMappingIds(database: PrivateDatabase, ids: string[]): Promise<Set<string>> {
  return ids.length === 0 ? new Set() : STORED_MAPPING_IDS[database.kind](database.url, ids);
}

/** Waits until `condition` holds, checking every 50 ms; throws naming `what` after `limitMs`. */
async function waitUntil(condition: () => boolean, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs / 1000} s`);
    await sleep(50);
  }
}

/** Concurrent clients creating mappings in a loop until stopped, recording every answer. */
interface MappingLoad {
  answers: TimedAnswer[];
  /** The ids of the mappings the server answered 201 for. */
  acknowledged: string[];
  stop(): Promise<void>;
}

function startCreatingMappings(server: ServerProcess, fieldId: string, valuePrefix: string): MappingLoad {
  const answers: TimedAnswer[] = [];
  const acknowledged: string[] = [];
  let counter = 0;
  let running = true;
  const client = async () => {
    while (running) {
      counter += 1;
      const answer = await call(server, 'POST', `${HASHMAP}/mappings`, { field_id: fieldId, value: `${valuePrefix}${counter}`, cost: '1.5' });
      answers.push(answer);
      if (answer.status === 201) acknowledged.push(answer.body.mapping_id);
      else await sleep(50);
    }
  };
  const clients = Promise.all(Array.from({ length: CONCURRENT_CLIENTS }, client));
  return {
    answers,
    acknowledged,
    async stop() {
      running = false;
      await clients;
    },
  };
}

describe.runIf(databaseHas('server'))(`a private ${kind} server stops and starts again`, () => {
  let database: PrivateDatabase;
  let server: ServerProcess | undefined;
  let fieldId: string;

  beforeAll(async () => {
    database = await startPrivateDatabase(databaseServerKind());
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await database?.destroy();
  });

  it('start-up waits for the database, saying so, then serves', async () => {
    await database.stop();
    server = await spawnServerProcess(database.url, {
      TARIFF_DB_TIMEOUT: String(DATABASE_TIMEOUT_SECONDS),
      // Long enough for the database to start on a machine busy with other tests.
      TARIFF_DB_START_TIMEOUT: '60',
      TARIFF_LOG_LEVEL: 'info',
    });
    // The database starts only once the server has said that it waits for it.
    await waitForOutput(server, 'waiting for the database');
    await database.start();
    await waitUntilServing(server);
    expect(server.output()).toContain('waiting for the database');

    const service = await call(server, 'POST', `${HASHMAP}/services`, { name: 'compute' });
    expect(service.status).toBe(201);
    const field = await call(server, 'POST', `${HASHMAP}/fields`, { name: 'flavor', service_id: service.body.service_id });
    expect(field.status).toBe(201);
    fieldId = field.body.field_id;
  }, 120_000);

  it.each<StopMode>(['clean', 'crash'])(
    'under load, a %s stop answers 503 in time, then 2xx again, losing no acknowledged write',
    async (mode) => {
      expect(fieldId, 'the field the start-up test created').toBeDefined();
      const live = server!;
      // A failed earlier case may have left the database stopped.
      if (!database.running()) await database.start();
      const load = startCreatingMappings(live, fieldId, `${mode}-`);
      let stoppedAt: number;
      let restartedAt: number;
      let recoveredAfterMs: number | undefined;
      try {
        // The database stops under load, once writes are being acknowledged.
        await waitUntil(() => load.acknowledged.length >= 2 * CONCURRENT_CLIENTS, LOAD_LIMIT_MS, 'writes acknowledged before the stop');
        await database.stop(mode);
        stoppedAt = Date.now();
        // It stays down past the timeout, and until more requests sent since the stop are answered than there are clients.
        await sleep((DATABASE_TIMEOUT_SECONDS + 2) * 1000);
        await waitUntil(
          () => load.answers.filter((answer) => answer.sentAt >= stoppedAt).length > CONCURRENT_CLIENTS,
          LOAD_LIMIT_MS,
          'answers to requests sent during the outage',
        );
        restartedAt = Date.now();
        await database.start();

        // The same process answers 2xx again within a few seconds of the database.
        const recoveryDeadline = Date.now() + 10_000;
        while (recoveredAfterMs === undefined && Date.now() < recoveryDeadline) {
          const probe = await call(live, 'GET', `${HASHMAP}/services`);
          if (probe.status === 200) recoveredAfterMs = Date.now() - restartedAt;
          else await sleep(100);
        }
      } finally {
        await load.stop();
      }
      const { answers, acknowledged } = load;
      expect(
        recoveredAfterMs,
        `the server answers 2xx again; its output:\n${live.output().slice(-3000)}\nthe database output:\n${database.log().slice(-2000)}`,
      ).toBeDefined();
      expect(live.child.exitCode).toBeNull();

      // Only 201 or 503 ever; every 503 is the fault body, in time.
      expect(answers.filter((answer) => answer.status !== 201 && answer.status !== 503)).toEqual([]);
      const failures = answers.filter((answer) => answer.status === 503);
      for (const failure of failures) {
        expect(failure.body).toMatchObject({ faultcode: 'Server', debuginfo: null });
        expect(failure.body.faultstring).toMatch(/^The database is unavailable/);
        expect(failure.answeredAt - failure.sentAt).toBeLessThan(ANSWER_LIMIT_MS);
      }
      // Everything sent while the server was down failed, and there was load during the outage.
      const sentDuringOutage = answers.filter((answer) => answer.sentAt >= stoppedAt && answer.sentAt < restartedAt);
      expect(sentDuringOutage.length).toBeGreaterThan(CONCURRENT_CLIENTS);
      expect(sentDuringOutage.filter((answer) => answer.status !== 503)).toEqual([]);

      const after = await call(live, 'POST', `${HASHMAP}/mappings`, { field_id: fieldId, value: `${mode}-after`, cost: 1 });
      expect(after.status).toBe(201);
      acknowledged.push(after.body.mapping_id);
      expect(acknowledged.length).toBeGreaterThan(1);

      const stored = await storedMappingIds(database, acknowledged);
      expect(
        acknowledged.filter((id) => !stored.has(id)),
        'acknowledged mappings missing from the database',
      ).toEqual([]);
    },
    120_000,
  );
});
