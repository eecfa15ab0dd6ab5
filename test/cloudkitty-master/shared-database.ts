/**
 * A scratch database for the tests that share one with CloudKitty master, and the Tariff server
 * process serving it: made, (re)started and dropped in one place.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/databases.js';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';
import type { Call } from './rule-set.js';

/** A scratch database of the current kind, with at most one Tariff server process on it. */
export class SharedDatabase {
  /** The running server, once {@link start} was called. */
  server: ServerProcess | undefined;

  private constructor(
    private readonly directory: string,
    private readonly scratch: ScratchDatabase,
  ) {}

  /** Makes an empty scratch database (nothing serves it yet). */
  static async create(): Promise<SharedDatabase> {
    const directory = mkdtempSync(join(tmpdir(), 'tariff-master-'));
    return new SharedDatabase(directory, await createScratchDatabase(directory));
  }

  /** Tariff's URL of the database (`postgres://`, `mysql://`). */
  get url(): string {
    return this.scratch.url;
  }

  /** Starts Tariff on the database with `environment`, stopping the server already running. */
  async start(environment: Record<string, string> = {}): Promise<ServerProcess> {
    await this.server?.stop();
    this.server = await startServerProcess(this.url, environment);
    return this.server;
  }

  /** One JSON request to the running server, for `writeRuleSet`. */
  readonly call: Call = (method, path, body) => {
    if (!this.server) throw new Error('no Tariff server is running on the shared database');
    return callServer(this.server, method, path, body);
  };

  /** Stops the server and drops the database. */
  async dispose(): Promise<void> {
    await this.server?.stop();
    await this.scratch.drop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}
