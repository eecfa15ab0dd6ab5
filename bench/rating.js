#!/usr/bin/env node
/**
 * Rating throughput through HTTP (issue 4): PyScripts runs/s for a 100-point dataframe and quote
 * requests/s (v1 single resource, v2 100 points), against a Tariff server it starts on a fresh
 * SQLite file with its sandbox. Loopback only; every run bounded; prints a markdown table.
 *
 *   npm run build && node bench/rating.js [--duration 10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, H, P } from './lib/client.js';
import { runLoad } from './lib/load.js';
import { freePort, startProcess, stopAll } from './lib/processes.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' } } });
const duration = Number(values.duration);

function points(count) {
  const flavors = ['m1.nano', 'm1.tiny', 'm1.small', 'm1.large'];
  return Array.from({ length: count }, (_, index) => ({
    vol: { unit: 'instance', qty: String(1 + (index % 4)) },
    rating: { price: '0' },
    groupby: { flavor: flavors[index % flavors.length], project_id: `p${index % 7}` },
    metadata: { memory: String(512 * (1 + (index % 8))) },
  }));
}

/** The same points with JSON numbers that have fractions: quantities, and a metadata size. */
function decimalPoints(count) {
  return points(count).map((point, index) => ({
    ...point,
    vol: { unit: 'instance', qty: 0.5 + (index % 4) },
    metadata: { ...point.metadata, size: 1.25 * (1 + (index % 8)) },
  }));
}

const SCRIPT = [
  'from decimal import Decimal',
  "for point in data['usage'].get('compute', []):",
  "    if point['groupby'].get('flavor') == 'm1.nano':",
  "        point['rating']['price'] = point['rating']['price'] * Decimal('0.9')",
].join('\n');

async function main() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'tariff-rating-bench-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const handle = startProcess(process.execPath, ['--max-semi-space-size=64', '--expose-gc', path.join(REPO, 'bin', 'tariff.js'), 'serve'], {
    cwd: REPO,
    env: {
      ...process.env,
      TARIFF_PORT: String(port),
      TARIFF_DATABASE_URL: `sqlite:${path.join(tmp, 'tariff.db')}`,
      TARIFF_LOG_LEVEL: 'warn',
      TARIFF_SANDBOX_WORKERS: '2',
    },
    logFile: path.join(tmp, 'tariff.log'),
  });
  try {
    const client = new Client(url);
    for (let attempt = 0; attempt < 150; attempt += 1) {
      try {
        await client.get('/healthcheck', { attempts: 1 });
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const service = (await client.post(`${H}/services`, { name: 'compute' })).body.service_id;
    const field = (await client.post(`${H}/fields`, { service_id: service, name: 'flavor' })).body.field_id;
    for (const [value, cost] of [
      ['m1.nano', '0.01'],
      ['m1.tiny', '0.02'],
      ['m1.small', '0.04'],
      ['m1.large', '0.08'],
    ]) {
      await client.post(`${H}/mappings`, { field_id: field, value, cost, type: 'flat' });
    }
    await client.call('PUT', '/v2/rating/modules/hashmap', { enabled: true, priority: 2 }, { ok: [204] });
    await client.call('PUT', '/v2/rating/modules/pyscripts', { enabled: true, priority: 1 }, { ok: [204] });
    await client.call('POST', `${P}/scripts?force=true`, { name: 'discount', data: SCRIPT, start: '2020-01-01' }, { ok: [201] });
    const hundred = JSON.stringify({ usage: { compute: points(100) } });
    // Warm the sandbox (pyodide loads in each worker) before measuring.
    for (let attempt = 0; attempt < 4; attempt += 1) await client.call('POST', '/v2/rating/quote', JSON.parse(hundred), { ok: [200] });

    const scenarios = [
      {
        name: 'v2 quote, 100 points, hashmap + pyscripts (= pyscripts runs/s)',
        connections: [1, 2],
        request: { method: 'POST', path: '/v2/rating/quote', headers: { 'content-type': 'application/json' }, body: hundred },
      },
      {
        name: 'v1 quote, one resource, hashmap + pyscripts',
        connections: [1, 8],
        request: {
          method: 'POST',
          path: '/v1/rating/quote',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ resources: [{ service: 'compute', volume: 1, desc: { flavor: 'm1.nano' } }] }),
        },
      },
    ];
    const rows = [];
    for (const scenario of scenarios) {
      for (const connections of scenario.connections) {
        const result = await runLoad({ url, connections, duration, timeout: 30, requests: [scenario.request] });
        rows.push(`| ${scenario.name} | ${connections} | ${result.rps} | ${result.latency_ms.p50} | ${JSON.stringify(result.status_codes)} |`);
        process.stderr.write(`${rows.at(-1)}\n`);
      }
    }
    // Hashmap only: the same quotes without the sandbox, and 100-point quotes whose numbers have
    // fractions (quantities, metadata): those bodies are read a second time with their numbers'
    // source text (src/http/json-number-text.ts).
    await client.call('PUT', '/v2/rating/modules/pyscripts', { enabled: false }, { ok: [204] });
    const decimals = JSON.stringify({ usage: { compute: decimalPoints(100) } });
    const fractionalQuantities = JSON.stringify({ usage: { compute: decimalPoints(100).map((point) => ({ ...point, metadata: points(1)[0].metadata })) } });
    const hashmapOnly = [
      { name: 'v1 quote, one resource, hashmap only', request: scenarios[1].request },
      { name: 'v2 quote, 100 points, hashmap only', request: { ...scenarios[0].request } },
      { name: 'v2 quote, 100 points with fractional quantities, hashmap only', request: { ...scenarios[0].request, body: fractionalQuantities } },
      { name: 'v2 quote, 100 points with fractional quantities and metadata numbers, hashmap only', request: { ...scenarios[0].request, body: decimals } },
    ];
    for (const scenario of hashmapOnly) {
      for (const connections of [1, 8]) {
        const result = await runLoad({ url, connections, duration, timeout: 30, requests: [{ ...scenario.request }] });
        rows.push(`| ${scenario.name} | ${connections} | ${result.rps} | ${result.latency_ms.p50} | ${JSON.stringify(result.status_codes)} |`);
        process.stderr.write(`${rows.at(-1)}\n`);
      }
    }
    console.log(`Rating through HTTP, ${new Date().toISOString()}, runs of ${duration} s, 2 sandbox workers\n`);
    console.log('| scenario | conns | req/s | p50 ms | status codes |\n|---|---|---|---|---|');
    console.log(rows.join('\n'));
  } finally {
    await stopAll([handle]);
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
