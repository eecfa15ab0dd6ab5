/**
 * Scripts cannot reach the host (rating.md §6 "Safety"): no programs, no host files read or
 * written, no network, no JavaScript, no environment. Each attempt fails with a clear error and
 * leaves no trace; several go past the Python-level guards on purpose, to hit the process-level
 * confinement (permission model, patched network functions, no code generation from strings).
 */
import { randomUUID } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { existsSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptError, ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';
import { SMALL, frame, point, prices, rejection } from './helpers.js';

const CANARY = `canary-${randomUUID()}`;
let sandbox: ScriptSandbox;

beforeAll(async () => {
  process.env.TARIFF_SANDBOX_TEST_CANARY = CANARY;
  sandbox = new ScriptSandbox({ poolSize: 1 });
  await sandbox.start();
}, 60_000);

afterAll(async () => {
  delete process.env.TARIFF_SANDBOX_TEST_CANARY;
  await sandbox?.close();
});

/** A host path that does not exist yet, removed after the test whatever happens. */
function hostPath(): string {
  const path = join(tmpdir(), `tariff-sandbox-${randomUUID()}`);
  paths.push(path);
  return path;
}
const paths: string[] = [];
afterAll(() => {
  for (const path of paths) rmSync(path, { force: true });
});

/** Runs one script over a one-point dataframe; what it stored in `metadata.out`. */
async function outOf(source: string): Promise<unknown> {
  const output = await sandbox.run([{ name: 'probe', source }], SMALL);
  return output.usage.compute[0].metadata?.out;
}

/** Runs one script that must fail with a ScriptError naming it. */
async function scriptError(source: string, name = 'escape'): Promise<ScriptError> {
  const error = await rejection(sandbox.run([{ name, source }], SMALL));
  expect(error).toBeInstanceOf(ScriptError);
  expect((error as ScriptError).script).toBe(name);
  return error as ScriptError;
}

describe('programs', () => {
  it('os.system raises PermissionError and runs nothing', async () => {
    const path = hostPath();
    const error = await scriptError(`import os\nos.system('touch ${path}')\n`);
    expect(error).toMatchObject({ exception: 'PermissionError', line: 2 });
    expect(error.message).toMatch(/running programs is not allowed in the sandbox/);
    expect(existsSync(path)).toBe(false);
  });

  it('past the Python guard (a fresh posix module), the command still does not run', async () => {
    const path = hostPath();
    const out = await outOf(`
import sys
del sys.modules['os'], sys.modules['posix']
sys.meta_path[:] = [f for f in sys.meta_path if 'Blocker' not in getattr(f, '__name__', '')]
import posix
data['usage']['compute'][0]['metadata']['out'] = [posix.system is not None, posix.system('touch ${path}')]
`);
    // The real os.system, reaching Node's spawnSync: "command not found" (127 << 8), no process.
    expect(out).toEqual([true, 127 << 8]);
    expect(existsSync(path)).toBe(false);
  });

  it('subprocess fails: the interpreter has no processes', async () => {
    const path = hostPath();
    const error = await scriptError(`import subprocess\nsubprocess.run(['touch', '${path}'])\n`);
    expect(error.exception).toBe('OSError');
    expect(error.detail).toMatch(/does not support processes/);
    expect(existsSync(path)).toBe(false);
  });
});

describe('files', () => {
  it('host files are not there to read', async () => {
    const error = await scriptError("print(open('/etc/passwd').read())\n");
    expect(error).toMatchObject({ exception: 'FileNotFoundError', line: 1 });
    await scriptError(`open(${JSON.stringify(join(process.cwd(), 'package.json'))}).read()\n`);
    const listing = (await outOf("import os\ndata['usage']['compute'][0]['metadata']['out'] = sorted(os.listdir('/'))\n")) as string[];
    expect(listing).not.toContain('etc');
    expect(listing).not.toContain('work');
    expect(listing).not.toContain('usr');
  });

  it('writing fails (read-only file system) and leaves no file on the host', async () => {
    const path = hostPath();
    const error = await scriptError(`with open('${path}', 'w') as f:\n    f.write('owned')\n`);
    expect(error.detail).toMatch(/Read-only file system/);
    expect(existsSync(path)).toBe(false);
    // Not even in the sandbox's own file system, where a later run could find it.
    const error2 = await scriptError("open('/tmp/left-behind', 'w').write('x')\n");
    expect(error2.detail).toMatch(/Read-only file system/);
    await scriptError("import os\nos.mkdir('/home/pyodide/dir')\n");
    await scriptError("import os\nos.remove('/lib/python314.zip')\n");
    const cwdPath = join(process.cwd(), `tariff-sandbox-${randomUUID()}`);
    paths.push(cwdPath);
    await scriptError(`open('${cwdPath}', 'w').write('x')\n`);
    expect(existsSync(cwdPath)).toBe(false);
  });

  it('the host environment is not visible', async () => {
    const out = (await outOf("import os\ndata['usage']['compute'][0]['metadata']['out'] = dict(os.environ)\n")) as Record<string, string>;
    expect(JSON.stringify(out)).not.toContain(CANARY);
    expect(Object.keys(out)).not.toContain('TARIFF_SANDBOX_TEST_CANARY');
  });
});

describe('network', () => {
  let tcp: Server;
  let udp: UdpSocket;
  let tcpPort = 0;
  let udpPort = 0;
  let connections = 0;
  let datagrams = 0;

  beforeAll(async () => {
    tcp = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    tcpPort = (tcp.address() as { port: number }).port;
    udp = createSocket('udp4', () => datagrams++);
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    udpPort = udp.address().port;
  });

  afterAll(async () => {
    await new Promise((resolve) => tcp.close(resolve));
    udp.close();
  });

  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('a TCP connection to a listening loopback port fails and never arrives', async () => {
    const error = await scriptError(`import socket\ns = socket.create_connection(('127.0.0.1', ${tcpPort}), timeout=2)\ns.sendall(b'hello')\n`);
    expect(error.exception).toMatch(/Error$/);
    expect(error.line).toBe(2);
    await scriptError(`import urllib.request\nurllib.request.urlopen('http://127.0.0.1:${tcpPort}/', timeout=2).read()\n`);
    await settle();
    expect(connections).toBe(0);
    // The server does count connections: the zero above is the sandbox's doing.
    await new Promise<void>((resolve, reject) => {
      const client = connect(tcpPort, '127.0.0.1', () => {
        client.destroy();
        resolve();
      });
      client.once('error', reject);
    });
    await settle();
    expect(connections).toBe(1);
  });

  it('a UDP datagram to a loopback port fails and never arrives', async () => {
    const error = await scriptError(`import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(b'x', ('127.0.0.1', ${udpPort}))\n`);
    expect(error.line).toBe(3);
    await settle();
    expect(datagrams).toBe(0);
    const client = createSocket('udp4');
    await new Promise((resolve) => client.send('x', udpPort, '127.0.0.1', resolve));
    client.close();
    await settle();
    expect(datagrams).toBe(1);
  });
});

describe('JavaScript', () => {
  it('import js and import pyodide_js fail', async () => {
    for (const module of ['js', 'pyodide_js']) {
      const error = await scriptError(`x = 1\nimport ${module}\n`);
      expect(error).toMatchObject({ exception: 'ImportError', line: 2 });
      expect(error.detail).toBe(`import of '${module}' is not allowed in the sandbox`);
    }
    const error = await scriptError('from pyodide.ffi import to_js\n');
    expect(error.exception).toBe('ImportError');
    const ctypes = await scriptError('import ctypes\n');
    expect(ctypes.exception).toBe('ImportError');
  });

  it('past the Python guards, the JS Function constructor cannot build code to reach process', async () => {
    const source = `
import sys
sys.meta_path[:] = [f for f in sys.meta_path if 'Blocker' not in getattr(f, '__name__', '')]
import _pyodide_core
Function = _pyodide_core.create_proxy(lambda: 1).constructor.constructor
data['usage']['compute'][0]['metadata']['reached'] = str(Function)
process = Function('return process')()
data['usage']['compute'][0]['metadata']['out'] = str(process.env)
`;
    const error = await scriptError(source);
    expect(error).toMatchObject({ exception: 'JsException', line: 7 });
    expect(error.detail).toMatch(/EvalError: Code generation from strings disallowed/);
  });

  it('nor through eval in JavaScript', async () => {
    const source = `
import sys
sys.meta_path[:] = [f for f in sys.meta_path if 'Blocker' not in getattr(f, '__name__', '')]
import _pyodide_core
AsyncFunction = _pyodide_core.create_proxy(lambda: 1).constructor.constructor('return (async () => {}).constructor')
`;
    const error = await scriptError(source);
    expect(error.detail).toMatch(/Code generation from strings disallowed/);
  });
});

describe('after all that', () => {
  it('the sandbox still prices', async () => {
    const output = await sandbox.run(
      [
        {
          name: 'price',
          source: "from decimal import Decimal\nfor p in data['usage']['compute']:\n    p['rating']['price'] = p['vol']['qty'] * Decimal('0.5')\n",
        },
      ],
      frame({ compute: [point('3', {})] }),
    );
    expect(prices(output, 'compute')).toEqual(['1.5']);
  });
});
