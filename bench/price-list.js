#!/usr/bin/env node
/**
 * Price lists as code (docs/price-list.md): applying a 10,000-mapping document to an empty
 * database, a dry-run diff of it with 100 costs changed (JSON and YAML bodies), and its export
 * (JSON and YAML), on SQLite, PostgreSQL and MariaDB scratch databases, with the Tariff server's
 * peak RSS; beside CloudKitty 17 doing the same through its v1 API one rule at a time (a sample,
 * extrapolated). See bench/README.md.
 *
 *   npm run build && node bench/price-list.js [--databases sqlite,postgres,mysql] [--runs 3]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import YAML from 'yaml';
import { Client } from './lib/client.js';
import { cloudKittyAvailable, startCloudKitty17 } from './lib/cloudkitty17.js';
import { createScratchDatabase, DATABASE_KINDS, sqlalchemyUrl } from './lib/databases.js';
import { buildDocument, countRules, createOneByOne, readOneByOne, sampleOf, withChangedCosts } from './lib/price-list-doc.js';
import { cpuTicksOfTree, freePort, startProcess, stopAll } from './lib/processes.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(BENCH_DIR);
const PRICE_LIST = '/v2/rating/price_list';

const USAGE = `usage: node bench/price-list.js [options]

  --databases LIST     comma-separated: sqlite, postgres, mysql (default: all three)
  --services N         services in the document, 100 mappings each (default 100: 10,000 mappings)
  --changed N          costs changed for the dry-run diff (default 100)
  --runs N             timed runs of each diff and export, the median is reported (default 5)
  --ck-services N      services of CloudKitty 17's sample (default 10: 1,000 mappings)
  --no-cloudkitty      skip the CloudKitty 17 baseline
  --no-tariff          only the CloudKitty 17 baseline
  --keep               keep the temporary directory (server logs) and do not drop the databases
  --help`;

const log = (message) => process.stderr.write(`[price-list] ${message}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const TARGETS = { apply: { sqlite: 2, postgres: 3, mysql: 3 }, diff: 1, export: 0.5, rssMB: 300 };
const DB_TITLE = { sqlite: 'SQLite', postgres: 'PostgreSQL', mysql: 'MariaDB' };

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      databases: { type: 'string', default: DATABASE_KINDS.join(',') },
      services: { type: 'string', default: '100' },
      changed: { type: 'string', default: '100' },
      runs: { type: 'string', default: '5' },
      'ck-services': { type: 'string', default: '10' },
      'no-cloudkitty': { type: 'boolean', default: false },
      'no-tariff': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const int = (name, min, max) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be an integer in [${min}, ${max}], got '${values[name]}'`);
    return value;
  };
  const databases = values.databases
    .split(',')
    .map((kind) => kind.trim())
    .filter(Boolean);
  for (const kind of databases) if (!DATABASE_KINDS.includes(kind)) throw new Error(`unknown database '${kind}' (${DATABASE_KINDS.join(', ')})`);
  const options = {
    help: values.help,
    databases,
    services: int('services', 1, 1000),
    changed: int('changed', 1, 10_000),
    runs: int('runs', 1, 20),
    ckServices: int('ck-services', 1, 1000),
    cloudkitty: !values['no-cloudkitty'],
    tariff: !values['no-tariff'],
    keep: values.keep,
  };
  if (options.ckServices > options.services) throw new Error('--ck-services cannot exceed --services');
  return options;
}

/** Peak (VmHWM) and current (VmRSS) resident set of a pid, in MB (10^6 bytes). */
function memoryMB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const read = (key) => {
      const match = new RegExp(`^${key}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
      return match ? Math.round((Number(match[1]) * 1024) / 1e6) : null;
    };
    return { hwm: read('VmHWM'), rss: read('VmRSS') };
  } catch {
    return { hwm: null, rss: null };
  }
}

/** VmRSS of a pid and its direct children, in MB. */
function treeRssMB(pid) {
  let pids = [pid];
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    if (kids) pids = pids.concat(kids.split(/\s+/).map(Number));
  } catch {
    return null;
  }
  return pids.reduce((sum, p) => sum + (memoryMB(p).rss ?? 0), 0);
}

/** Waits (at most `limitS`) until the process tree of `pid` is idle (< 5 ticks in 1 s). */
async function settle(pid, limitS = 60) {
  const t0 = Date.now();
  let previous = cpuTicksOfTree(pid);
  while (previous !== null && Date.now() - t0 < limitS * 1000) {
    await sleep(1000);
    const now = cpuTicksOfTree(pid);
    if (now === null || now - previous < 5) break;
    previous = now;
  }
}

/** One timed request with a ready-made text body; the answer is read whole before the clock stops. */
async function timed(url, method, { body, contentType, accept = 'application/json', ok = 200 } = {}) {
  const t0 = performance.now();
  const response = await fetch(url, {
    method,
    headers: { ...(contentType ? { 'content-type': contentType } : {}), accept },
    body,
    signal: AbortSignal.timeout(300_000),
  });
  const text = await response.text();
  const seconds = (performance.now() - t0) / 1000;
  if (response.status !== ok) throw new Error(`${method} ${url} → ${response.status} ${text.slice(0, 1000)}`);
  return { seconds, text, bytes: Buffer.byteLength(text) };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function tail(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Counts a document's mappings (export check). */
function exportedMappings(document) {
  return countRules(document).mappings;
}

async function startTariff(databaseUrl, tmp, label) {
  const cli = path.join(REPO, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The flags `npm start` and bin/tariff.js's shebang give the server, as bench/run.js.
  const handle = startProcess(process.execPath, ['--max-semi-space-size=64', '--expose-gc', path.join(REPO, 'bin', 'tariff.js'), 'serve'], {
    cwd: REPO,
    env: { ...process.env, TARIFF_HOST: '127.0.0.1', TARIFF_PORT: String(port), TARIFF_DATABASE_URL: databaseUrl, TARIFF_LOG_LEVEL: 'warn' },
    logFile: path.join(tmp, `tariff-${label}.log`),
  });
  const client = new Client(url);
  const t0 = Date.now();
  for (;;) {
    if (handle.child.exitCode !== null || handle.child.signalCode !== null)
      throw new Error(`Tariff exited during start-up; log ${handle.logFile}:\n${tail(handle.logFile)}`);
    try {
      if ((await client.get('/v1/rating/module_config/hashmap/types', { attempts: 1 })).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - t0 > 60_000) throw new Error(`Tariff did not answer within 60 s; log ${handle.logFile}:\n${tail(handle.logFile)}`);
    await sleep(100);
  }
  return { handle, url, pid: handle.child.pid };
}

/** Tariff on one database kind: apply, diffs, exports, memory. */
async function benchTariff(kind, documents, options, tmp, result) {
  const scratch = await createScratchDatabase(kind, tmp, 'tariff');
  result.database = scratch.url;
  let server;
  try {
    server = await startTariff(scratch.url, tmp, kind);
    await settle(server.pid);
    const base = `${server.url}${PRICE_LIST}`;
    result.rss_mb_at_start = memoryMB(server.pid);
    // Unmeasured dry runs of the whole document on the empty database, JSON and YAML: a server in
    // service has compiled its parsers and validator before the first apply (the JSON results
    // keep these cold times).
    result.warmup_seconds = {
      json: (await timed(`${base}?dry_run=true`, 'POST', { body: documents.json, contentType: 'application/json' })).seconds,
      yaml: (await timed(`${base}?dry_run=true`, 'POST', { body: documents.yaml, contentType: 'application/yaml' })).seconds,
    };
    await settle(server.pid);
    result.rss_mb_after_warmup = memoryMB(server.pid);

    log(`${kind}: applying ${documents.counts.mappings} mappings (${(documents.json.length / 1e6).toFixed(2)} MB of JSON)`);
    const apply = await timed(base, 'POST', { body: documents.json, contentType: 'application/json' });
    const applied = JSON.parse(apply.text);
    if (applied.dry_run !== false || (applied.counts.added ?? 0) < documents.counts.mappings)
      throw new Error(`apply: unexpected diff counts ${JSON.stringify(applied.counts)}`);
    result.apply = { seconds: [apply.seconds], counts: applied.counts, rss: memoryMB(server.pid) };
    log(`  apply ${apply.seconds.toFixed(2)} s ${JSON.stringify(applied.counts)}`);
    await settle(server.pid);

    const runSeries = async (name, request, check) => {
      const seconds = [];
      let last;
      for (let run = 0; run < options.runs; run += 1) {
        last = await request();
        seconds.push(last.seconds);
      }
      check(last.text);
      result[name] = { seconds, bytes: last.bytes, rss: memoryMB(server.pid) };
      log(`  ${name} ${seconds.map((s) => s.toFixed(3)).join(' / ')} s (${(last.bytes / 1e6).toFixed(2)} MB answer)`);
      await settle(server.pid);
    };
    const checkDiff = (text) => {
      const diff = JSON.parse(text);
      const { counts } = diff;
      const others = Object.entries(counts).filter(([action, count]) => action !== 'replaced' && count !== 0);
      if (diff.dry_run !== true || counts.replaced !== options.changed || others.length)
        throw new Error(`dry-run diff: expected ${options.changed} replaced and nothing else, got ${JSON.stringify(counts)}`);
    };
    await runSeries('diff_json', () => timed(`${base}?dry_run=true`, 'POST', { body: documents.changedJson, contentType: 'application/json' }), checkDiff);
    await runSeries('diff_yaml', () => timed(`${base}?dry_run=true`, 'POST', { body: documents.changedYaml, contentType: 'application/yaml' }), checkDiff);
    const checkExport = (parse) => (text) => {
      const count = exportedMappings(parse(text));
      if (count !== documents.counts.mappings) throw new Error(`export: ${count} mappings, expected ${documents.counts.mappings}`);
    };
    await runSeries('export_json', () => timed(base, 'GET'), checkExport(JSON.parse));
    await runSeries(
      'export_yaml',
      () => timed(base, 'GET', { accept: 'application/yaml' }),
      checkExport((text) => YAML.parse(text)),
    );
    result.memory_end = memoryMB(server.pid);
    const stopped = await server.handle.stop();
    if (stopped.code !== 0) log(`${kind}: Tariff exited with ${JSON.stringify(stopped)}; log:\n${tail(server.handle.logFile)}`);
  } catch (error) {
    if (server) log(`${kind}: Tariff log tail:\n${tail(server.handle.logFile)}`);
    throw error;
  } finally {
    if (server) await stopAll([server.handle]);
    if (!options.keep) await scratch.drop().catch((error) => log(`could not drop ${scratch.name}: ${error.message}`));
  }
}

/** CloudKitty 17 on one database kind: the sample created one rule at a time, then read back. */
async function benchCloudKitty(kind, documents, options, tmp) {
  const scratch = await createScratchDatabase(kind, tmp, 'ck');
  let ck;
  try {
    const t0 = performance.now();
    ck = await startCloudKitty17(sqlalchemyUrl(scratch, tmp));
    log(
      `${kind}: CloudKitty 17 on ${ck.url} ready in ${((performance.now() - t0) / 1000).toFixed(0)} s; creating ${documents.sampleCounts.mappings} mappings one by one`,
    );
    const sample = documents.sample;
    const t1 = performance.now();
    const createRequests = await createOneByOne(ck.call, sample);
    const createSeconds = (performance.now() - t1) / 1000;
    const t2 = performance.now();
    const read = await readOneByOne(ck.call);
    const readSeconds = (performance.now() - t2) / 1000;
    if (read.mappings !== documents.sampleCounts.mappings || read.thresholds !== documents.sampleCounts.thresholds)
      throw new Error(`CloudKitty read back ${JSON.stringify(read)}, expected ${JSON.stringify(documents.sampleCounts)}`);
    // Extrapolation: the full document is `factor` times the sample in rules (mappings +
    // thresholds); services, fields and mappings scale alike (the sample is its first services).
    const rules = (counts) => counts.mappings + counts.thresholds;
    const factor = rules(documents.counts) / rules(documents.sampleCounts);
    const result = {
      database: scratch.url,
      sample: documents.sampleCounts,
      factor,
      create: {
        requests: createRequests,
        seconds: createSeconds,
        per_request_ms: (createSeconds * 1000) / createRequests,
        extrapolated_seconds: createSeconds * factor,
      },
      read: { requests: read.requests, seconds: readSeconds, extrapolated_seconds: readSeconds * factor },
      uwsgi_rss_mb: ck.pid ? treeRssMB(ck.pid) : null,
    };
    log(
      `  CloudKitty 17: ${createRequests} POSTs in ${createSeconds.toFixed(1)} s (${result.create.per_request_ms.toFixed(1)} ms each) → ×${factor.toFixed(2)} = ${result.create.extrapolated_seconds.toFixed(0)} s; ` +
        `read back (${read.requests} GETs) ${readSeconds.toFixed(1)} s → ${result.read.extrapolated_seconds.toFixed(1)} s`,
    );
    return result;
  } finally {
    if (ck) await ck.stop();
    if (!options.keep) await scratch.drop().catch((error) => log(`could not drop ${scratch.name}: ${error.message}`));
  }
}

const fmtS = (seconds) =>
  seconds === null || seconds === undefined
    ? '–'
    : seconds >= 10
      ? `${seconds.toFixed(0)} s`
      : seconds >= 1
        ? `${seconds.toFixed(2)} s`
        : `${(seconds * 1000).toFixed(0)} ms`;
const fmtSeries = (seconds) =>
  seconds.length === 1 ? fmtS(seconds[0]) : `${fmtS(median(seconds))} (${fmtS(Math.min(...seconds))}–${fmtS(Math.max(...seconds))})`;

function table(results, options, documents) {
  const header = ['scenario', 'database', 'Tariff', 'CloudKitty 17', 'CloudKitty / Tariff', 'target', 'met', 'Tariff RSS peak'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  const m = documents.counts.mappings.toLocaleString('en-US');
  for (const kind of options.databases) {
    const t = results[kind]?.tariff;
    const ckResult = results[kind]?.cloudkitty;
    const c = ckResult && !ckResult.error ? ckResult : undefined;
    const ckFailed = ckResult?.error ? 'failed' : '–';
    const sampleText = c ? `${c.sample.mappings.toLocaleString('en-US')} mappings` : '';
    const ckCreate = c
      ? `${fmtS(c.create.extrapolated_seconds)} est. (${sampleText} one by one: ${fmtS(c.create.seconds)}, ${c.create.requests} POSTs)`
      : ckFailed;
    const ckRead = c ? `${fmtS(c.read.extrapolated_seconds)} est. (read-back walk of ${sampleText}: ${fmtS(c.read.seconds)})` : ckFailed;
    const rows = [
      [
        'apply',
        `apply ${m} mappings + ${documents.counts.thresholds} thresholds to an empty database (JSON)`,
        ckCreate,
        c?.create.extrapolated_seconds,
        TARGETS.apply[kind],
      ],
      ['diff_json', `dry-run diff, ${options.changed} costs changed (JSON body)`, ckRead, c?.read.extrapolated_seconds, TARGETS.diff],
      ['diff_yaml', `dry-run diff, ${options.changed} costs changed (YAML body)`, ckRead, c?.read.extrapolated_seconds, TARGETS.diff],
      ['export_json', `export ${m} mappings (JSON)`, ckRead, c?.read.extrapolated_seconds, TARGETS.export],
      ['export_yaml', `export ${m} mappings (YAML)`, ckRead, c?.read.extrapolated_seconds, TARGETS.export],
    ];
    for (const [key, title, ckText, ckSeconds, target] of rows) {
      const run = t?.[key];
      const seconds = run ? median(run.seconds) : null;
      const ratio = seconds && ckSeconds ? `×${(ckSeconds / seconds).toFixed(ckSeconds / seconds >= 10 ? 0 : 1)}` : '–';
      const met = run ? (seconds <= target ? 'yes' : 'NO') : '–';
      lines.push(
        `| ${title} | ${DB_TITLE[kind]} | ${run ? fmtSeries(run.seconds) : t?.error ? 'failed' : '–'} | ${ckText} | ${ratio} | ≤ ${fmtS(target)} | ${met} | ${run?.rss?.hwm ? `${run.rss.hwm} MB` : '–'} |`,
      );
    }
    if (t?.memory_end) {
      const peak = t.memory_end.hwm;
      lines.push(
        `| server RSS (VmHWM, whole run) | ${DB_TITLE[kind]} | ${peak} MB (VmRSS: ${t.rss_mb_at_start?.rss} MB at start, ${t.rss_mb_after_warmup?.rss} MB after the warm-up dry runs, ${t.memory_end.rss} MB at the end) | ${c?.uwsgi_rss_mb ? `uWSGI ${c.uwsgi_rss_mb} MB (master + 1 worker, after the sample)` : '–'} | – | < ${TARGETS.rssMB} MB | ${peak < TARGETS.rssMB ? 'yes' : 'NO'} | ${peak} MB |`,
      );
    }
  }
  return lines.join('\n');
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
  if (options.cloudkitty && !cloudKittyAvailable()) {
    log('CloudKitty 17 anchor scripts not found (../shared/anchors/cloudkitty): baseline skipped');
    options.cloudkitty = false;
  }
  const handlersStop = () => {
    log('interrupted: stopping');
    process.exit(130); // exit hooks stop Tariff (processes.js) and CloudKitty (cloudkitty17.js)
  };
  process.on('SIGINT', handlersStop);
  process.on('SIGTERM', handlersStop);

  const doc = buildDocument({ services: options.services });
  const changed = withChangedCosts(doc, options.changed);
  const sample = sampleOf(doc, options.ckServices);
  const documents = {
    json: JSON.stringify(doc),
    yaml: YAML.stringify(doc),
    changedJson: JSON.stringify(changed),
    changedYaml: YAML.stringify(changed),
    counts: countRules(doc),
    sample,
    sampleCounts: countRules(sample),
  };
  log(`document: ${JSON.stringify(documents.counts)}; CloudKitty 17 sample: ${JSON.stringify(documents.sampleCounts)}`);

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tariff-price-list-bench-'));
  const results = {};
  let failed = false;
  for (const kind of options.databases) {
    results[kind] = {};
    if (options.tariff) {
      try {
        results[kind].tariff = {};
        await benchTariff(kind, documents, options, tmp, results[kind].tariff);
      } catch (error) {
        failed = true;
        results[kind].tariff.error = String(error.stack ?? error);
        log(`${kind}: Tariff FAILED: ${error.message}`);
      }
    }
    if (options.cloudkitty) {
      try {
        results[kind].cloudkitty = await benchCloudKitty(kind, documents, options, tmp);
      } catch (error) {
        failed = true;
        results[kind].cloudkitty = { error: String(error.stack ?? error) };
        log(`${kind}: CloudKitty 17 FAILED: ${error.message}`);
      }
    }
  }

  let commit = null;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // not a checkout
  }
  const markdown = table(results, options, documents);
  const resultsDir = path.join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `price-list-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), commit, options, counts: documents.counts, sample: documents.sampleCounts, results, table: markdown }, null, 2)}\n`,
  );

  console.log(`## Price list bench ${new Date().toISOString()}\n`);
  console.log(
    `${os.availableParallelism()} CPUs, node ${process.version}, Tariff ${commit ?? '?'}; document: ${documents.counts.services} services, ${documents.counts.fields} fields, ` +
      `${documents.counts.mappings.toLocaleString('en-US')} mappings, ${documents.counts.thresholds} thresholds, ${documents.counts.groups} groups ` +
      `(${(documents.json.length / 1e6).toFixed(2)} MB JSON, ${(documents.changedYaml.length / 1e6).toFixed(2)} MB YAML). ` +
      `Tariff: apply once, after unmeasured dry runs of the document (JSON, YAML) on the empty database; diffs and exports median of ${options.runs} (min–max), client-side wall time including reading the answer. ` +
      `CloudKitty 17: ${documents.sampleCounts.mappings.toLocaleString('en-US')}-mapping sample created one request at a time through /v1/rating/module_config/hashmap, ` +
      `times scaled to the whole document by its rule count (mappings + thresholds); it has no diff or export, so those rows show the time to read every rule back through the v1 API.\n`,
  );
  console.log(markdown);
  for (const [kind, parts] of Object.entries(results)) {
    for (const [side, part] of Object.entries(parts)) if (part?.error) console.log(`\n${kind} ${side}: FAILED: ${part.error.split('\n')[0]}`);
  }
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
  if (options.keep || failed) log(`kept ${tmp} (server logs)`);
  else rmSync(tmp, { recursive: true, force: true });
  return failed ? 1 : 0;
}

const code = await main();
process.exitCode = code;
setTimeout(() => process.exit(code), 200).unref();
