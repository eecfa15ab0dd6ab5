#!/usr/bin/env node
/**
 * What `GET /metrics` costs the requests it counts (issue 15: at most 5 % of req/s on get-one and
 * 10 % on creates). Two Tariff processes on one SQLite file, side by side: `TARIFF_METRICS=off`
 * (the baseline) and metrics on, scraped once a second as Prometheus would. Each scenario
 * alternates baseline and metrics runs (A B, then B A, ...), so both see the same machine noise,
 * and prints req/s, p50, the server's CPU time per request (user + system, from /proc: steadier
 * than req/s on a shared machine) and the median of the per-round ratios.
 *
 *   npm run build && node bench/metrics.js [--duration 10] [--rounds 5] [--connections 8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, H } from './lib/client.js';
import { freePort, startProcess, stopAll } from './lib/processes.js';
import { alternatingRounds, median, percent, scrapeMetrics } from './lib/side-by-side.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, rounds: { type: 'string', default: '5' }, connections: { type: 'string', default: '8' } },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const JSON_HEADERS = { 'content-type': 'application/json' };

async function startTariff(database, environment, logFile) {
  const port = await freePort();
  const handle = startProcess(process.execPath, ['--max-semi-space-size=64', '--expose-gc', path.join(REPO, 'bin', 'tariff.js'), 'serve'], {
    cwd: REPO,
    env: {
      ...process.env,
      TARIFF_PORT: String(port),
      TARIFF_DATABASE_URL: `sqlite:${database}`,
      TARIFF_LOG_LEVEL: 'warn',
      TARIFF_SANDBOX_WORKERS: '0',
      ...environment,
    },
    logFile,
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 150; attempt += 1) {
    try {
      if ((await fetch(`${url}/healthcheck`)).ok) return { handle, url };
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Tariff did not start (${logFile})`);
}

async function main() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'tariff-metrics-bench-'));
  const handles = [];
  try {
    const database = path.join(tmp, 'tariff.db');
    const baseline = await startTariff(database, { TARIFF_METRICS: 'off' }, path.join(tmp, 'off.log'));
    handles.push(baseline.handle);
    const measured = await startTariff(database, { TARIFF_METRICS: 'on' }, path.join(tmp, 'on.log'));
    handles.push(measured.handle);
    const stopScraping = scrapeMetrics(measured.url, 1);

    const client = new Client(baseline.url);
    const service = (await client.post(`${H}/services`, { name: 'compute' })).body.service_id;
    const field = (await client.post(`${H}/fields`, { service_id: service, name: 'flavor' })).body.field_id;
    const mapping = (await client.post(`${H}/mappings`, { field_id: field, value: 'm1.small', cost: '0.5' })).body.mapping_id;
    let counter = 0;
    const prefix = `b${Date.now().toString(36)}`;
    const scenarios = [
      { name: 'GET one mapping', requests: () => [{ method: 'GET', path: `${H}/mappings/${mapping}`, headers: JSON_HEADERS }], ok: '200', target: 5 },
      {
        name: 'create a field mapping',
        requests: () => [
          {
            method: 'POST',
            path: `${H}/mappings`,
            headers: JSON_HEADERS,
            setupRequest: (request) => {
              counter += 1;
              request.body = JSON.stringify({ field_id: field, type: 'flat', cost: '1.25', value: `${prefix}-${counter}` });
              return request;
            },
          },
        ],
        ok: '201',
        target: 10,
      },
    ];
    const targets = [
      { name: 'TARIFF_METRICS=off (baseline)', ...baseline, pid: baseline.handle.child.pid },
      { name: 'metrics on, scraped every second', ...measured, pid: measured.handle.child.pid },
    ];
    console.log(`${connections} connections, ${rounds} alternating rounds of ${duration} s (medians), ${new Date().toISOString()}\n`);
    console.log('| scenario | mode | req/s | p50 ms | server CPU µs/request |\n|---|---|---|---|---|');
    const summaries = [];
    for (const scenario of scenarios) {
      const { runs, rpsCost, cpuCost } = await alternatingRounds({
        targets,
        requests: scenario.requests,
        ok: (status) => status === scenario.ok,
        connections,
        duration,
        rounds,
        warmup: 2,
        log: (line) => process.stderr.write(`${scenario.name}, ${line}\n`),
      });
      for (const [index, target] of targets.entries()) {
        const result = runs[index];
        console.log(`| ${scenario.name} | ${target.name} | ${median(result.rps)} | ${median(result.p50)} | ${median(result.cpu).toFixed(1)} |`);
      }
      summaries.push(
        `${scenario.name}: ${percent(cpuCost)} server CPU per request, ${percent(-rpsCost)} req/s (target: at most ${scenario.target} % fewer req/s)`,
      );
    }
    stopScraping();
    console.log(`\ncost of the metrics (median of the per-round ratios):\n${summaries.map((line) => `- ${line}`).join('\n')}`);
  } finally {
    await stopAll(handles);
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
