/**
 * The sandbox through the API (issue 4): every script is submitted with `POST P/scripts` and run
 * by a quote. Compile errors are refused with line and column; the §6 example prices exactly;
 * each escape and limit fails the quote with a 422 naming the script, leaves no trace on the host,
 * and the server keeps answering other requests meanwhile.
 */
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, daysFromNow, startTestApp, type TestApp } from '../helpers/app.js';
import { ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';

const TRACE = '/tmp/tariff-sandbox-api-trace';
let t: TestApp;
let sandbox: ScriptSandbox;
let counter = 0;

/** Replaces the live scripts by one script and quotes one compute point with it. */
async function quoteWith(source: string): Promise<{ status: number; body: any; milliseconds: number }> {
  const listed = await t.get(`${P}/scripts`);
  for (const script of listed.body.scripts) await t.del(`${P}/scripts/${script.script_id}`);
  counter += 1;
  const created = await t.post(`${P}/scripts?force=true`, { name: `probe-${counter}`, data: source, start: '2020-01-01' });
  expect(created.status, created.text).toBe(201);
  const started = Date.now();
  const quoted = await t.post('/v2/rating/quote', {
    usage: { compute: [{ vol: { unit: 'instance', qty: '1' }, groupby: { flavor: 'm1.nano' }, metadata: {} }] },
  });
  return { status: quoted.status, body: quoted.body, milliseconds: Date.now() - started };
}

async function expectScriptFailure(source: string, pattern: RegExp): Promise<void> {
  const answer = await quoteWith(source);
  expect(answer.status, JSON.stringify(answer.body)).toBe(422);
  expect(answer.body.faultstring).toMatch(/probe-\d+/);
  expect(answer.body.faultstring).toMatch(pattern);
}

beforeAll(async () => {
  // A wide queue wait: the limit tests kill workers, and quotes after them may wait for a boot,
  // which a loaded machine can stretch past the 10 s default (the wait limit is test/sandbox/queue.test.ts's).
  sandbox = new ScriptSandbox({ poolSize: 2, timeoutMs: 1500, memoryLimitMb: 256, queueWaitMs: 120_000 });
  await sandbox.start();
  t = await startTestApp({ sandbox });
  expect((await t.put('/v2/rating/modules/pyscripts', { enabled: true })).status).toBe(204);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
  rmSync(TRACE, { force: true });
});

describe('scripts through the API', () => {
  it('refuses a script that does not compile, on POST and on PUT, with line and column', async () => {
    const refused = await t.post(`${P}/scripts`, { name: 'broken', data: 'x = 1\nif x >\n' });
    expect(refused.status).toBe(400);
    expect(refused.body.faultstring).toMatch(/^Script broken does not compile: .+ \(line 2, column \d+\)$/);
    const later = await t.post(`${P}/scripts`, { name: 'later', data: 'x = 1\n', start: daysFromNow(2) });
    expect(later.status).toBe(201);
    const updated = await t.put(`${P}/scripts/${later.body.script_id}`, { data: 'def f(:\n' });
    expect(updated.status).toBe(400);
    expect(updated.body.faultstring).toMatch(/^Script later does not compile: .+ \(line 1, column \d+\)$/);
    await t.del(`${P}/scripts/${later.body.script_id}`);
  });

  it('prices the rating.md §6 example exactly', async () => {
    const source = [
      'from decimal import Decimal',
      "for point in data['usage'].get('compute', []):",
      "    if point['groupby'].get('flavor') == 'm1.nano':",
      "        point['rating']['price'] = Decimal(2)",
      "for point in data['usage'].get('instance_status', []):",
      "    if point['groupby'].get('flavor') == 'm1.ultra':",
      "        point['rating']['price'] = Decimal(point['groupby']['memory']) * Decimal('1.5')",
    ].join('\n');
    const listed = await t.get(`${P}/scripts`);
    for (const script of listed.body.scripts) await t.del(`${P}/scripts/${script.script_id}`);
    expect((await t.post(`${P}/scripts?force=true`, { name: 'example', data: source, start: '2020-01-01' })).status).toBe(201);
    const point = (flavor: string, qty: string, extra: Record<string, string> = {}) => ({
      vol: { unit: 'instance', qty },
      groupby: { flavor, ...extra },
      metadata: {},
    });
    const quoted = await t.post('/v2/rating/quote', {
      usage: {
        compute: [point('m1.nano', '1'), point('m1.tiny', '2'), point('m1.nano', '1')],
        instance_status: [point('m1.ultra', '1', { memory: '64' }), point('not_so_ultra', '1', { memory: '64' })],
      },
    });
    expect(quoted.status, quoted.text).toBe(200);
    expect(quoted.body.usage.compute.map((p: any) => p.rating.price)).toEqual(['2', '0', '2']);
    expect(quoted.body.usage.instance_status.map((p: any) => p.rating.price)).toEqual(['96', '0']);
    expect(quoted.body.total).toBe('100');
  });
});

describe('escapes fail the quote with a 422 naming the script and leave no trace', () => {
  it('os.system', async () => {
    await expectScriptFailure(`import os\nos.system('touch ${TRACE}')\n`, /PermissionError/);
    expect(existsSync(TRACE)).toBe(false);
  });

  it('subprocess', async () => {
    await expectScriptFailure(`import subprocess\nsubprocess.run(['touch', '${TRACE}'])\n`, /Error/);
    expect(existsSync(TRACE)).toBe(false);
  });

  it('reading /etc/passwd and writing a host file', async () => {
    await expectScriptFailure("open('/etc/passwd').read()\n", /Error/);
    await expectScriptFailure(`open('${TRACE}', 'w').write('x')\n`, /Error/);
    expect(existsSync(TRACE)).toBe(false);
  });

  it('a socket connection to a listening loopback port', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      await expectScriptFailure(`import socket\ns = socket.create_connection(('127.0.0.1', ${port}), timeout=1)\n`, /Error/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('import js, import pyodide_js, and the JS Function constructor reaching process', async () => {
    await expectScriptFailure('import js\n', /ImportError/);
    await expectScriptFailure('import pyodide_js\n', /ImportError/);
    const reach = [
      'import sys',
      "sys.meta_path[:] = [f for f in sys.meta_path if 'Blocker' not in getattr(f, '__name__', '')]",
      'import _pyodide_core',
      'Function = _pyodide_core.create_proxy(lambda: 1).constructor.constructor',
      "process = Function('return process')()",
    ].join('\n');
    await expectScriptFailure(reach, /Code generation from strings disallowed|Error/);
  });
});

describe('limits fail the quote and the server keeps answering', () => {
  it('an infinite loop, while a concurrent GET stays fast', async () => {
    const looping = quoteWith('x = 0\nwhile True:\n    x += 1\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const listed = await t.get(`${H}/services`);
    const getMs = Date.now() - started;
    expect(listed.status).toBe(200);
    expect(getMs).toBeLessThan(500);
    const answer = await looping;
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(answer.body.faultstring).toMatch(/probe-\d+/);
    expect(answer.milliseconds).toBeLessThan(5000);
  });

  it('a loop that catches KeyboardInterrupt', async () => {
    await expectScriptFailure('while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n', /time|limit|killed/i);
  });

  it('a memory bomb and a recursion bomb', async () => {
    // Two steps of 160 MiB reach the 256 MiB limit: a few hundred milliseconds of work even on a
    // loaded machine, far within the 1.5 s time limit (26 steps of 10 MB tripped it on CI).
    await expectScriptFailure('chunks = []\nwhile True:\n    chunks.append(bytearray(160 * 1024 * 1024))\n', /exceeded the memory limit of 256 MB/);
    await expectScriptFailure('def f(n):\n    return f(n + 1)\nf(0)\n', /RecursionError|recursion|Error/);
  });

  it('and the sandbox still prices afterwards', async () => {
    const answer = await quoteWith("from decimal import Decimal\nfor p in data['usage']['compute']:\n    p['rating']['price'] = Decimal('0.5')\n");
    expect(answer.status).toBe(200);
    expect(answer.body.total).toBe('0.5');
  });
});
