/**
 * Server processes on one scratch database of the run's kind (`TARIFF_TEST_DATABASE`), for a
 * describe block: made before its tests, stopped and the database dropped after them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from './databases.js';
import { startServerProcess, type ServerProcess } from './server.js';

/** What {@link useScratchServers} made; filled in by its `beforeAll`. */
export interface ScratchServers {
  scratch: ScratchDatabase;
  /** The server processes, in the order started (all at once). */
  servers: ServerProcess[];
}

/**
 * Registers the `beforeAll` that makes a scratch database (in a temporary directory named after
 * `label`) and starts `count` server processes on it with `environment`, and the `afterAll` that
 * stops them, drops the database and removes the directory.
 */
export function useScratchServers(label: string, count = 1, environment: Record<string, string> = {}): ScratchServers {
  const made = { servers: [] } as unknown as ScratchServers;
  let directory: string | undefined;
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), `tariff-${label}-`));
    made.scratch = await createScratchDatabase(directory);
    made.servers = await Promise.all(Array.from({ length: count }, () => startServerProcess(made.scratch.url, environment)));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(made.servers.map((server) => server.stop()));
    await made.scratch?.drop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });
  return made;
}
