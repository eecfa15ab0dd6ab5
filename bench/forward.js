#!/usr/bin/env node
// The latency Tariff adds to a forwarded call (issue 23, class 6): the same CloudKitty request sent
// to the real CloudKitty 17 directly and through Tariff (`TARIFF_CLOUDKITTY_API_URL`), in
// alternating rounds (direct, forwarded; then forwarded, direct; ...) so both see the same machine
// noise. Reports per scenario and connection count the median over rounds of p50 and p99 each way
// and of their per-round differences (the added latency).
//
//   npm run build && node bench/forward.js [--duration 5] [--rounds 4] [--warmup 2]
//
// CloudKitty is started by ../shared/anchors/cloudkitty/setup.sh on a fresh SQLite file (2 uWSGI
// processes × 4 threads) and stopped at the end, like Tariff (dist/, a fresh SQLite file).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cloudKittyAvailable, startCloudKitty17 } from './lib/cloudkitty17.js';
import { freePort, startProcess, stopAll } from './lib/processes.js';
import { Agent, request as httpRequest } from 'node:http';
import { median } from './lib/side-by-side.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '2' },
    help: { type: 'boolean', default: false },
  },
});
if (options.help) {
  process.stdout.write('node bench/forward.js [--duration seconds] [--rounds n] [--warmup seconds]\n');
  process.exit(0);
}
const duration = Number(options.duration);
const rounds = Number(options.rounds);
const warmup = Number(options.warmup);

/** CloudKitty's own requests: its configuration (no database) and a report (its storage). */
const SCENARIOS = [
  { id: 'info_config', path: '/v1/info/config', connections: [1, 4] },
  { id: 'report_total', path: '/v1/report/total', connections: [1, 4] },
];

/** A target's medians over the rounds, and its failed requests. */
const shown = (run) =>
  `${median(run.p50).toFixed(2)} / ${median(run.p99).toFixed(2)} ms, ${median(run.rps)} req/s${run.failures ? `, ${run.failures} failed` : ''}`;

/** `1.234` → `+1.23`. */
const signed = (milliseconds) => `${milliseconds >= 0 ? '+' : ''}${milliseconds.toFixed(2)}`;

const log = (line) => process.stderr.write(`[forward] ${line}\n`);

/**
 * Sends `path` from `connections` concurrent loops for `seconds`, each request through one
 * keep-alive agent as the CloudKitty client's session does (CloudKitty's uWSGI closes every
 * connection, Tariff keeps them), timing each from its start to the end of its answer. autocannon
 * is not used here: its latency of a server that closes every connection counts the reconnections.
 *
 * @returns p50 and p99 in ms, requests/s, and the status codes seen
 */
async function measure(url, path, connections, seconds) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const { hostname, port } = new URL(url);
  const latencies = [];
  const statuses = {};
  const deadline = performance.now() + seconds * 1000;
  const one = () =>
    new Promise((resolve) => {
      const started = performance.now();
      const call = httpRequest({ hostname, port, path, agent, headers: { 'content-type': 'application/json', 'x-roles': 'admin' } }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode === 200) latencies.push(performance.now() - started);
          statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
          resolve();
        });
        response.on('error', failed);
      });
      call.setTimeout(60_000, () => call.destroy(new Error(`no answer within 60 s from ${url}${path}`)));
      call.on('error', failed);
      call.end();
      function failed(error) {
        statuses[error.code ?? 'error'] = (statuses[error.code ?? 'error'] ?? 0) + 1;
        resolve();
      }
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (fraction) => latencies[Math.min(latencies.length - 1, Math.ceil(fraction * latencies.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), rps: Math.round((latencies.length / elapsed) * 10) / 10, statuses };
}

async function waitFor(url, limitMs) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2000) })).ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main() {
  if (!cloudKittyAvailable()) throw new Error('the CloudKitty anchor scripts (../shared/anchors/cloudkitty) are missing');
  const directory = mkdtempSync(path.join(os.tmpdir(), 'tariff-bench-forward-'));
  let cloudKitty;
  let tariff;
  try {
    log('starting CloudKitty 17 (about 20 s)');
    cloudKitty = await startCloudKitty17(`sqlite:///${directory}/cloudkitty.sqlite`, { processes: 2, threads: 4 });
    const port = await freePort();
    tariff = startProcess(process.execPath, [path.join(REPO, 'bin', 'tariff.js'), 'serve'], {
      cwd: REPO,
      env: {
        ...process.env,
        TARIFF_HOST: '127.0.0.1',
        TARIFF_PORT: String(port),
        TARIFF_DATABASE_URL: `sqlite:${directory}/tariff.db`,
        TARIFF_LOG_LEVEL: 'warn',
        TARIFF_SANDBOX_WORKERS: '0',
        TARIFF_CLOUDKITTY_API_URL: cloudKitty.url,
      },
      logFile: path.join(directory, 'tariff.log'),
    });
    const tariffUrl = `http://127.0.0.1:${port}`;
    await waitFor(`${tariffUrl}/healthcheck`, 30_000);
    const targets = [
      { name: 'CloudKitty directly', url: cloudKitty.url },
      { name: 'through Tariff', url: tariffUrl },
    ];
    const table = [];
    for (const scenario of SCENARIOS) {
      for (const connections of scenario.connections) {
        for (const target of targets) await measure(target.url, scenario.path, connections, warmup);
        const runs = targets.map(() => ({ p50: [], p99: [], rps: [], failures: 0 }));
        for (let round = 0; round < rounds; round += 1) {
          for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
            const result = await measure(targets[index].url, scenario.path, connections, duration);
            const failures = Object.entries(result.statuses).filter(([status]) => status !== '200');
            runs[index].failures += failures.reduce((sum, [, count]) => sum + count, 0);
            if (failures.length > 0) log(`${targets[index].name} ${scenario.path}: not 200: ${JSON.stringify(Object.fromEntries(failures))}`);
            runs[index].p50.push(result.p50);
            runs[index].p99.push(result.p99);
            runs[index].rps.push(result.rps);
            log(
              `${scenario.id} ×${connections} round ${round + 1} ${targets[index].name}: p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ${result.rps} req/s`,
            );
          }
        }
        const added = (key) => median(runs[1][key].map((value, round) => value - runs[0][key][round]));
        table.push({
          scenario: `${scenario.id} (${scenario.path})`,
          connections,
          direct: shown(runs[0]),
          forwarded: shown(runs[1]),
          added: `${signed(added('p50'))} / ${signed(added('p99'))} ms`,
        });
      }
    }
    process.stdout.write(`\n| scenario | conns | CloudKitty directly: p50 / p99 | through Tariff: p50 / p99 | added: p50 / p99 |\n|---|---|---|---|---|\n`);
    for (const row of table) process.stdout.write(`| ${row.scenario} | ${row.connections} | ${row.direct} | ${row.forwarded} | ${row.added} |\n`);
    process.stdout.write(
      `\n${rounds} alternating rounds of ${duration} s each way (after ${warmup} s of warm-up), ${new Date().toISOString()}, load average ${os.loadavg()[0].toFixed(2)}\n`,
    );
  } finally {
    await stopAll([tariff]);
    await cloudKitty?.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`[forward] ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
