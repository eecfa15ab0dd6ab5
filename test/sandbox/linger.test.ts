/**
 * Workers that a call started while no script needs them (a compile check with the pyscripts
 * module disabled, say) stay for their linger however often the rules reload: each configuration
 * write reloads them and says "unneeded" again. Before the fix, that second "unneeded" stopped
 * them at once, and the compile check of the next write waited seconds for a new worker (the
 * console's "new version" of a running script ran past its wait under CI load). Only the change
 * from needed to unneeded stops them at once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';

const sandbox = new ScriptSandbox({ poolSize: 1, spareWorkers: 0, timeoutMs: 20_000 });

afterAll(async () => {
  await sandbox.close();
});

describe('workers started by a call while unneeded', () => {
  it('stay through repeated "unneeded" until their linger; a change from needed stops them at once', { timeout: 120_000 }, async () => {
    sandbox.setDemand(false);
    expect(sandbox.stats().workers).toBe(0);

    expect(await sandbox.compile('first', 'x = 1\n')).toEqual({ ok: true });
    expect(sandbox.stats()).toMatchObject({ workers: 1, booting: 0 });

    // A rules reload after a write: still unneeded, said again.
    sandbox.setDemand(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sandbox.stats()).toMatchObject({ workers: 1, booting: 0, idle: 1 });

    // The next write's compile check is served by the same worker, without a boot.
    expect(await sandbox.compile('second', 'y = (\n')).toMatchObject({ ok: false, line: 1 });
    expect(sandbox.stats()).toMatchObject({ workers: 1, booting: 0, replaced: 0 });

    // Needed, then no longer: stopped without waiting for the linger.
    sandbox.setDemand(true);
    sandbox.setDemand(false);
    await expect.poll(() => sandbox.stats().workers, { timeout: 5000 }).toBe(0);
  });
});
