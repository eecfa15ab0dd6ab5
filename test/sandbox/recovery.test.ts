/**
 * Recovering from crashes (issue 11, item 6): a warm spare takes over from a killed worker at
 * once, so other callers do not wait for a worker to boot; compile checks use the spare while the
 * pool's workers run; a script that breaks the harness is told what it did; replacements back off
 * when workers keep being killed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptResourceError, ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';
import { RestartPolicy, MAX_RESTART_DELAY_MS } from '../../src/rating/pyscripts/sandbox/restarts.js';
import { SMALL, frame, point, prices, rejection } from './helpers.js';

/** Overflows the interpreter's C stack: the worker crashes and is replaced. */
const CRASH = 'x = []\nfor _ in range(1_000_000):\n    x = [x]\nrepr(x)\n';
const PRICE = "from decimal import Decimal\nfor p in data['usage']['compute']:\n    p['rating']['price'] = Decimal('0.25')\n";
let sandbox: ScriptSandbox;

beforeAll(async () => {
  sandbox = new ScriptSandbox({ poolSize: 1, spareWorkers: 1, timeoutMs: 20_000 });
  await sandbox.start();
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
});

/** Waits until the pool and its spare are loaded (they boot after start and after each kill). */
async function bothLoaded(): Promise<void> {
  const until = performance.now() + 120_000;
  while (sandbox.stats().idle < 2) {
    if (performance.now() > until) throw new Error(`the spare did not load: ${JSON.stringify(sandbox.stats())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the warm spare', () => {
  it('takes over from a crashed worker at once: the next run starts without waiting for a boot', async () => {
    await bothLoaded();
    const replacedBefore = sandbox.stats().replaced;
    const crash = await rejection(sandbox.run([{ name: 'crasher', source: CRASH }], SMALL));
    expect(crash).toBeInstanceOf(ScriptResourceError);
    expect(crash).toMatchObject({ script: 'crasher', reason: 'crash' });
    // The crashed worker is gone; the spare is loaded and idle...
    expect(sandbox.stats().idle).toBe(1);
    const next = sandbox.run([{ name: 'price', source: PRICE }], frame({ compute: [point('1', {})] }));
    // ...and took the next run at once: nothing queued behind a boot.
    expect(sandbox.stats()).toMatchObject({ running: 1, queued: 0, idle: 0 });
    expect(prices(await next, 'compute')).toEqual(['0.25']);
    await bothLoaded();
    expect(sandbox.stats().replaced).toBe(replacedBefore + 1);
  });

  it('runs compile checks while the pool is busy with runs', async () => {
    await bothLoaded();
    const busy = sandbox.run([{ name: 'busy', source: 'import time\nend = time.monotonic() + 2\nwhile time.monotonic() < end:\n    pass\n' }], SMALL);
    const compiled = sandbox.compile('check', 'x = 1\n');
    // The run holds the pool's one worker; the compile check went to the spare, not to a queue.
    expect(sandbox.stats()).toMatchObject({ running: 1, compiling: 1, queued: 0, queuedCompiles: 0 });
    // But a second run waits: runs never take more than the pool's workers.
    const second = sandbox.run([{ name: 'second', source: 'x = 1\n' }], SMALL);
    expect(sandbox.stats().queued).toBe(1);
    expect(await compiled).toEqual({ ok: true });
    await Promise.all([busy, second]);
  });
});

describe('a script that breaks the harness', () => {
  it('is told what it replaced, and the sandbox serves afterwards', async () => {
    await bothLoaded();
    const error = await rejection(sandbox.run([{ name: 'breaker', source: 'import builtins\nbuiltins.str = None\n' }], SMALL));
    expect(error).toBeInstanceOf(ScriptResourceError);
    expect(error.message).toMatch(/^Script breaker crashed the sandbox: the script replaced builtins\.str, which the sandbox relies on \(TypeError: .+\)$/);
    expect(error.message).not.toContain('[object Object]');
    const output = await sandbox.run([{ name: 'price', source: PRICE }], frame({ compute: [point('1', {})] }));
    expect(prices(output, 'compute')).toEqual(['0.25']);
  });

  it('other harness breaks name what was replaced too', async () => {
    await bothLoaded();
    const error = await rejection(sandbox.run([{ name: 'isinstance', source: 'import builtins\nbuiltins.isinstance = lambda *args: 1 / 0\n' }], SMALL));
    expect(error.message).toMatch(
      /^Script isinstance crashed the sandbox: the script replaced builtins\.isinstance, which the sandbox relies on \(ZeroDivisionError: /,
    );
  });
});

describe('restart backoff', () => {
  it('boots replacements at once for a burst of kills, then doubles the pause, up to 30 s, and forgets kills after a minute', () => {
    let now = 0;
    const policy = new RestartPolicy(3, () => now);
    const delays: number[] = [];
    for (let kill = 1; kill <= 10; kill++) {
      policy.workerKilled();
      delays.push(policy.delayMs(true));
      now += 1000;
    }
    expect(delays).toEqual([0, 0, 0, 1000, 2000, 4000, 8000, 16_000, MAX_RESTART_DELAY_MS, MAX_RESTART_DELAY_MS]);
    // No worker loaded: callers are waiting, so kills never delay the boot.
    expect(policy.delayMs(false)).toBe(0);
    now += 61_000;
    expect(policy.delayMs(true)).toBe(0);
  });

  it('backs off failed starts whether or not a worker is loaded, until one starts', () => {
    const policy = new RestartPolicy(3, () => 0);
    policy.startFailed();
    expect(policy.delayMs(false)).toBe(1000);
    policy.startFailed();
    expect(policy.delayMs(true)).toBe(2000);
    policy.startSucceeded();
    expect(policy.delayMs(false)).toBe(0);
  });

  it('shows the pause in the stats after repeated kills, while a worker still serves', async () => {
    // Pool 1 + spare 1: two kills a minute are free, the third delays the next replacement.
    for (let kill = 0; kill < 3; kill++) {
      await bothLoaded();
      await rejection(sandbox.run([{ name: 'crasher', source: CRASH }], SMALL));
    }
    // The spare still serves; the kills (this test's three, within a minute) slow replacements.
    expect(sandbox.stats().idle).toBe(1);
    expect(sandbox.stats().restartDelayMs).toBeGreaterThanOrEqual(1000);
  }, 300_000);
});
