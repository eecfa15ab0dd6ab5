#!/usr/bin/env node
// Tariff benchmark: starts Tariff on a fresh SQLite file, seeds it through the HTTP API, runs
// time-bounded autocannon scenarios and prints a markdown table beside CloudKitty 17's measured
// numbers. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { Client } from './lib/client.js';
import { runLoad, stopCurrentLoad } from './lib/load.js';
import { cpuTicksOfTree, freePort, rssMiB, startProcess, stopAll } from './lib/processes.js';
import { fmtMs, fmtRps, markdownTable, targetVerdicts } from './lib/report.js';
import { alternatingRounds, median, percent, scrapeMetrics } from './lib/side-by-side.js';
import { BASELINE, scenarios } from './lib/scenarios.js';
import { ensureDataSet } from './lib/seed.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(BENCH_DIR);

const USAGE = `usage: node bench/run.js [options]

  --duration S            seconds per measured run (default 10)
  --long-duration S       seconds per run of the big mapping list (default: --duration for Tariff,
                          max(60, --duration) for CloudKitty, whose 10,000-mapping list takes ~16 s)
  --warmup S              unmeasured warm-up per scenario, at its highest connection count (default 2; 0 = none)
  --only REGEX            run only the scenarios whose id matches (services_list, mappings_list_10000,
                          mapping_get, mapping_create, scripts_list, quote_v1, quote_v2_100)
  --database-url URL      run Tariff on this database instead of a fresh SQLite file; an empty database
                          is seeded, one holding the bench data set is reused
  --port N                Tariff's port (default: a free one); Tariff always binds 127.0.0.1
  --mappings N            size of the big mapping list (default 10000; baselines exist for 10000 only)
  --seed-concurrency N    HTTP clients used for seeding (default 8)
  --cpu-prof              start Tariff with node --cpu-prof; the profile goes to bench/results/<ts>-cpuprof/
                          (summarise it with node bench/profile-summary.js <file>)
  --keep                  keep the temporary directory with Tariff's database and log
  --cloudkitty            also measure a live CloudKitty (see bench/README.md), seeded through its API
  --cloudkitty-url URL    default $CK_URL or http://127.0.0.1:8889
  --cloudkitty-pidfile F  uWSGI PID file, used to wait for in-flight requests between runs
                          (default $CK_PIDFILE or $CK_ANCHOR_DIR/uwsgi.pid)
  --no-tariff             do not start Tariff (with --cloudkitty: measure CloudKitty only)
  --baseline DIR          side by side: also start the Tariff built in DIR (another checkout, e.g. a
                          git worktree of an older commit, built with npm run build), each on its own
                          fresh SQLite file, and run every scenario on both in alternating rounds;
                          prints each one's req/s and CPU per request and the change against DIR
  --log-level LEVEL       Tariff's TARIFF_LOG_LEVEL (default warn; info logs every request and, with
                          the audit trail, every configuration change, to a file in the temporary directory)
  --baseline-node PATH    with --baseline: the node binary that runs the baseline (default: this one), e.g.
                          the Node 20 a build before the move to Node 26 was made for
  --rounds N              alternating rounds per scenario and connection count with --baseline (default 3)
  --scrape S              with --baseline: scrape /metrics of each server that serves it every S
                          seconds, as Prometheus would (default 15; 0 = never)
  --help`;

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '10' },
      'long-duration': { type: 'string' },
      warmup: { type: 'string', default: '2' },
      only: { type: 'string' },
      'database-url': { type: 'string' },
      port: { type: 'string' },
      mappings: { type: 'string', default: '10000' },
      'seed-concurrency': { type: 'string', default: '8' },
      'cpu-prof': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      cloudkitty: { type: 'boolean', default: false },
      'cloudkitty-url': { type: 'string' },
      'cloudkitty-pidfile': { type: 'string' },
      'no-tariff': { type: 'boolean', default: false },
      baseline: { type: 'string' },
      'baseline-node': { type: 'string' },
      rounds: { type: 'string', default: '3' },
      'log-level': { type: 'string', default: 'warn' },
      scrape: { type: 'string', default: '15' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const number = (name, min, max) => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) throw new Error(`--${name} must be a number in [${min}, ${max}], got '${raw}'`);
    return value;
  };
  const options = {
    help: values.help,
    duration: number('duration', 1, 3600),
    longDuration: number('long-duration', 1, 3600),
    warmup: number('warmup', 0, 600),
    only: values.only ? new RegExp(values.only) : null,
    databaseUrl: values['database-url'],
    port: number('port', 1, 65535),
    mappings: number('mappings', 1, 1_000_000),
    seedConcurrency: number('seed-concurrency', 1, 256),
    cpuProf: values['cpu-prof'],
    keep: values.keep,
    tariff: !values['no-tariff'],
    cloudkitty: values.cloudkitty,
    baseline: values.baseline ? path.resolve(values.baseline) : undefined,
    baselineNode: values['baseline-node'] ? path.resolve(values['baseline-node']) : process.execPath,
    rounds: number('rounds', 1, 100),
    logLevel: values['log-level'],
    scrape: number('scrape', 0, 3600),
    cloudkittyUrl: values['cloudkitty-url'] ?? process.env.CK_URL ?? 'http://127.0.0.1:8889',
    cloudkittyPidfile:
      values['cloudkitty-pidfile'] ?? process.env.CK_PIDFILE ?? (process.env.CK_ANCHOR_DIR ? path.join(process.env.CK_ANCHOR_DIR, 'uwsgi.pid') : undefined),
  };
  if (!options.tariff && !options.cloudkitty) throw new Error('--no-tariff without --cloudkitty leaves nothing to measure');
  if (options.baseline && (options.cloudkitty || !options.tariff || options.databaseUrl || options.cpuProf))
    throw new Error('--baseline compares two Tariff builds on fresh SQLite files: it does not go with --cloudkitty, --no-tariff, --database-url or --cpu-prof');
  if (options.baseline && !existsSync(path.join(options.baseline, 'dist', 'cli.js')))
    throw new Error(`--baseline ${options.baseline}: no dist/cli.js there (check out the commit and run npm ci && npm run build in it)`);
  return options;
}

const log = (message) => process.stderr.write(`[bench] ${message}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let interrupted = false;
const handles = [];

/** Waits (at most `limitS` seconds) until the process tree of `pid` is idle: < 5 CPU ticks in 1 s. */
async function drain(pid, limitS) {
  if (!pid) return 0;
  const t0 = Date.now();
  let previous = cpuTicksOfTree(pid);
  if (previous === null) return 0;
  while (!interrupted && Date.now() - t0 < limitS * 1000) {
    await sleep(1000);
    const now = cpuTicksOfTree(pid);
    if (now === null || now - previous < 5) break;
    previous = now;
  }
  const waited = (Date.now() - t0) / 1000;
  if (waited > 2.5) log(`waited ${waited.toFixed(0)} s for the server to finish in-flight requests`);
  return waited;
}

async function waitUntilReady(client, handle, limitMs = 30_000) {
  const t0 = Date.now();
  while (Date.now() - t0 < limitMs) {
    if (handle.child.exitCode !== null || handle.child.signalCode !== null) {
      throw new Error(`Tariff exited during start-up (${handle.child.exitCode ?? handle.child.signalCode}); log: ${handle.logFile}\n${tail(handle.logFile)}`);
    }
    try {
      const { status } = await client.call('GET', '/v1/rating/module_config/hashmap/types', undefined, { attempts: 1 });
      if (status === 200) return (Date.now() - t0) / 1000;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`Tariff did not answer within ${limitMs / 1000} s; log: ${handle.logFile}\n${tail(handle.logFile)}`);
}

function tail(file, lines = 20) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * One request of `scenario`, checked, so that a run never measures an error page; returns the
 * answer's size in bytes. Throws on an unexpected answer.
 */
async function preflight(client, scenario, ids, ctx) {
  const first = scenario.requests(ids, ctx)[0];
  const body = scenario.preflightBody ? scenario.preflightBody(ids, ctx) : undefined;
  const response = await client.call(first.method, first.path, body, { attempts: 1, ok: [200, 201] });
  if (!scenario.check(response.status, response.body, ids))
    throw new Error(`unexpected answer ${response.status}: ${JSON.stringify(response.body).slice(0, 200)}`);
  return response.bytes;
}

/** Runs every selected scenario against one server; returns runs keyed `<id>@<conns>`. */
async function measure(target, { url, client, ids, pid, options, isAlive }) {
  const runs = {};
  const errors = {};
  const longDuration = options.longDuration ?? (target === 'cloudkitty' ? Math.max(60, options.duration) : options.duration);
  for (const scenario of scenarios({ mappings: options.mappings })) {
    if (interrupted) break;
    if (options.only && !options.only.test(scenario.id)) continue;
    const ctx = { prefix: `b${Date.now().toString(36)}${target[0]}`, counter: 0 };
    const requests = scenario.requests(ids, ctx);
    const first = requests[0];
    let responseBytes = null;
    try {
      responseBytes = await preflight(client, scenario, ids, ctx);
    } catch (error) {
      errors[scenario.id] = String(error.message ?? error);
      log(`${target} ${scenario.id}: preflight failed, scenario skipped: ${errors[scenario.id]}`);
      continue;
    }
    const duration = scenario.long ? longDuration : options.duration;
    const timeout = Math.max(30, 2 * duration);
    if (options.warmup > 0 && !(scenario.long && target === 'cloudkitty')) {
      log(`${target} ${scenario.id}: warm-up ${options.warmup} s`);
      await runLoad({ url, connections: Math.max(...scenario.conns), duration: options.warmup, timeout, requests: scenario.requests(ids, ctx) });
    }
    for (const connections of scenario.conns) {
      if (interrupted) break;
      await drain(pid, target === 'cloudkitty' ? 600 : 60);
      log(`${target} ${scenario.id} c=${connections} d=${duration}s ${first.method} ${first.path}`);
      const load0 = os.loadavg()[0];
      const ticks0 = pid ? cpuTicksOfTree(pid) : null;
      const client0 = process.cpuUsage();
      const run = await runLoad({ url, connections, duration, timeout, requests: scenario.requests(ids, ctx) });
      const ticks1 = pid ? cpuTicksOfTree(pid) : null;
      const client1 = process.cpuUsage(client0);
      // CPU time per request: robust against a noisy machine (clock ticks are 10 ms; runs are long)
      run.server_cpu_ms_per_req = ticks0 !== null && ticks1 !== null && run.requests ? Number((((ticks1 - ticks0) * 10) / run.requests).toFixed(3)) : null;
      run.server_cpu_util = ticks0 !== null && ticks1 !== null ? Number((((ticks1 - ticks0) * 10) / 1000 / run.duration_s).toFixed(2)) : null;
      run.client_cpu_ms_per_req = run.requests ? Number(((client1.user + client1.system) / 1000 / run.requests).toFixed(3)) : null;
      run.loadavg1 = { before: Number(load0.toFixed(2)), after: Number(os.loadavg()[0].toFixed(2)) };
      run.path = first.path;
      run.method = first.method;
      run.response_bytes = responseBytes;
      runs[`${scenario.id}@${connections}`] = run;
      log(
        `  ${fmtRps(run.rps)} req/s  p50 ${fmtMs(run.latency_ms.p50)}  p99 ${fmtMs(run.latency_ms.p99)}  ` +
          `non-2xx ${run.non2xx}  errors ${run.errors}  (${run.requests} responses; server CPU ${run.server_cpu_ms_per_req} ms/req, ` +
          `${run.server_cpu_util} cores; load ${run.loadavg1.before}->${run.loadavg1.after})`,
      );
      if (!isAlive()) throw new Error(`${target} server died during ${scenario.id}`);
    }
  }
  await drain(pid, target === 'cloudkitty' ? 600 : 60);
  return { runs, errors, long_duration_s: longDuration };
}

/** The short commit of the checkout in `directory`, or null outside git. */
function commitOf(directory) {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: directory, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** `node --version` of the binary at `node` (the baseline may run on another Node than this script). */
function nodeVersionOf(node) {
  return node === process.execPath ? process.version : execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

function machine() {
  const commit = commitOf(REPO);
  return {
    date: new Date().toISOString(),
    hostname: os.hostname(),
    cpus: os.availableParallelism(),
    cpu_model: os.cpus()[0]?.model?.trim() ?? null,
    mem_mib: Math.round(os.totalmem() / 2 ** 20),
    loadavg: os.loadavg().map((value) => Number(value.toFixed(2))),
    node: process.version,
    tariff_commit: commit,
  };
}

/**
 * Starts the Tariff built in `repo` (`node bin/tariff.js serve` with the flags `npm start` gives)
 * on 127.0.0.1:`port` and `databaseUrl`, waits until it answers and seeds the bench data set.
 */
async function startSeeded(repo, { databaseUrl, port, node = process.execPath, nodeArgs = ['--max-semi-space-size=64', '--expose-gc'], logFile, options }) {
  const url = `http://127.0.0.1:${port}`;
  const env = { ...process.env, TARIFF_HOST: '127.0.0.1', TARIFF_PORT: String(port), TARIFF_DATABASE_URL: databaseUrl, TARIFF_LOG_LEVEL: options.logLevel };
  const handle = startProcess(node, [...nodeArgs, path.join(repo, 'bin', 'tariff.js'), 'serve'], { cwd: repo, env, logFile });
  handles.push(handle);
  const client = new Client(url);
  const startup = await waitUntilReady(client, handle);
  log(`Tariff (${repo}) pid ${handle.child.pid} on ${url} (${databaseUrl}), ready in ${startup.toFixed(1)} s`);
  const seed = await ensureDataSet(client, { mappings: options.mappings, concurrency: options.seedConcurrency });
  return { handle, client, url, seed };
}

async function benchTariff(options, stamp, resultsDir, output) {
  const cli = path.join(REPO, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tariff-bench-'));
  output.tariff = { tmp_dir: tmp };
  let failed = false;
  try {
    const databaseUrl = options.databaseUrl ?? `sqlite:${path.join(tmp, 'tariff.db')}`;
    const port = options.port ?? (await freePort());
    const url = `http://127.0.0.1:${port}`;
    // The flags `npm start` and bin/tariff.js's shebang give the server.
    const nodeArgs = ['--max-semi-space-size=64', '--expose-gc'];
    if (options.cpuProf) {
      const profDir = path.join(resultsDir, `${stamp}-cpuprof`);
      mkdirSync(profDir, { recursive: true });
      nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profDir}`);
      output.tariff.cpu_prof_dir = profDir;
    }
    const { handle, client, seed } = await startSeeded(REPO, { databaseUrl, port, nodeArgs, logFile: path.join(tmp, 'tariff.log'), options });
    Object.assign(output.tariff, { url, database_url: databaseUrl, pid: handle.child.pid, log: handle.logFile, seed });
    output.tariff.rss_mib_after_seed = rssMiB(handle.child.pid);
    const isAlive = () => handle.child.exitCode === null && handle.child.signalCode === null;
    const measured = await measure('tariff', { url, client, ids: seed.ids, pid: handle.child.pid, options, isAlive });
    Object.assign(output.tariff, measured);
    output.tariff.rss_mib_after_runs = rssMiB(handle.child.pid);
    const stopped = await handle.stop();
    output.tariff.exit = stopped;
    if (stopped.code !== 0) log(`Tariff exited with ${JSON.stringify(stopped)}; log tail:\n${tail(handle.logFile)}`);
    const warnings = tail(handle.logFile, 200).trim();
    if (warnings) output.tariff.log_tail = warnings.split('\n').slice(-20);
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await stopAll(handles); // before removing the database it runs on
    if (options.keep || failed) log(`kept ${tmp} (database and server log)`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Side by side (--baseline): the Tariff built in `options.baseline` and this one, each on its own
 * fresh SQLite file seeded alike, every selected scenario run on both in alternating rounds.
 * Fills `output.side_by_side` with each one's rounds and the change of this build against the
 * baseline (median of the per-round ratios).
 */
async function benchSideBySide(options, output) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tariff-bench-side-'));
  const stopScrapers = [];
  let failed = false;
  try {
    const targets = [];
    for (const [name, repo, node] of [
      ['baseline', options.baseline, options.baselineNode],
      ['current', REPO, process.execPath],
    ]) {
      const started = await startSeeded(repo, {
        node,
        databaseUrl: `sqlite:${path.join(tmp, `${name}.db`)}`,
        port: await freePort(),
        logFile: path.join(tmp, `${name}.log`),
        options,
      });
      targets.push({
        name,
        repo,
        node: nodeVersionOf(node),
        commit: commitOf(repo),
        url: started.url,
        client: started.client,
        pid: started.handle.child.pid,
        ids: started.seed.ids,
      });
    }
    for (const target of targets) {
      const response = await fetch(`${target.url}/metrics`);
      await response.arrayBuffer();
      target.serves_metrics = response.status === 200;
      if (target.serves_metrics && options.scrape > 0) stopScrapers.push(scrapeMetrics(target.url, options.scrape));
    }
    const results = [];
    for (const scenario of scenarios({ mappings: options.mappings })) {
      if (interrupted) break;
      if (options.only && !options.only.test(scenario.id)) continue;
      const contexts = targets.map((target) => ({ prefix: `b${Date.now().toString(36)}${target.name[0]}`, counter: 0 }));
      for (const [index, target] of targets.entries()) await preflight(target.client, scenario, target.ids, contexts[index]);
      const duration = scenario.long ? (options.longDuration ?? options.duration) : options.duration;
      for (const [turn, connections] of scenario.conns.entries()) {
        if (interrupted) break;
        for (const target of targets) await drain(target.pid, 60);
        const { runs, rpsCost, cpuCost } = await alternatingRounds({
          targets,
          requests: (target) => scenario.requests(target.ids, contexts[targets.indexOf(target)]),
          ok: (status) => status === (scenario.write ? '201' : '200'),
          connections,
          duration,
          rounds: options.rounds,
          warmup: turn === 0 ? options.warmup : 0,
          log: (line) => log(`${scenario.id} c=${connections} ${line}`),
        });
        results.push({ key: `${scenario.id}@${connections}`, title: scenario.title, connections, runs, rps_change: -rpsCost, cpu_change: cpuCost });
      }
    }
    output.side_by_side = {
      targets: targets.map(({ name, repo, commit, serves_metrics }) => ({ name, repo, commit, serves_metrics })),
      rounds: options.rounds,
      scrape_s: options.scrape,
      results,
    };
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    for (const stop of stopScrapers) stop();
    await stopAll(handles);
    if (options.keep || failed) log(`kept ${tmp} (databases and server logs)`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

/** The side-by-side table: medians of each build's rounds, and this build's change against the baseline. */
function sideBySideTable({ targets, results }) {
  const [baseline, current] = targets;
  const header = [
    'scenario',
    'conns',
    `baseline ${baseline.commit ?? ''} req/s`,
    `current ${current.commit ?? ''} req/s`,
    'req/s change',
    'baseline CPU µs/req',
    'current CPU µs/req',
    'CPU/req change',
  ];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const { title, connections, runs, rps_change: rpsChange, cpu_change: cpuChange } of results) {
    lines.push(
      `| ${[
        title,
        connections,
        fmtRps(median(runs[0].rps)),
        fmtRps(median(runs[1].rps)),
        percent(rpsChange),
        median(runs[0].cpu).toFixed(1),
        median(runs[1].cpu).toFixed(1),
        percent(cpuChange),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

async function benchCloudKitty(options, output) {
  const url = options.cloudkittyUrl.replace(/\/+$/, '');
  const client = new Client(url, { timeoutMs: 600_000 });
  try {
    await client.call('GET', '/', undefined, { attempts: 1, ok: [200, 300] });
  } catch (error) {
    throw new Error(`no CloudKitty answers on ${url} (${error.message}); start it with /work/shared/anchors/cloudkitty/setup.sh, see bench/README.md`);
  }
  let pid;
  if (options.cloudkittyPidfile && existsSync(options.cloudkittyPidfile)) pid = Number(readFileSync(options.cloudkittyPidfile, 'utf8').trim()) || undefined;
  else log('no uWSGI PID file: runs will not wait for CloudKitty to finish in-flight requests');
  output.cloudkitty = { url, uwsgi_pid: pid ?? null };
  log(`CloudKitty on ${url}${pid ? ` (uWSGI master ${pid})` : ''}: seeding through the API (slow: ~100-300 POST/s)`);
  const seed = await ensureDataSet(client, { mappings: options.mappings, concurrency: options.seedConcurrency });
  output.cloudkitty.seed = seed;
  const isAlive = () => (pid ? cpuTicksOfTree(pid) !== null : true);
  Object.assign(output.cloudkitty, await measure('cloudkitty', { url, client, ids: seed.ids, pid, options, isAlive }));
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const onSignal = (signal) => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping the load and the servers`);
    stopCurrentLoad();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const resultsDir = path.join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const output = {
    machine: machine(),
    options: {
      duration_s: options.duration,
      long_duration_s: options.longDuration ?? null,
      warmup_s: options.warmup,
      only: options.only?.source ?? null,
      mappings: options.mappings,
      seed_concurrency: options.seedConcurrency,
      database_url: options.databaseUrl ?? null,
      cloudkitty: options.cloudkitty,
      tariff: options.tariff,
      baseline: options.baseline ?? null,
      rounds: options.baseline ? options.rounds : null,
      log_level: options.logLevel,
    },
    baseline: BASELINE,
  };
  let failure;
  try {
    if (options.baseline) await benchSideBySide(options, output);
    else if (options.tariff) await benchTariff(options, stamp, resultsDir, output);
    if (options.cloudkitty && !interrupted) await benchCloudKitty(options, output);
  } catch (error) {
    failure = error;
    output.error = String(error.stack ?? error);
  } finally {
    await stopAll(handles);
  }

  const m = output.machine;
  console.log(`## Tariff benchmark ${m.date}\n`);
  let table;
  if (output.side_by_side) {
    const [baseline, current] = output.side_by_side.targets;
    table = sideBySideTable(output.side_by_side);
    console.log(
      `${m.cpus} CPUs (${m.cpu_model}), node ${m.node}. Side by side: baseline ${baseline.commit ?? '?'} (${baseline.repo}, node ${baseline.node}) and current ` +
        `${current.commit ?? '?'} (node ${current.node}), each on its own SQLite file, ${options.rounds} alternating rounds of ${options.duration} s per row (medians; ` +
        `changes are medians of the per-round ratios). /metrics scraped every ${options.scrape} s on: ` +
        `${
          output.side_by_side.targets
            .filter((target) => target.serves_metrics)
            .map((target) => target.name)
            .join(', ') || 'none'
        }.\n`,
    );
  } else {
    const rows = [];
    for (const scenario of scenarios({ mappings: options.mappings })) {
      for (const conns of scenario.conns) rows.push({ key: `${scenario.id}@${conns}`, title: scenario.title, conns });
    }
    output.targets = targetVerdicts(output.tariff?.runs);
    table = markdownTable(
      { tariff: output.tariff?.runs ? output.tariff : undefined, cloudkitty: output.cloudkitty?.runs ? output.cloudkitty : undefined },
      rows,
    );
    console.log(
      `${m.cpus} CPUs (${m.cpu_model}), node ${m.node}, Tariff ${m.tariff_commit ?? '?'}, ` +
        `runs of ${options.duration} s${output.tariff?.long_duration_s && output.tariff.long_duration_s !== options.duration ? ` (big list ${output.tariff.long_duration_s} s)` : ''}, ` +
        `loopback, autocannon in the same machine. Baseline: ${BASELINE.server}, PostgreSQL, from ${BASELINE.source}.\n`,
    );
  }
  output.table_markdown = table;
  const file = path.join(resultsDir, `${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
  console.log(table);
  if (output.tariff?.rss_mib_after_runs)
    console.log(`\nTariff RSS: ${output.tariff.rss_mib_after_seed} MiB after seeding, ${output.tariff.rss_mib_after_runs} MiB after the runs.`);
  for (const [target, part] of Object.entries({ tariff: output.tariff, cloudkitty: output.cloudkitty })) {
    for (const [id, message] of Object.entries(part?.errors ?? {})) console.log(`\n${target} ${id}: SKIPPED: ${message}`);
  }
  if (output.tariff?.cpu_prof_dir) console.log(`\nCPU profile: ${output.tariff.cpu_prof_dir} (node bench/profile-summary.js <file>)`);
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
  if (failure) {
    console.error(`\nbench failed: ${failure.stack ?? failure}`);
    return 1;
  }
  return interrupted ? 130 : 0;
}

const code = await main();
process.exitCode = code;
// autocannon/undici may keep sockets alive for a moment; everything we started is stopped.
setTimeout(() => process.exit(code), 200).unref();
