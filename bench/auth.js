#!/usr/bin/env node
/**
 * What Keystone mode costs a request with a cached token (issue 5: less than 5% on
 * `GET /mappings/{id}`). Starts Debian's real Keystone (test/keystone/setup.sh), then two Tariff
 * processes on one SQLite file, side by side: noauth (the baseline) and keystone. Each scenario
 * alternates baseline and Keystone runs (A B A B ...), so both see the same machine noise, and
 * prints req/s, p50, the server's CPU time per request (user + system, from /proc: steadier than
 * req/s on a shared machine) and the ratios. The token is validated once, before measuring.
 *
 *   npm run build && node bench/auth.js [--duration 10] [--rounds 7] [--connections 8]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, H } from './lib/client.js';
import { runLoad } from './lib/load.js';
import { cpuTicksOfTree, freePort, startProcess, stopAll } from './lib/processes.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, rounds: { type: 'string', default: '7' }, connections: { type: 'string', default: '8' } },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);

function startKeystone(directory) {
  const envFile = execFileSync('bash', [path.join(REPO, 'test', 'keystone', 'setup.sh')], {
    env: { ...process.env, KEYSTONE_DIR: directory },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .pop();
  const printed = execFileSync('bash', ['-c', `. '${envFile}' && env -0`], { encoding: 'utf8' });
  return Object.fromEntries(
    printed
      .split('\0')
      .filter((line) => line.startsWith('KEYSTONE_'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

async function adminToken(keystone) {
  const response = await fetch(`${keystone.KEYSTONE_URL}/auth/tokens?nocatalog`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: keystone.KEYSTONE_ADMIN_USER, password: keystone.KEYSTONE_ADMIN_PASSWORD, domain: { id: 'default' } } },
        },
        scope: { project: { name: keystone.KEYSTONE_ADMIN_PROJECT, domain: { id: 'default' } } },
      },
    }),
  });
  if (response.status !== 201) throw new Error(`admin login failed: ${response.status}`);
  return response.headers.get('x-subject-token');
}

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

function median(numbers) {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'tariff-auth-bench-'));
  const keystoneDirectory = path.join(tmp, 'keystone');
  const handles = [];
  try {
    const keystone = startKeystone(keystoneDirectory);
    const database = path.join(tmp, 'tariff.db');
    const baseline = await startTariff(database, {}, path.join(tmp, 'noauth.log'));
    handles.push(baseline.handle);
    const keystoneMode = await startTariff(
      database,
      {
        TARIFF_AUTH: 'keystone',
        TARIFF_KEYSTONE_AUTH_URL: keystone.KEYSTONE_URL,
        TARIFF_KEYSTONE_USERNAME: keystone.KEYSTONE_TARIFF_USER,
        TARIFF_KEYSTONE_PASSWORD: keystone.KEYSTONE_TARIFF_PASSWORD,
        TARIFF_KEYSTONE_PROJECT_NAME: keystone.KEYSTONE_SERVICE_PROJECT,
      },
      path.join(tmp, 'keystone.log'),
    );
    handles.push(keystoneMode.handle);

    const client = new Client(baseline.url);
    const service = (await client.post(`${H}/services`, { name: 'compute' })).body.service_id;
    const field = (await client.post(`${H}/fields`, { service_id: service, name: 'flavor' })).body.field_id;
    const mapping = (await client.post(`${H}/mappings`, { field_id: field, value: 'm1.small', cost: '0.5' })).body.mapping_id;
    const token = await adminToken(keystone);
    const path_ = `${H}/mappings/${mapping}`;
    const probe = await fetch(`${keystoneMode.url}${path_}`, { headers: { 'x-auth-token': token } });
    if (probe.status !== 200) throw new Error(`Keystone-mode probe answered ${probe.status}`);

    const targets = [
      { name: 'noauth (baseline)', url: baseline.url, pid: baseline.handle.child.pid, headers: { 'content-type': 'application/json' } },
      {
        name: 'keystone, cached token',
        url: keystoneMode.url,
        pid: keystoneMode.handle.child.pid,
        headers: { 'content-type': 'application/json', 'x-auth-token': token },
      },
    ];
    const results = targets.map(() => ({ rps: [], p50: [], cpu: [] }));
    for (const target of targets)
      await runLoad({ url: target.url, connections, duration: 2, timeout: 30, requests: [{ method: 'GET', path: path_, headers: target.headers }] });
    for (let round = 0; round < rounds; round += 1) {
      for (const [index, target] of targets.entries()) {
        const ticksBefore = cpuTicksOfTree(target.pid);
        const result = await runLoad({
          url: target.url,
          connections,
          duration,
          timeout: 30,
          requests: [{ method: 'GET', path: path_, headers: target.headers }],
        });
        // Clock ticks are 10 ms: CPU microseconds per request.
        results[index].cpu.push(((cpuTicksOfTree(target.pid) - ticksBefore) * 10_000) / result.requests);
        if (Object.keys(result.status_codes).some((code) => code !== '200')) throw new Error(`${target.name}: ${JSON.stringify(result.status_codes)}`);
        results[index].rps.push(result.rps);
        results[index].p50.push(result.latency_ms.p50);
        process.stderr.write(
          `round ${round + 1} ${target.name}: ${result.rps} req/s, p50 ${result.latency_ms.p50} ms, ${results[index].cpu.at(-1).toFixed(1)} µs CPU/request\n`,
        );
      }
    }
    const [base, auth] = results.map((result) => ({ rps: median(result.rps), p50: median(result.p50), cpu: median(result.cpu) }));
    // Each round's two runs are adjacent in time: the median of the per-round ratios is steadier
    // than the ratio of medians on a machine whose speed drifts.
    const cpuCost = median(results[1].cpu.map((cpu, round) => cpu / results[0].cpu[round] - 1));
    const rpsCost = median(results[1].rps.map((rps, round) => 1 - rps / results[0].rps[round]));
    console.log(`GET one mapping, ${connections} connections, ${rounds} alternating rounds of ${duration} s (medians), ${new Date().toISOString()}\n`);
    console.log('| mode | req/s | p50 ms | server CPU µs/request |\n|---|---|---|---|');
    console.log(`| ${targets[0].name} | ${base.rps} | ${base.p50} | ${base.cpu.toFixed(1)} |`);
    console.log(`| ${targets[1].name} | ${auth.rps} | ${auth.p50} | ${auth.cpu.toFixed(1)} |`);
    console.log(
      `\ncost of a cached token (median of the per-round ratios): ${(cpuCost * 100).toFixed(1)}% more server CPU per request, ${(rpsCost * 100).toFixed(1)}% fewer req/s (target < 5%)`,
    );
  } finally {
    await stopAll(handles);
    try {
      execFileSync('bash', [path.join(REPO, 'test', 'keystone', 'stop.sh'), keystoneDirectory], { stdio: 'ignore' });
    } catch {
      // nothing to stop
    }
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
