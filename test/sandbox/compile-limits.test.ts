/**
 * A compile check past the sandbox's limits (issue 11, item 6) is the client's 400 naming the
 * limit and its setting, not a 500: the 800 KB source of 200,000 `x=1` lines, through
 * `POST P/scripts`. Neither case depends on the machine's speed: the memory case has a generous
 * time limit and a memory limit the source needs several times over; the time case a limit of
 * 1 ms, which no machine compiles 800 KB within.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { P, startTestApp, type TestApp } from '../helpers/app.js';
import { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';

const BIG_SOURCE = 'x=1\n'.repeat(200_000);
const apps: TestApp[] = [];
const sandboxes: ScriptSandbox[] = [];

/** An app whose sandbox has one worker with the given limits. */
async function appWith(options: { timeoutMs: number; memoryLimitMb: number }): Promise<TestApp> {
  // A wide queue wait: after the memory kill the next check waits for a boot (slow on a loaded machine).
  const sandbox = new ScriptSandbox({ poolSize: 1, spareWorkers: 0, queueWaitMs: 120_000, ...options });
  sandboxes.push(sandbox);
  await sandbox.start();
  const app = await startTestApp({ sandbox });
  apps.push(app);
  return app;
}

let memoryBound: TestApp;
let timeBound: TestApp;

beforeAll(async () => {
  [memoryBound, timeBound] = await Promise.all([appWith({ timeoutMs: 60_000, memoryLimitMb: 64 }), appWith({ timeoutMs: 1, memoryLimitMb: 256 })]);
}, 120_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  for (const sandbox of sandboxes) await sandbox.close();
});

describe('a compile check past a limit', () => {
  it('past the memory limit: 400 naming the limit and TARIFF_SCRIPT_MEMORY_MB', async () => {
    const answer = await memoryBound.post(`${P}/scripts`, { name: 'big', data: BIG_SOURCE });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body).toEqual({
      faultcode: 'Client',
      faultstring: "Script big could not be compiled within the sandbox's limits: compiling needed more than 64 MB of memory (TARIFF_SCRIPT_MEMORY_MB).",
      debuginfo: null,
    });
    expect((await memoryBound.get(`${P}/scripts`)).body.scripts).toEqual([]);
    // The worker was replaced; a small script compiles and is stored.
    expect((await memoryBound.post(`${P}/scripts`, { name: 'small', data: 'x = 1\n' })).status).toBe(201);
  });

  it('past the time limit: 400 naming the limit and TARIFF_SCRIPT_TIMEOUT_MS', async () => {
    const answer = await timeBound.post(`${P}/scripts`, { name: 'big', data: BIG_SOURCE });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.faultstring).toBe(
      "Script big could not be compiled within the sandbox's limits: compiling took longer than 1 ms (TARIFF_SCRIPT_TIMEOUT_MS).",
    );
    expect((await timeBound.get(`${P}/scripts`)).body.scripts).toEqual([]);
  });
});
