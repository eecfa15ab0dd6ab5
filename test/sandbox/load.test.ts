/**
 * The sandbox under load, through the API (issue 11, item 6). The case: a script that
 * runs 1.8 s, 2 workers and 30 concurrent quotes, which used to wait up to 29 s in one unbounded
 * queue, with a script POST (its compile check) 25 s behind them. Now quotes past the queue's
 * bound get 503 with `Retry-After` at once, admitted quotes wait at most the wait limit, the
 * health check and configuration CRUD stay fast, and a compile check goes through while runs are
 * still queued. Bounds are the configured limits plus generous slack, never tight timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, daysFromNow, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';

const POOL_SIZE = 2;
// Small bounds: every run served keeps a core busy for 1.8 s, on a machine other tests share.
const QUEUE_LENGTH = 4;
const QUEUE_WAIT_MS = 3000;
const TENANT_RUNS = 3;
const TIMEOUT_MS = 20_000;
const RUN_SECONDS = 1.8;
/** Slack for a loaded machine on top of every bound below. */
const SLACK_MS = 8000;
/** A script that keeps its worker busy for RUN_SECONDS, then prices each compute point at 1. */
const SLOW_SCRIPT = [
  'import time',
  'from decimal import Decimal',
  `end = time.monotonic() + ${RUN_SECONDS}`,
  'while time.monotonic() < end:',
  '    pass',
  "for p in data['usage']['compute']:",
  "    p['rating']['price'] = Decimal(1)",
].join('\n');
const BUSY_FAULT =
  /^The PyScripts sandbox is busy: .+ \((TARIFF_SANDBOX_QUEUE_LENGTH = 4|TARIFF_SANDBOX_QUEUE_WAIT_MS = 3000|TARIFF_SANDBOX_TENANT_RUNS = 3)\); try again in 20 s\.$/;

let sandbox: ScriptSandbox;
let t: TestApp;

beforeAll(async () => {
  sandbox = new ScriptSandbox({
    poolSize: POOL_SIZE,
    spareWorkers: 1,
    timeoutMs: TIMEOUT_MS,
    queueLength: QUEUE_LENGTH,
    queueWaitMs: QUEUE_WAIT_MS,
    tenantRuns: TENANT_RUNS,
  });
  await sandbox.start();
  // The spare boots after start; the compile check below is to find it loaded.
  const until = performance.now() + 120_000;
  while (sandbox.stats().idle < POOL_SIZE + 1) {
    if (performance.now() > until) throw new Error(`the spare did not load: ${JSON.stringify(sandbox.stats())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t = await startTestApp({ sandbox });
  expect((await t.put('/v2/rating/modules/pyscripts', { enabled: true })).status).toBe(204);
  const created = await t.post(`${P}/scripts`, { name: 'slow', data: SLOW_SCRIPT });
  expect(created.status, created.text).toBe(201);
}, 180_000);

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

interface Timed {
  answer: TestResponse;
  milliseconds: number;
}

async function timed(call: () => Promise<TestResponse>): Promise<Timed> {
  const started = performance.now();
  const answer = await call();
  return { answer, milliseconds: performance.now() - started };
}

function quote(tenant: string): Promise<Timed> {
  return timed(() =>
    t.post('/v2/rating/quote', { tenant_id: tenant, usage: { compute: [{ vol: { unit: 'instance', qty: '1' }, groupby: {}, metadata: {} }] } }),
  );
}

/** Waits until runs are queued in the sandbox (the burst reached it), at most 60 s. */
async function untilRunsQueued(): Promise<void> {
  const until = performance.now() + 60_000;
  while (sandbox.stats().queued === 0) {
    if (performance.now() > until) throw new Error(`no run was queued: ${JSON.stringify(sandbox.stats())}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Checks a 503 of the queue: the fault body, the setting named, `Retry-After`. */
function expectBusy(answer: TestResponse): void {
  expect(answer.body).toEqual({ faultcode: 'Server', faultstring: expect.stringMatching(BUSY_FAULT), debuginfo: null });
  expect(answer.headers['retry-after']).toBe(String(TIMEOUT_MS / 1000));
}

describe('30 concurrent quotes of a 1.8 s script on 2 workers', () => {
  it('bounds the queue and the waits, keeps the API fast and lets a compile check through', async () => {
    const refusedBefore = sandbox.stats().refused;
    const expiredBefore = sandbox.stats().expired;
    let largestQueue = 0;
    const sampler = setInterval(() => (largestQueue = Math.max(largestQueue, sandbox.stats().queued)), 5);
    const quotes = Array.from({ length: 30 }, (_, i) => quote(`tenant-${i % 6}`));
    try {
      await untilRunsQueued();

      // While runs are queued, a script POST's compile check goes through ahead of them...
      const compiled = await timed(() => t.post(`${P}/scripts`, { name: 'posted-during-the-burst', data: 'x = 1\n', start: daysFromNow(30) }));
      const queuedAfterCompile = sandbox.stats().queued;
      expect(compiled.answer.status, compiled.answer.text).toBe(201);
      expect(queuedAfterCompile).toBeGreaterThan(0);

      // ...and the health check and configuration CRUD answer at once.
      const health = await timed(() => t.get('/healthcheck'));
      expect(health.answer.status).toBe(200);
      const created = await timed(() => t.post(`${H}/services`, { name: 'during-the-burst' }));
      expect(created.answer.status).toBe(201);
      const listed = await timed(() => t.get(`${H}/services`));
      expect(listed.answer.status).toBe(200);
      const deleted = await timed(() => t.del(`${H}/services/${created.answer.body.service_id}`));
      expect(deleted.answer.status).toBe(204);
      for (const call of [compiled, health, created, listed, deleted]) expect(call.milliseconds).toBeLessThan(2000);
    } finally {
      await Promise.allSettled(quotes);
      clearInterval(sampler);
    }

    const answers = await Promise.all(quotes);
    const served = answers.filter(({ answer }) => answer.status === 200);
    const busy = answers.filter(({ answer }) => answer.status === 503);
    expect(served.length + busy.length).toBe(30);
    for (const { answer, milliseconds } of served) {
      expect(answer.body.total).toBe('1');
      // A served quote waited at most the wait limit, then ran.
      expect(milliseconds).toBeLessThan(QUEUE_WAIT_MS + RUN_SECONDS * 1000 + SLACK_MS);
    }
    for (const { answer, milliseconds } of busy) {
      expectBusy(answer);
      expect(milliseconds).toBeLessThan(QUEUE_WAIT_MS + SLACK_MS);
    }
    // The queue never held more than its bound; every 503 is one the sandbox refused or dropped.
    expect(largestQueue).toBeLessThanOrEqual(QUEUE_LENGTH);
    expect(busy.length).toBeGreaterThan(0);
    expect(sandbox.stats().refused - refusedBefore + sandbox.stats().expired - expiredBefore).toBe(busy.length);
    expect(served.length).toBeGreaterThanOrEqual(POOL_SIZE);
    console.info(`30 quotes: ${served.length} served, ${busy.length} refused; slowest served ${Math.max(...served.map((s) => s.milliseconds)).toFixed(0)} ms`);
  }, 120_000);

  it("refuses one tenant's quotes past its share while the queue has room", async () => {
    const answers = await Promise.all(Array.from({ length: TENANT_RUNS + 3 }, () => quote('greedy')));
    const refused = answers.filter(({ answer }) => answer.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const { answer } of refused) {
      expectBusy(answer);
      expect(answer.body.faultstring).toMatch(/this tenant already has 3 runs running or waiting/);
    }
    for (const { answer } of answers.filter(({ answer }) => answer.status !== 503)) expect(answer.body.total).toBe('1');
  }, 120_000);
});
