/**
 * The child program: what runs inside each sandbox worker process (the API process's handle on
 * that process is `worker-process.ts`).
 *
 * {@link runChildProgram} is never called in the API process. `worker-process.ts` starts this
 * file as the main module of a worker process under Node's permission model (which allows reading
 * it and the pyodide package, nothing else), and sends the {@link WorkerConfig} as the first IPC
 * message (fix, issue 26: the program and its Python were inlined in the command line, 38 KB of
 * `ps` and `top`). It must stay self-contained: no imports but types (Node modules come from
 * `process.getBuiltinModule`, pyodide from `importModule`); it runs as `.js` from dist/ and as
 * `.ts`, its types stripped by Node, from src/ (the tests).
 *
 * Order matters. Before pyodide loads: the `process.binding('constants')` shim, network functions
 * replaced by throwing ones, child processes by failing ones, and the cap on the interpreter's
 * WebAssembly memory. After it loads: the `js`/`pyodide_js` modules unregistered, the virtual file
 * system made read-only, the interrupt hook installed, the Python harness set up, and the host
 * objects a script could reach through JavaScript (`process`, `require`) removed from the globals.
 */
import type { Outcome, WorkerConfig, WorkerMessage, WorkerRequest, WorkerStart } from './protocol.js';

/** The slice of pyodide's API the worker uses. */
interface Pyodide {
  runPython(code: string, options?: { globals?: unknown }): unknown;
  setInterruptBuffer(buffer: unknown): void;
  unregisterJsModule(name: string): void;
  globals: { get(name: string): (...args: unknown[]) => unknown };
  FS: { nodePermissions: (node: unknown, perms: string) => number };
}

/**
 * Runs the worker: starts pyodide confined, answers {@link WorkerRequest}s on the IPC channel
 * one at a time, and exits when the channel closes.
 *
 * @param config - what to load and the memory cap.
 * @param importModule - `(url) => import(url)`, defined by this module (below).
 */
export async function runChildProgram(config: WorkerConfig, importModule: (url: string) => Promise<unknown>): Promise<void> {
  const proc = process;
  const send = (message: WorkerMessage, then?: () => void): void => {
    proc.send?.(message, undefined, undefined, then);
  };
  proc.on('disconnect', () => proc.exit(0));

  // ---- Before pyodide loads ------------------------------------------------------------------
  const fs = proc.getBuiltinModule('node:fs');
  const os = proc.getBuiltinModule('node:os');
  // process.binding is denied under the permission model, but pyodide's NODEFS asks it for the
  // constants (and nothing else here needs it).
  const withBinding = proc as unknown as { binding: (name: string) => unknown };
  const originalBinding = withBinding.binding.bind(proc);
  withBinding.binding = (name: string) => (name === 'constants' ? { fs: fs.constants, os: os.constants } : originalBinding(name));

  const denied = (what: string) =>
    function deniedInSandbox(): never {
      throw new Error(`${what} is not allowed in the sandbox`);
    };
  const replaceAll = (target: object | undefined, names: string[], what: string): void => {
    if (!target) return;
    for (const name of names) {
      if (typeof (target as Record<string, unknown>)[name] === 'function') {
        // Writable: modules loaded later may assign over an inherited one (https.Agent does).
        // Nothing keeps the original, so there is nothing to restore it from.
        Object.defineProperty(target, name, { value: denied(`${what}.${name}`), writable: true, configurable: true });
      }
    }
  };
  // Load every module first: some patch their parents' prototypes as they load.
  const [net, dgram, http, https, http2, tls, dns, inspector, childProcess] = [
    proc.getBuiltinModule('node:net'),
    proc.getBuiltinModule('node:dgram'),
    proc.getBuiltinModule('node:http'),
    proc.getBuiltinModule('node:https'),
    proc.getBuiltinModule('node:http2'),
    proc.getBuiltinModule('node:tls'),
    proc.getBuiltinModule('node:dns'),
    proc.getBuiltinModule('node:inspector'),
    proc.getBuiltinModule('node:child_process'),
  ] as const;
  replaceAll(net, ['connect', 'createConnection'], 'net');
  replaceAll(net.Socket.prototype, ['connect'], 'net.Socket');
  replaceAll(net.Server.prototype, ['listen', '_listen2'], 'net.Server');
  replaceAll(dgram, ['createSocket'], 'dgram');
  replaceAll(dgram.Socket.prototype, ['bind', 'connect', 'send'], 'dgram.Socket');
  for (const [name, module] of [
    ['http', http],
    ['https', https],
  ] as const) {
    replaceAll(module, ['request', 'get'], name);
    replaceAll(module.Agent.prototype, ['createConnection'], `${name}.Agent`);
  }
  replaceAll(http2, ['connect'], 'http2');
  replaceAll(tls, ['connect'], 'tls');
  const dnsFunctions = (target: object) => Object.keys(target).filter((name) => /^(lookup|resolve|reverse)/.test(name));
  replaceAll(dns, dnsFunctions(dns), 'dns');
  replaceAll(dns.promises, dnsFunctions(dns.promises), 'dns.promises');
  replaceAll(
    dns.Resolver.prototype,
    Object.getOwnPropertyNames(dns.Resolver.prototype).filter((n) => n !== 'constructor'),
    'dns.Resolver',
  );
  replaceAll(
    dns.promises.Resolver.prototype,
    Object.getOwnPropertyNames(dns.promises.Resolver.prototype).filter((n) => n !== 'constructor'),
    'dns.Resolver',
  );
  replaceAll(inspector, ['open', 'url', 'waitForDebugger'], 'inspector');
  // os.system() reaches spawnSync; answer "command not found" (the permission model denies it anyway).
  Object.defineProperty(childProcess, 'spawnSync', {
    value: () => ({ pid: 0, output: [], stdout: null, stderr: null, status: 127, signal: null, error: new Error('not allowed') }),
  });
  replaceAll(childProcess, ['spawn', 'exec', 'execFile', 'execSync', 'execFileSync', 'fork'], 'child_process');
  for (const name of ['fetch', 'WebSocket', 'EventSource']) {
    Object.defineProperty(globalThis, name, { value: denied(name), writable: true, configurable: true });
  }

  // The memory cap: pyodide grows its WebAssembly memory through emscripten_resize_heap, which
  // calls memory.grow; past the cap growth fails, malloc returns NULL and Python raises MemoryError.
  const limit = config.memoryLimitBytes;
  let memoryExceeded = false;
  let growRequest = 0;
  let capInstalled = false;
  const originalInstantiate = WebAssembly.instantiate;
  const capMemory = (memory: WebAssembly.Memory): void => {
    // The original, called with the memory as `this` below.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const grow = memory.grow;
    Object.defineProperty(memory, 'grow', {
      value: function cappedGrow(this: WebAssembly.Memory, pages: number): number {
        const current = this.buffer.byteLength;
        if (current + pages * 65536 > limit) {
          // Emscripten asks for 20% more than it needs; give it what fits when that is enough.
          if (growRequest === 0 || growRequest > limit) {
            memoryExceeded = true;
            throw new RangeError('sandbox memory limit');
          }
          pages = Math.floor((limit - current) / 65536);
        }
        return grow.call(this, pages);
      },
    });
    capInstalled = true;
  };
  WebAssembly.instantiate = async function instantiateCapped(source: unknown, imports?: WebAssembly.Imports) {
    const env = imports?.env as Record<string, unknown> | undefined;
    const resize = env?.emscripten_resize_heap as ((size: number) => number) | undefined;
    if (env && resize) {
      env.emscripten_resize_heap = (size: number): number => {
        size = size >>> 0;
        if (size > limit) {
          memoryExceeded = true;
          return 0;
        }
        growRequest = size;
        try {
          return resize(size);
        } finally {
          growRequest = 0;
        }
      };
    }
    const result = (await (originalInstantiate as (s: unknown, i?: WebAssembly.Imports) => Promise<unknown>)(source, imports)) as
      WebAssembly.Instance | { instance: WebAssembly.Instance };
    const instance = 'instance' in result ? result.instance : result;
    const memory = instance.exports.memory;
    if (resize && memory instanceof WebAssembly.Memory) capMemory(memory);
    return result;
  } as typeof WebAssembly.instantiate;

  // ---- Load pyodide --------------------------------------------------------------------------
  let py: Pyodide;
  let dispatch: (op: string, a?: string, b?: string) => string;
  let deadline = 0;
  let timedOut = false;
  /** The script running in the current request; -1 before the first, the script count after the last. */
  let current = -1;
  try {
    const { loadPyodide } = (await importModule(config.pyodideUrl)) as { loadPyodide: (options: object) => Promise<Pyodide> };
    const quiet = () => {};
    py = await loadPyodide({
      indexURL: `${config.pyodideDir}/`,
      jsglobals: Object.create(null) as object,
      env: { HOME: '/home/pyodide' },
      stdin: () => null,
      stdout: quiet,
      stderr: quiet,
    });
    WebAssembly.instantiate = originalInstantiate;
    if (!capInstalled) throw new Error('could not install the memory cap');
    py.unregisterJsModule('js');
    py.unregisterJsModule('pyodide_js');

    // A read-only file system: nothing may be created, written, renamed or deleted.
    const FS = py.FS;
    const nodePermissions = FS.nodePermissions;
    FS.nodePermissions = (node: unknown, perms: string) => (perms.includes('w') ? 69 /* EROFS */ : nodePermissions(node, perms));

    // The interrupt hook: pyodide reads element 0 every 50 bytecodes; 2 raises KeyboardInterrupt.
    // Nothing else in this process can run while Python does (no worker threads under the
    // permission model), so the "buffer" reads the clock itself, every 64th read.
    let reads = 0;
    let lastFired = 0;
    py.setInterruptBuffer({
      get 0(): number {
        if (deadline === 0 || (++reads & 63) !== 0) return 0;
        const now = Date.now();
        if (now < deadline || now - lastFired < 50) return 0;
        lastFired = now;
        timedOut = true;
        return 2;
      },
      set 0(_value: number) {},
    });

    const namespace = py.globals.get('dict')();
    dispatch = py.runPython(config.python, { globals: namespace }) as typeof dispatch;
  } catch (error) {
    send({ kind: 'startup-failed', message: error instanceof Error ? error.message : String(error) }, () => proc.exit(1));
    return;
  }

  // ---- Remove the host from reach -------------------------------------------------------------
  const standIn = Object.freeze({
    version: proc.version,
    versions: proc.versions,
    platform: proc.platform,
    env: Object.freeze({}),
    argv: Object.freeze([]),
    getuid: () => 0,
    umask: () => 0o022,
    cwd: () => '/',
  });
  Object.defineProperty(globalThis, 'process', { value: standIn, writable: false, configurable: false });
  for (const name of ['require', 'module', 'exports', '__filename', '__dirname']) {
    delete (globalThis as Record<string, unknown>)[name];
  }
  for (const name of [
    'kill',
    '_kill',
    'dlopen',
    '_linkedBinding',
    '_debugProcess',
    '_debugEnd',
    'chdir',
    'setuid',
    'setgid',
    'seteuid',
    'setegid',
    'setgroups',
    'initgroups',
    'abort',
  ]) {
    if (typeof (proc as unknown as Record<string, unknown>)[name] === 'function') {
      Object.defineProperty(proc, name, { value: denied(`process.${name}`), writable: false, configurable: false });
    }
  }
  Object.defineProperty(proc, 'binding', { value: denied('process.binding'), writable: false, configurable: false });

  // ---- Serve ----------------------------------------------------------------------------------
  type Answer = Record<string, unknown> & { status?: string; ok?: boolean };
  const call = (op: string, a = '', b = ''): Answer => JSON.parse(dispatch(op, a, b)) as Answer;
  const failed = (answer: Answer, index: number): Outcome | null => {
    if (memoryExceeded || answer.status === 'memory' || (answer.status === 'raised' && answer.exception === 'MemoryError')) {
      return { type: 'memory', index };
    }
    if (timedOut || answer.status === 'interrupted') return { type: 'timeout', index };
    switch (answer.status) {
      case 'ok':
        return null;
      case 'raised':
        return {
          type: 'raised',
          index,
          exception: String(answer.exception),
          detail: String(answer.detail),
          line: typeof answer.line === 'number' ? answer.line : null,
        };
      case 'invalid':
        return { type: 'invalid-data', index, detail: String(answer.detail) };
      case 'input-error':
        return { type: 'input-error', detail: String(answer.detail) };
      case 'internal': {
        // The harness's own work failed; it names what the script replaced, if that was the cause.
        const replaced = Array.isArray(answer.replaced) ? answer.replaced.map(String) : [];
        const detail = String(answer.detail);
        return {
          type: 'fatal',
          index,
          detail:
            replaced.length > 0
              ? `the script replaced ${replaced.join(', ')}, which the sandbox relies on (${detail})`
              : `the sandbox's own code failed: ${detail}`,
        };
      }
      default:
        return { type: 'fatal', index, detail: `unexpected answer from the sandbox's own code: ${String(answer.status)}` };
    }
  };

  /** Words what was thrown out of the interpreter: an Error's message, or what else it was. */
  const describe = (thrown: unknown): string => {
    const message = (thrown as { message?: unknown } | null)?.message;
    if (typeof message === 'string' && message !== '') return message;
    const errno = (thrown as { errno?: unknown } | null)?.errno;
    // Emscripten's file-system error (errno 69 is EROFS: pyodide tried to write while reporting
    // a Python error, and the file system is read-only).
    if (typeof errno === 'number')
      return `the interpreter failed while reporting an error (file system error ${errno}${errno === 69 ? ', read-only file system' : ''})`;
    const name = (thrown as { name?: unknown } | null)?.name;
    return `the interpreter threw ${typeof name === 'string' ? name : typeof thrown}`;
  };

  const compile = (request: Extract<WorkerRequest, { kind: 'compile' }>): Outcome => {
    current = 0;
    deadline = Date.now() + request.budgetMs;
    const answer = call('compile', request.name, request.source);
    // Compiling is one C call that the interrupt cannot stop: one that ends past the deadline is
    // past the limit too, however it ended.
    const late = Date.now() > deadline;
    deadline = 0;
    if (typeof answer.ok === 'boolean') {
      const failure = memoryExceeded ? { type: 'memory' as const, index: 0 } : timedOut || late ? { type: 'timeout' as const, index: 0 } : null;
      if (failure) return failure;
      return answer.ok
        ? { type: 'compiled', result: { ok: true } }
        : { type: 'compiled', result: { ok: false, message: String(answer.message), line: Number(answer.line), column: Number(answer.column) } };
    }
    return failed(answer, 0) ?? { type: 'fatal', index: 0, detail: 'unexpected answer' };
  };

  const run = (request: Extract<WorkerRequest, { kind: 'run' }>): Outcome => {
    const begun = failed(call('begin', JSON.stringify(request.scripts), request.dataframe), -1);
    if (begun) return begun;
    const prices: Array<Record<string, string[]>> = [];
    for (let index = 0; index < request.scripts.length; index++) {
      current = index;
      send({ kind: 'script', id: request.id, index });
      if (deadline === 0) deadline = Date.now() + request.budgetMs;
      const answer = call('exec', String(index), request.tracePrices ? '1' : '');
      const outcome = failed(answer, index);
      if (outcome) return outcome;
      if (request.tracePrices) prices.push(answer.prices as Record<string, string[]>);
    }
    deadline = 0;
    send({ kind: 'scripts-done', id: request.id });
    current = request.scripts.length;
    const text = dispatch('finish');
    if (text.startsWith('=')) return request.tracePrices ? { type: 'ok', dataframe: text.slice(1), prices } : { type: 'ok', dataframe: text.slice(1) };
    return failed(JSON.parse(text.slice(1)) as Answer, current) ?? { type: 'fatal', index: current, detail: 'unexpected answer' };
  };

  proc.on('message', (request: WorkerRequest) => {
    deadline = 0;
    timedOut = false;
    memoryExceeded = false;
    current = -1;
    let outcome: Outcome;
    try {
      outcome = request.kind === 'compile' ? compile(request) : run(request);
    } catch (error) {
      // A fatal interpreter error (stack overflow, a trap) or a Python error that escaped.
      outcome = memoryExceeded ? { type: 'memory', index: current } : { type: 'fatal', index: current, detail: describe(error).slice(0, 300) };
    }
    deadline = 0;
    send({ kind: 'outcome', id: request.id, outcome });
  });
  send({ kind: 'ready' });
}

// The main module of a worker process: wait for the configuration, then serve.
if (import.meta.main) {
  process.once('message', (message: WorkerStart) => {
    void runChildProgram(message.config, (url) => import(url));
  });
}
