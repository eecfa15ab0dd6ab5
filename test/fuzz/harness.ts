/**
 * The fuzzer's target: a real Tariff server process on a scratch database of the run's kind, with
 * pyscripts sandbox workers and a short script timeout, seeded with a small configuration (so path
 * parameters name existing objects and quotes reach the hashmap and pyscripts engines), and the
 * watchers that turn each request into a verdict:
 *
 * - the answer is not a 5xx and comes within {@link FuzzLimits.answerMs};
 * - a `/healthcheck` poller, running all along, never waits more than {@link FuzzLimits.healthMs};
 * - the server's resident memory grows less than {@link FuzzLimits.rssGrowthMb} over the run;
 * - a refused (4xx) request leaves every table as it was (fingerprints before and after).
 *
 * Requests are sent one at a time over real HTTP (node:http), so each verdict belongs to one request.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultModuleNames } from '../../src/rating/registry.js';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/databases.js';
import { fingerprintChanges, openFingerprinter, type DatabaseFingerprinter, type Fingerprint } from '../helpers/database-fingerprint.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import type { IdKind, IdRef } from './arbitraries.js';
import { resolveRequest, routesOf, type RequestSpec, type ResolvedRequest, type Route } from './requests.js';

const H = '/v1/rating/module_config/hashmap';
const P = '/v1/rating/module_config/pyscripts';

/** The bounds every request is held to. */
export interface FuzzLimits {
  /** Longest time from sending a request to its whole answer. */
  answerMs: number;
  /** Longest `/healthcheck` answer while a request is under way. */
  healthMs: number;
  /** Largest growth of the server's VmRSS over its first measurement, after warm-up. */
  rssGrowthMb: number;
  /** When the client gives up waiting (a stall past this is reported as no answer). */
  clientTimeoutMs: number;
}

/** The default bounds: generous for a loaded 2-core CI machine, tight enough to catch a blocked event loop. */
export const DEFAULT_LIMITS: FuzzLimits = { answerMs: 2000, healthMs: 1000, rssGrowthMb: 300, clientTimeoutMs: 10_000 };

/** What a request came to. */
export interface Outcome {
  /** Undefined when the request broke none of the rules. */
  failure?: string;
  /** A short signature of the failure (route, symptoms, message) to group distinct failures by. */
  signature?: string;
  /** The signature without the route: the same defect seen on several routes. */
  kind?: string;
  status?: number;
  milliseconds: number;
}

interface Answer {
  status?: number;
  contentType?: string;
  text: string;
  milliseconds: number;
  /** Set when no answer came (connection reset, timeout). */
  error?: string;
  /** Set when Node refused to send the request at all (not the server's doing). */
  unsendable?: string;
}

/** Sends one request and reads (up to `maxAnswerBytes`, 64 KiB by default, of) the answer. */
function send(port: number, agent: Agent | false, request: ResolvedRequest, timeoutMs: number, maxAnswerBytes = 65_536): Promise<Answer> {
  return new Promise((resolve) => {
    const started = performance.now();
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.contentType !== undefined) headers['content-type'] = request.contentType;
    if (request.body !== undefined) headers['content-length'] = request.body.length;
    let settled = false;
    const finish = (answer: Omit<Answer, 'milliseconds'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...answer, milliseconds: performance.now() - started });
    };
    let outgoing: ReturnType<typeof httpRequest>;
    try {
      outgoing = httpRequest({ host: '127.0.0.1', port, method: request.method, path: request.url, headers, agent });
    } catch (error) {
      resolve({ text: '', milliseconds: 0, unsendable: String(error) });
      return;
    }
    const timer = setTimeout(() => {
      finish({ text: '', error: `no answer within ${timeoutMs} ms` });
      outgoing.destroy();
    }, timeoutMs);
    outgoing.on('error', (error) => finish({ text: '', error: `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}` }));
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        if (length < maxAnswerBytes) chunks.push(chunk);
        length += chunk.length;
      });
      response.on('end', () =>
        finish({ status: response.statusCode, contentType: response.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', (error) => finish({ status: response.statusCode, text: '', error: `answer cut: ${error.message}` }));
    });
    outgoing.end(request.body);
  });
}

/** The server's resident memory in MiB, from /proc (undefined where there is none). */
function rssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Polls `/healthcheck` one request at a time, every 100 ms, remembering how long each took. */
class HealthPoller {
  private samples: { started: number; ended: number; milliseconds: number; error?: string }[] = [];
  private current?: Promise<void>;
  private running = true;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly loop: Promise<void>;

  constructor(private readonly port: () => number) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const started = performance.now();
      this.current = send(this.port(), this.agent, { method: 'GET', url: '/healthcheck' }, 5000).then((answer) => {
        const error = answer.error ?? (answer.status === 200 ? undefined : `status ${answer.status}`);
        this.samples.push({ started, ended: performance.now(), milliseconds: answer.milliseconds, error });
        if (this.samples.length > 1000) this.samples.splice(0, 500);
      });
      await this.current;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The worst health check that overlapped [from, now], after the one under way has finished. */
  async worstSince(from: number): Promise<{ milliseconds: number; error?: string } | undefined> {
    await this.current;
    let worst: { milliseconds: number; error?: string } | undefined;
    for (const sample of this.samples) {
      if (sample.ended < from) continue;
      if (!worst || sample.error || sample.milliseconds > worst.milliseconds) worst = sample;
      if (sample.error) break;
    }
    return worst;
  }

  /** The slowest health check so far. */
  slowest(): number {
    return Math.max(0, ...this.samples.map((sample) => sample.milliseconds));
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    this.agent.destroy();
  }
}

/** One seeded object: how to see it is still there and how to make it again. */
interface SeedItem {
  kind: IdKind;
  index: number;
  /** The GET path of the object with this id. */
  path: (id: string) => string;
  /** Whether the object as GET shows it still does its job (not deleted, not ended). */
  alive?: (body: any) => boolean;
  /** The POST path and body that make it. */
  create: () => { path: string; body: unknown };
  /** The attribute holding the new object's id. */
  idKey: string;
}

const UNKNOWN_ID = '5f0d6e7a-3b1c-4d2e-9f8a-0b1c2d3e4f50';

/** The script the seeded configuration runs on every quote: it touches every compute point's price. */
const SEED_SCRIPT =
  "from decimal import Decimal\nfor point in data['usage'].get('compute', []):\n    point['rating']['price'] = point['rating']['price'] + point['vol']['qty'] * Decimal('0.01')\n";

/** Statistics of a run, for the summary line. */
export interface FuzzStatistics {
  requests: number;
  byStatus: Record<string, number>;
  byClass: Record<string, number>;
  restarts: number;
  slowestAnswerMs: number;
  slowestHealthMs: number;
  rssBaselineMb?: number;
  rssPeakMb?: number;
}

/** A running server to fuzz; {@link FuzzTarget.stop} when done. */
export interface FuzzTarget {
  /** Every operation of the server's OpenAPI document, plus the routes it leaves out. */
  routes: Route[];
  databaseUrl: string;
  /** Sends one request and judges it. */
  exercise(route: Route, spec: RequestSpec): Promise<Outcome>;
  statistics(): FuzzStatistics;
  stop(): Promise<void>;
}

/** Starts a server on a new scratch database, seeds it, warms it up and starts the watchers. */
export async function startFuzzTarget(limits: FuzzLimits = DEFAULT_LIMITS): Promise<FuzzTarget> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-fuzz-'));
  const scratch: ScratchDatabase = await createScratchDatabase(directory);
  const environment = { TARIFF_SANDBOX_WORKERS: '2', TARIFF_SCRIPT_TIMEOUT_MS: '1000', TARIFF_LOG_LEVEL: 'warn' };
  let server: ServerProcess = await startServerProcess(scratch.url, environment);
  let agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const fingerprinter: DatabaseFingerprinter = openFingerprinter(scratch.url);
  const pool: Record<IdKind, string[]> = {
    service: [],
    field: [],
    group: [],
    mapping: [],
    threshold: [],
    script: [],
    module: defaultModuleNames(),
    unknown: [UNKNOWN_ID],
  };
  const resolve = (ref: IdRef): string => {
    const ids = pool[ref.kind];
    return ids.length ? ids[ref.index % ids.length] : UNKNOWN_ID;
  };
  let scriptCounter = 0;
  const seed: SeedItem[] = [
    {
      kind: 'service',
      index: 0,
      path: (id) => `${H}/services/${id}`,
      create: () => ({ path: `${H}/services`, body: { name: 'compute' } }),
      idKey: 'service_id',
    },
    {
      kind: 'service',
      index: 1,
      path: (id) => `${H}/services/${id}`,
      create: () => ({ path: `${H}/services`, body: { name: 'volume' } }),
      idKey: 'service_id',
    },
    {
      kind: 'field',
      index: 0,
      path: (id) => `${H}/fields/${id}`,
      create: () => ({ path: `${H}/fields`, body: { service_id: pool.service[0], name: 'flavor' } }),
      idKey: 'field_id',
    },
    {
      kind: 'field',
      index: 1,
      path: (id) => `${H}/fields/${id}`,
      create: () => ({ path: `${H}/fields`, body: { service_id: pool.service[0], name: 'memory' } }),
      idKey: 'field_id',
    },
    { kind: 'group', index: 0, path: (id) => `${H}/groups/${id}`, create: () => ({ path: `${H}/groups`, body: { name: 'fz-group' } }), idKey: 'group_id' },
    ...[
      () => ({ field_id: pool.field[0], value: 'm1.tiny', cost: '1.5', type: 'flat', group_id: pool.group[0] }),
      () => ({ service_id: pool.service[0], cost: '0.1', type: 'rate' }),
      () => ({ service_id: pool.service[1], cost: '0.01', type: 'flat' }),
    ].map((body, index): SeedItem => ({
      kind: 'mapping',
      index,
      path: (id) => `${H}/mappings/${id}`,
      alive: (mapping) => !mapping.deleted && (!mapping.end || Date.parse(mapping.end) > Date.now() + 60_000),
      create: () => ({ path: `${H}/mappings`, body: body() }),
      idKey: 'mapping_id',
    })),
    ...[
      () => ({ field_id: pool.field[1], level: '10', cost: '0.9', type: 'rate', group_id: pool.group[0] }),
      () => ({ field_id: pool.field[1], level: '1000000', cost: '0.5', type: 'rate' }),
      () => ({ service_id: pool.service[0], level: '5', cost: '0.5', type: 'flat' }),
    ].map((body, index): SeedItem => ({
      kind: 'threshold',
      index,
      path: (id) => `${H}/thresholds/${id}`,
      create: () => ({ path: `${H}/thresholds`, body: body() }),
      idKey: 'threshold_id',
    })),
    {
      kind: 'script',
      index: 0,
      path: (id) => `${P}/scripts/${id}`,
      alive: (script) => !script.deleted && (!script.end || Date.parse(script.end) > Date.now() + 60_000),
      create: () => ({ path: `${P}/scripts`, body: { name: `fz-script-${scriptCounter++}`, data: SEED_SCRIPT } }),
      idKey: 'script_id',
    },
  ];

  /** A JSON call for seeding (not judged). */
  async function call(method: string, path: string, body?: unknown): Promise<{ status?: number; body: any }> {
    const answer = await send(
      server.port,
      agent,
      { method, url: path, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)), contentType: 'application/json' },
      30_000,
      // The harness's own calls read whole answers (the OpenAPI document is about 200 KB).
      16 * 1024 * 1024,
    );
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      parsed = undefined;
    }
    return { status: answer.status, body: parsed };
  }

  /** Makes again whatever seeded object a request deleted, ended or disabled. */
  async function ensureSeed(): Promise<void> {
    for (const module of ['hashmap', 'pyscripts']) {
      const state = await call('GET', `/v1/rating/modules/${module}`);
      if (state.body?.enabled !== true) await call('PUT', `/v2/rating/modules/${module}`, { enabled: true });
    }
    for (const item of seed) {
      const id = pool[item.kind][item.index];
      if (id) {
        const current = await call('GET', item.path(id));
        if (current.status === 200 && (!item.alive || item.alive(current.body))) continue;
      }
      const { path, body } = item.create();
      const created = await call('POST', path, body);
      if (created.status === 201 && typeof created.body?.[item.idKey] === 'string') pool[item.kind][item.index] = created.body[item.idKey];
    }
  }

  /** Waits until a quote through both engines answers (the sandbox workers have loaded). */
  async function warmUp(): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const answer = await call('POST', '/v2/rating/quote', {
        usage: { compute: [{ vol: { unit: 'instance', qty: '12' }, rating: { price: '0' }, groupby: { flavor: 'm1.tiny', memory: '512' } }] },
      });
      if (answer.status === 200) break;
      if (Date.now() > deadline) throw new Error(`the server does not quote: ${answer.status} ${JSON.stringify(answer.body)}\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (let index = 0; index < 20; index++) {
      await call('POST', '/v1/rating/quote', {
        resources: [{ service: 'compute', volume: String(index), desc: { flavor: 'm1.tiny', memory: String(index) } }],
      });
      await call('GET', `${H}/mappings?service_id=${pool.service[0]}`);
    }
  }

  await ensureSeed();
  const missing = seed.filter((item) => !pool[item.kind][item.index]);
  if (missing.length) throw new Error(`could not seed ${missing.map((item) => `${item.kind} #${item.index}`).join(', ')}:\n${server.output()}`);
  await warmUp();
  const document = await call('GET', '/v1/openapi.json');
  if (document.status !== 200) throw new Error(`GET /v1/openapi.json answered ${document.status}`);
  const routes = routesOf(document.body);

  const health = new HealthPoller(() => server.port);
  let rssBaseline = rssMb(server.child.pid);
  const statistics: FuzzStatistics = {
    requests: 0,
    byStatus: {},
    byClass: {},
    restarts: 0,
    slowestAnswerMs: 0,
    slowestHealthMs: 0,
    rssBaselineMb: rssBaseline,
    rssPeakMb: rssBaseline,
  };
  let cached: Fingerprint | undefined;

  /** A new server process on the same database after one died (its death was reported already). */
  async function restart(): Promise<void> {
    await server.kill();
    agent.destroy();
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    server = await startServerProcess(scratch.url, environment);
    statistics.restarts++;
    await ensureSeed();
    await warmUp();
    rssBaseline = rssMb(server.child.pid);
    cached = undefined;
  }

  const alive = () => server.child.exitCode === null && server.child.signalCode === null;

  async function exercise(route: Route, spec: RequestSpec): Promise<Outcome> {
    if (!alive()) await restart();
    const before = cached ?? (await fingerprinter.take());
    const request = resolveRequest(route, spec, resolve);
    const logFrom = server.output().length;
    const started = performance.now();
    // A new connection per request: a reused one the server closed meanwhile would look like a reset.
    let answer = await send(server.port, false, request, limits.clientTimeoutMs);
    if (answer.unsendable) return { milliseconds: 0 };
    if (request.method === 'HEAD' && answer.error?.includes('HPE_')) {
      // A request line the server cannot parse gets a fault with a body, which a HEAD client reads
      // as a malformed next answer: the same request as a GET shows what the server answered.
      answer = await send(server.port, false, { ...request, method: 'GET' }, limits.clientTimeoutMs);
    }
    const worstHealth = await health.worstSince(started);
    // Give a dying process a moment to be seen dead.
    if (answer.error) await new Promise((resolve) => setTimeout(resolve, 200));

    statistics.requests++;
    const statusKey = answer.status === undefined ? 'none' : `${answer.status}`;
    statistics.byStatus[statusKey] = (statistics.byStatus[statusKey] ?? 0) + 1;
    if (spec.hostile) statistics.byClass[spec.hostile] = (statistics.byClass[spec.hostile] ?? 0) + 1;
    statistics.slowestAnswerMs = Math.max(statistics.slowestAnswerMs, answer.milliseconds);
    statistics.slowestHealthMs = Math.max(statistics.slowestHealthMs, health.slowest());

    const problems: { symptom: string; detail: string }[] = [];
    if (!alive())
      problems.push({ symptom: 'server died', detail: `the server process exited (code ${server.child.exitCode}, signal ${server.child.signalCode})` });
    if (answer.error) problems.push({ symptom: 'no answer', detail: `no answer: ${answer.error}` });
    if (answer.status !== undefined && answer.status >= 500) problems.push({ symptom: `${answer.status}`, detail: `answered ${answer.status}` });
    if (answer.milliseconds > limits.answerMs)
      problems.push({ symptom: 'slow', detail: `answered after ${Math.round(answer.milliseconds)} ms (limit ${limits.answerMs} ms)` });
    if (worstHealth && (worstHealth.error || worstHealth.milliseconds > limits.healthMs)) {
      problems.push({
        symptom: 'health stalled',
        detail: `/healthcheck meanwhile: ${worstHealth.error ?? `${Math.round(worstHealth.milliseconds)} ms`} (limit ${limits.healthMs} ms)`,
      });
    }
    const rss = alive() ? rssMb(server.child.pid) : undefined;
    if (rss !== undefined) {
      statistics.rssPeakMb = Math.max(statistics.rssPeakMb ?? 0, rss);
      if (rssBaseline !== undefined && rss - rssBaseline > limits.rssGrowthMb) {
        problems.push({
          symptom: 'memory',
          detail: `server RSS ${Math.round(rss)} MiB, ${Math.round(rss - rssBaseline)} MiB over its ${Math.round(rssBaseline)} MiB after warm-up (limit ${limits.rssGrowthMb} MiB)`,
        });
      }
    }
    if (answer.status !== undefined && answer.status >= 400 && answer.status < 500) {
      const after = await fingerprinter.take();
      const changes = fingerprintChanges(before, after);
      if (changes.length)
        problems.push({ symptom: 'refused but wrote', detail: `refused with ${answer.status}, yet the database changed: ${changes.join(', ')}` });
      cached = after;
    } else {
      cached = undefined;
      const isWrite = !['GET', 'HEAD', 'OPTIONS'].includes(request.method) && !route.path.endsWith('/quote');
      if (answer.status !== undefined && answer.status < 400 && isWrite && alive()) await ensureSeed();
    }
    if (!problems.length) return { status: answer.status, milliseconds: answer.milliseconds };

    // The log line of a 5xx may come just after the answer.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const fault = faultstringOf(answer.text);
    const log = server.output().slice(logFrom);
    // A stuck or bloated server would fail every later request: start a fresh one.
    if (problems.some((problem) => ['no answer', 'health stalled', 'memory'].includes(problem.symptom)) && alive()) {
      const check = await send(server.port, false, { method: 'GET', url: '/healthcheck' }, 10_000);
      if (check.status !== 200 || problems.some((problem) => problem.symptom === 'memory')) await restart();
    }
    const failure = [
      problems.map((problem) => problem.detail).join('; '),
      `  request: ${describe(request)}`,
      `  answer: ${answer.status ?? '-'} ${answer.contentType ?? ''} ${preview(answer.text, 400)}`,
      ...(log ? [`  server log: ${preview(log, 2000)}`] : []),
    ].join('\n');
    const logged = loggedError(log);
    const kind = `${problems.map((problem) => problem.symptom).join('+')} | ${logged ?? (fault ? normalise(fault) : preview(answer.text, 60))}`;
    return { failure, signature: `${spec.route} | ${kind}`, kind, status: answer.status, milliseconds: answer.milliseconds };
  }

  return {
    routes,
    databaseUrl: scratch.url,
    exercise,
    statistics: () => ({ ...statistics }),
    async stop() {
      await health.stop();
      await server.stop();
      agent.destroy();
      await fingerprinter.close();
      await scratch.drop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The first error the server logged (pino JSON lines): type, message and where it was thrown. */
function loggedError(log: string): string | undefined {
  for (const line of log.split('\n')) {
    if (line.includes('Reached heap limit')) return 'JavaScript heap out of memory';
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      if (!entry.err) continue;
      // The first frame in Tariff's own code, e.g. `findNul (http/app.js:111:38)`.
      const frame = /\n\s+at ([^\n]*\/dist\/[^\n]*)/.exec(entry.err.stack ?? '')?.[1]?.replace(/file:\/\/\S*\/dist\//, '');
      return `${entry.err.type}: ${normalise(String(entry.err.message))}${frame ? ` at ${frame}` : ''}`;
    } catch {
      // not a log entry
    }
  }
  return undefined;
}

/** The faultstring of a WSME fault body, if the text is one. */
function faultstringOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text);
    return typeof body?.faultstring === 'string' ? body.faultstring : undefined;
  } catch {
    return undefined;
  }
}

/** A message with its variable parts (ids, numbers, quoted values) blanked, to group failures. */
function normalise(message: string): string {
  return message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/'[^']*'/g, "'…'")
    .replace(/\d+/g, 'N')
    .slice(0, 120);
}

/** Text cut to `limit` characters, with control and non-ASCII characters escaped. */
function preview(text: string, limit: number): string {
  const cut = text.length > limit ? `${text.slice(0, limit)}…(${text.length} chars)` : text;
  return JSON.stringify(cut).slice(1, -1);
}

function isUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

/** A request in one line: method, URL, content type, and the body's first bytes. */
export function describe(request: ResolvedRequest): string {
  const url = request.url.length > 300 ? `${request.url.slice(0, 300)}…(${request.url.length} chars)` : request.url;
  const body =
    request.body === undefined
      ? 'no body'
      : `${request.body.length} bytes${isUtf8(request.body) ? '' : ' (not UTF-8, shown as latin1)'} ${preview(request.body.subarray(0, 400).toString(isUtf8(request.body) ? 'utf8' : 'latin1'), 400)}${request.body.length > 400 ? '…' : ''}`;
  const headers = Object.entries(request.headers ?? {})
    .map(([name, value]) => ` ${name}: ${preview(value, 80)}`)
    .join('');
  return `${request.method} ${JSON.stringify(url).slice(1, -1)} [${request.contentType ?? 'no content type'}${headers}] ${body}`;
}
