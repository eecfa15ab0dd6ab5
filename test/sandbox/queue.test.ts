/**
 * The sandbox's queue (issue 11, item 6) on real worker processes: bounded in waiting runs and
 * in wait, fair between tenants, compile checks ahead of runs. One worker and no spare, so the
 * order in which calls reach the worker is the order in which they end. Every call of a test is
 * submitted in one synchronous burst, so what is admitted, refused or served first depends on
 * counts, not on the machine's speed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxBusyError, ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';
import { SMALL, rejection } from './helpers.js';

const QUEUE_LENGTH = 4;
const TENANT_RUNS = 3;
const QUEUE_WAIT_MS = 2000;
const TIMEOUT_MS = 20_000;
let sandbox: ScriptSandbox;

beforeAll(async () => {
  sandbox = new ScriptSandbox({
    poolSize: 1,
    spareWorkers: 0,
    timeoutMs: TIMEOUT_MS,
    queueLength: QUEUE_LENGTH,
    tenantRuns: TENANT_RUNS,
    queueWaitMs: QUEUE_WAIT_MS,
  });
  await sandbox.start();
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
});

/** A quick run that leaves its label in the data. */
function labelled(label: string, tenant: string): Promise<string> {
  return sandbox
    .run([{ name: `run-${label}`, source: `data['usage']['compute'][0]['metadata']['label'] = '${label}'\n` }], SMALL, { tenant })
    .then((output) => String(output.usage.compute[0].metadata?.label));
}

/** A run that keeps its worker busy for `seconds` of wall-clock time. */
function busy(seconds: number, tenant: string): Promise<unknown> {
  const source = `import time\nend = time.monotonic() + ${seconds}\nwhile time.monotonic() < end:\n    pass\n`;
  return sandbox.run([{ name: 'busy', source }], SMALL, { tenant });
}

/** Records the order in which promises settle. */
function settleOrder(promises: Record<string, Promise<unknown>>): Promise<string[]> {
  const order: string[] = [];
  return Promise.all(Object.entries(promises).map(([label, promise]) => promise.then(() => order.push(label)))).then(() => order);
}

describe('queue bounds', () => {
  it('refuses runs past the queue length at once, with the reason and a retry delay', async () => {
    const before = sandbox.stats().refused;
    const runs = Array.from({ length: QUEUE_LENGTH + 3 }, (_, i) =>
      labelled(String(i), `tenant-${i}`).then(
        (label) => ({ label }),
        (error: Error) => ({ error }),
      ),
    );
    // One run on the worker, QUEUE_LENGTH waiting, the rest refused before anything ran.
    expect(sandbox.stats()).toMatchObject({ running: 1, queued: QUEUE_LENGTH, refused: before + 2 });
    const results = await Promise.all(runs);
    expect(results.slice(0, QUEUE_LENGTH + 1)).toEqual(Array.from({ length: QUEUE_LENGTH + 1 }, (_, i) => ({ label: String(i) })));
    for (const result of results.slice(QUEUE_LENGTH + 1)) {
      const error = (result as { error: Error }).error;
      expect(error).toBeInstanceOf(SandboxBusyError);
      expect(error).toMatchObject({ reason: 'queue', limit: QUEUE_LENGTH, retryAfterSeconds: TIMEOUT_MS / 1000, kind: 'run' });
      expect(error.message).toBe(`The PyScripts sandbox is busy: ${QUEUE_LENGTH} runs are already waiting for a worker`);
    }
  });

  it('refuses a tenant past its runs in progress or waiting, and still admits other tenants', async () => {
    const mine = Array.from({ length: TENANT_RUNS + 1 }, (_, i) => labelled(`a${i}`, 'greedy'));
    const theirs = labelled('b', 'modest');
    const refused = await rejection(mine[TENANT_RUNS]);
    expect(refused).toMatchObject({ name: 'SandboxBusyError', reason: 'tenant', limit: TENANT_RUNS });
    expect(refused.message).toBe(`The PyScripts sandbox is busy: this tenant already has ${TENANT_RUNS} runs running or waiting`);
    expect(await Promise.all(mine.slice(0, TENANT_RUNS))).toEqual(['a0', 'a1', 'a2']);
    expect(await theirs).toBe('b');
  });

  it('drops a run that waited past the wait limit; it never runs later', async () => {
    const started = performance.now();
    const long = busy(QUEUE_WAIT_MS / 1000 + 2, 'long');
    const waiting = [labelled('late-1', 'other'), labelled('late-2', 'third')].map((promise) =>
      rejection(promise).then((error) => ({ error, waitedMs: performance.now() - started })),
    );
    expect(sandbox.stats()).toMatchObject({ running: 1, queued: 2 });
    const expiredBefore = sandbox.stats().expired;
    for (const { error, waitedMs } of await Promise.all(waiting)) {
      expect(error).toMatchObject({ name: 'SandboxBusyError', reason: 'wait', limit: QUEUE_WAIT_MS });
      expect(error.message).toBe(`The PyScripts sandbox is busy: the run waited ${QUEUE_WAIT_MS} ms for a worker`);
      // Never before the limit; after it, within generous slack for a loaded machine.
      expect(waitedMs).toBeGreaterThanOrEqual(QUEUE_WAIT_MS - 20);
      expect(waitedMs).toBeLessThan(QUEUE_WAIT_MS + 10_000);
    }
    expect(sandbox.stats().expired).toBe(expiredBefore + 2);
    await long;
    // Had a dropped run been left in the queue, the worker would have taken it by now.
    expect(sandbox.stats()).toMatchObject({ running: 0, queued: 0 });
  });
});

describe('fairness', () => {
  it('gives the free worker to the tenant with the fewest runs in progress, then to the one served least recently', async () => {
    const order = await settleOrder({
      a1: labelled('a1', 'a'),
      a2: labelled('a2', 'a'),
      a3: labelled('a3', 'a'),
      b1: labelled('b1', 'b'),
      c1: labelled('c1', 'c'),
    });
    // a1 took the idle worker; then b and c, which had nothing running, before a's next ones.
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  });

  it('serves a compile check before every waiting run', async () => {
    const order = await settleOrder({
      run1: labelled('1', 'x'),
      run2: labelled('2', 'y'),
      run3: labelled('3', 'z'),
      compile: sandbox.compile('check', 'x = 1\n'),
    });
    expect(order).toEqual(['run1', 'compile', 'run2', 'run3']);
  });

  it('bounds the compile lane apart from the runs: a full run queue does not refuse a compile check', async () => {
    const runs = Array.from({ length: QUEUE_LENGTH + 1 }, (_, i) => labelled(String(i), `t${i}`));
    expect(sandbox.stats().queued).toBe(QUEUE_LENGTH);
    const compiles = Array.from({ length: QUEUE_LENGTH + 1 }, (_, i) => sandbox.compile(`c${i}`, 'x = 1\n'));
    expect(await rejection(compiles[QUEUE_LENGTH])).toMatchObject({ name: 'SandboxBusyError', reason: 'queue', kind: 'compile' });
    expect(await Promise.all(compiles.slice(0, QUEUE_LENGTH))).toEqual(Array.from({ length: QUEUE_LENGTH }, () => ({ ok: true })));
    await Promise.all(runs);
  });
});
