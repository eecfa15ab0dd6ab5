/**
 * The compiled sandbox (dist/, as `tariff serve` runs it) works too: the worker program is the
 * tsc output of `runChildProgram`, serialised, not the test transform of it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type * as Sandbox from '../../src/rating/pyscripts/sandbox/index.js';
import { SMALL, frame, point, prices, rejection } from './helpers.js';

// dist/ is built by the vitest global setup (test/helpers/build.ts).
const compiled = new URL('../../dist/rating/pyscripts/sandbox/index.js', import.meta.url).href;
let module: typeof Sandbox;
let sandbox: Sandbox.ScriptSandbox;

beforeAll(async () => {
  module = (await import(compiled)) as typeof Sandbox;
  sandbox = new module.ScriptSandbox({ poolSize: 1, timeoutMs: 1000 });
  await sandbox.start();
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
});

it('runs, reports errors and stops loops from dist/', async () => {
  const output = await sandbox.run(
    [
      {
        name: 'price',
        source: "from decimal import Decimal\nfor p in data['usage']['compute']:\n    p['rating']['price'] = p['vol']['qty'] * Decimal('0.1')\n",
      },
    ],
    frame({ compute: [point('3', {})] }),
  );
  expect(prices(output, 'compute')).toEqual(['0.3']);
  const error = await rejection(sandbox.run([{ name: 'broken', source: '1 / 0\n' }], SMALL));
  expect(error).toBeInstanceOf(module.ScriptError);
  expect(error.message).toBe('Script broken failed: ZeroDivisionError: division by zero (line 1)');
  expect(await rejection(sandbox.run([{ name: 'loop', source: 'while True: pass\n' }], SMALL))).toBeInstanceOf(module.ScriptTimeoutError);
  expect(await sandbox.compile('bad', 'def f(:\n')).toMatchObject({ ok: false, line: 1 });
});
