/**
 * Time and memory limits (rating.md §6 "Safety"): past either the worker is killed and replaced,
 * the error names the script, the API process's event loop never stalls, and the pool keeps
 * serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptError, ScriptResourceError, ScriptSandbox, ScriptTimeoutError } from '../../src/rating/pyscripts/sandbox/index.js';
import { SMALL, frame, point, prices, rejection } from './helpers.js';

const TIMEOUT_MS = 1000;
let sandbox: ScriptSandbox;

beforeAll(async () => {
  // A wide queue wait: these tests kill workers, and a run after a kill may wait for a boot, which a
  // loaded machine can stretch past the 10 s default (the wait limit is test/sandbox/queue.test.ts's).
  sandbox = new ScriptSandbox({ poolSize: 2, timeoutMs: TIMEOUT_MS, memoryLimitMb: 192, queueWaitMs: 120_000 });
  await sandbox.start();
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
});

const PRICE = "from decimal import Decimal\nfor p in data['usage']['compute']:\n    p['rating']['price'] = Decimal('0.25')\n";

/** Waits until every worker of the pool is loaded and idle (after replacements). */
async function warm(): Promise<void> {
  const until = performance.now() + 30_000;
  while (sandbox.stats().idle < 2) {
    if (performance.now() > until) throw new Error(`the pool did not warm up: ${JSON.stringify(sandbox.stats())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The sandbox still works, and answers quickly: another warm worker serves while one restarts. */
async function expectServing(): Promise<number> {
  const started = performance.now();
  const output = await sandbox.run([{ name: 'price', source: PRICE }], frame({ compute: [point('1', {})] }));
  expect(prices(output, 'compute')).toEqual(['0.25']);
  return performance.now() - started;
}

/**
 * Runs `promise` while measuring how late 20 ms timers fire in this (the API) process.
 * @returns the error and the worst timer lateness in ms.
 */
async function withLoopProbe(promise: Promise<unknown>): Promise<{ error: Error; lateness: number; elapsed: number }> {
  let lateness = 0;
  let expected = performance.now() + 20;
  const timer = setInterval(() => {
    const now = performance.now();
    lateness = Math.max(lateness, now - expected);
    expected = now + 20;
  }, 20);
  const started = performance.now();
  try {
    const error = await rejection(promise);
    return { error, lateness, elapsed: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

describe('time limit', () => {
  it('stops an infinite loop within the limit plus a second, without stalling the event loop', async () => {
    await warm();
    const { error, lateness, elapsed } = await withLoopProbe(sandbox.run([{ name: 'spinner', source: 'x = 0\nwhile True:\n    x += 1\n' }], SMALL));
    expect(error).toBeInstanceOf(ScriptTimeoutError);
    expect(error).toMatchObject({ script: 'spinner', timeoutMs: TIMEOUT_MS });
    expect(error.message).toBe(`Script spinner exceeded the time limit of ${TIMEOUT_MS} ms`);
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    // Interrupted from inside (KeyboardInterrupt at the deadline), before the kill timer's grace.
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 400);
    expect(lateness).toBeLessThan(100);
    console.info(`infinite loop stopped after ${elapsed.toFixed(0)} ms; worst timer lateness ${lateness.toFixed(1)} ms`);
    expect(await expectServing()).toBeLessThan(1000);
  });

  it('kills a loop that swallows KeyboardInterrupt, naming the script that was running', async () => {
    await warm();
    const stubborn = 'while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n';
    const { error, elapsed } = await withLoopProbe(
      sandbox.run(
        [
          { name: 'polite', source: PRICE },
          { name: 'stubborn', source: stubborn },
        ],
        SMALL,
      ),
    );
    expect(error).toBeInstanceOf(ScriptTimeoutError);
    expect(error).toMatchObject({ script: 'stubborn' });
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1000);
    expect(await expectServing()).toBeLessThan(1000);
  });

  it('kills a script sleeping past the limit (no bytecode runs to interrupt)', async () => {
    const { error, elapsed } = await withLoopProbe(sandbox.run([{ name: 'sleeper', source: 'import time\ntime.sleep(30)\n' }], SMALL));
    expect(error).toBeInstanceOf(ScriptTimeoutError);
    expect(error).toMatchObject({ script: 'sleeper' });
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it('counts the scripts of a run together', async () => {
    const half = 'import time\nend = time.monotonic() + 0.6\nwhile time.monotonic() < end:\n    pass\n';
    const error = await rejection(
      sandbox.run(
        [
          { name: 'one', source: half },
          { name: 'two', source: half },
        ],
        SMALL,
      ),
    );
    expect(error).toMatchObject({ name: 'ScriptTimeoutError', script: 'two' });
    // Each alone fits.
    await sandbox.run([{ name: 'one', source: half }], SMALL);
  });

  it('bounds compile too', async () => {
    // A huge source compiles slowly; with a generous source it must still answer, not hang.
    const result = await sandbox.compile('big', 'x = 1\n'.repeat(20_000));
    expect(result).toEqual({ ok: true });
  });
});

describe('memory limit', () => {
  it('stops a single huge allocation', async () => {
    await warm();
    // 300 MiB: past the 192 MiB cap, well below the resident-size backstop (832 MiB).
    const error = await rejection(sandbox.run([{ name: 'hog', source: 'x = bytearray(300 * 1024 * 1024)\n' }], SMALL));
    expect(error).toBeInstanceOf(ScriptResourceError);
    expect(error).toMatchObject({ script: 'hog', reason: 'memory' });
    expect(error.message).toBe('Script hog exceeded the memory limit of 192 MB');
    expect(await expectServing()).toBeLessThan(1000);
    await warm();
    const giant = await rejection(sandbox.run([{ name: 'giant', source: 'x = bytearray(2 ** 31 - 1)\n' }], SMALL));
    expect(giant).toMatchObject({ name: 'ScriptResourceError', script: 'giant', reason: 'memory' });
  });

  it('stops a growing memory bomb, even one that catches MemoryError', async () => {
    await warm();
    const bomb = "chunks = []\nwhile True:\n    try:\n        chunks.append(' ' * 10_000_000)\n    except MemoryError:\n        pass\n";
    const { error, elapsed } = await withLoopProbe(sandbox.run([{ name: 'bomb', source: bomb }], SMALL));
    // Caught MemoryErrors keep it looping at the cap: the time limit ends it, or the kill.
    expect(error.name).toMatch(/^Script(Resource|Timeout)Error$/);
    expect(error).toMatchObject({ script: 'bomb' });
    console.info(`memory bomb: ${error.message} after ${elapsed.toFixed(0)} ms`);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1000);
    expect(await expectServing()).toBeLessThan(1000);
  });

  it('allows what fits', async () => {
    const output = await sandbox.run(
      [{ name: 'fits', source: "x = bytearray(64 * 1024 * 1024)\ndata['usage']['compute'][0]['metadata']['n'] = len(x)\n" }],
      SMALL,
    );
    expect(output.usage.compute[0].metadata?.n).toBe(64 * 1024 * 1024);
  });
});

describe('recursion', () => {
  it('a plain recursion bomb is a RecursionError at its line', async () => {
    const error = await rejection(sandbox.run([{ name: 'recurse', source: 'def f(n):\n    return f(n + 1)\n\nf(0)\n' }], SMALL));
    expect(error).toBeInstanceOf(ScriptError);
    expect(error).toMatchObject({ script: 'recurse', exception: 'RecursionError', line: 2 });
  });

  it('with the recursion limit lifted, it is stopped by a limit and the sandbox survives', async () => {
    await warm();
    const source = 'import sys\nsys.setrecursionlimit(10**9)\ndef f(n):\n    return f(n + 1)\n\nf(0)\n';
    const { error, elapsed } = await withLoopProbe(sandbox.run([{ name: 'deep', source }], SMALL));
    expect(error.name).toMatch(/^Script(Error|ResourceError|TimeoutError)$/);
    expect(error).toMatchObject({ script: 'deep' });
    console.info(`lifted recursion limit: ${error.message} after ${elapsed.toFixed(0)} ms`);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1000);
    expect(await expectServing()).toBeLessThan(1000);
  });

  it('deep nesting handled in C code is stopped and the sandbox survives', async () => {
    await warm();
    const source = 'x = []\nfor _ in range(1_000_000):\n    x = [x]\nrepr(x)\n';
    const error = await rejection(sandbox.run([{ name: 'nested', source }], SMALL));
    expect(error).toMatchObject({ script: 'nested' });
    console.info(`deep nesting in C: ${error.message}`);
    expect(error.name).toMatch(/^Script(Error|ResourceError|TimeoutError)$/);
    expect(await expectServing()).toBeLessThan(1000);
  });

  it('the recursion limit a script sets does not outlive it', async () => {
    const output = await sandbox.run(
      [
        { name: 'lift', source: 'import sys\nsys.setrecursionlimit(50_000)\n' },
        { name: 'read', source: "import sys\ndata['usage']['compute'][0]['metadata']['limit'] = sys.getrecursionlimit()\n" },
      ],
      SMALL,
    );
    expect(output.usage.compute[0].metadata?.limit).toBeLessThan(50_000);
  });
});

describe('queue', () => {
  it('serves more concurrent runs than workers, in order, while one worker is being replaced', async () => {
    await warm();
    const spinner = rejection(sandbox.run([{ name: 'spinner', source: 'while True:\n    pass\n' }], SMALL));
    const runs = Array.from({ length: 8 }, (_, i) => sandbox.run([{ name: 'n', source: `data['usage']['compute'][0]['metadata']['i'] = ${i}\n` }], SMALL));
    const outputs = await Promise.all(runs);
    expect(outputs.map((o) => o.usage.compute[0].metadata?.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await spinner).toBeInstanceOf(ScriptTimeoutError);
    expect(sandbox.stats().replaced).toBeGreaterThanOrEqual(1);
  });
});
