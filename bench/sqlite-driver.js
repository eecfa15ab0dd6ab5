#!/usr/bin/env node
// The embedded database driver side by side: the same Kysely workload (get one row, list 100 and
// 10,000 rows, each turned into JSON; one insert per transaction) on this build's
// src/database/dialects/sqlite.ts and on the one built in --baseline DIR (e.g. a worktree of the
// last commit on better-sqlite3, built with its own npm ci), in alternating child processes.
// Prints CPU microseconds per operation (process.cpuUsage: steadier than wall time on a busy
// machine) for each, medians over the rounds, and the change against the baseline.
//
//   node bench/sqlite-driver.js --baseline /tmp/tariff-better-sqlite3 [--rounds 3]
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** The workload: label → [operations measured, operation(i)]. */
async function workload(repo) {
  const { openSqlite } = await import(pathToFileURL(path.join(repo, 'dist/database/dialects/sqlite.js')).href);
  const { sql } = await import(pathToFileURL(path.join(repo, 'node_modules/kysely/dist/esm/index.js')).href);
  const file = path.join(repo, `.bench-sqlite-driver-${process.pid}.db`);
  const { db } = openSqlite(file);
  await sql`create table m (id integer primary key, mapping_id text, value text, cost text, map_type text, service_id integer,
    field_id integer, group_id integer, tenant_id text, created_at text, start text, finish text, name text)`.execute(db);
  await db.transaction().execute(async (transaction) => {
    for (let i = 0; i < 10_000; i += 1)
      await sql`insert into m values (${i}, ${`id${i}`}, ${`v${i}`}, '0.05', 'flat', 1, 2, null, null, '2026-01-01', '2026-01-01', null, ${`n${i}`})`.execute(
        transaction,
      );
  });
  let nextId = 100_000;
  const operations = {
    'get one row, JSON': [
      20_000,
      async (i) =>
        JSON.stringify(
          await db
            .selectFrom('m')
            .selectAll()
            .where('id', '=', i % 10_000)
            .execute(),
        ),
    ],
    'list 100 rows, JSON': [
      2_000,
      async (i) =>
        JSON.stringify(
          await db
            .selectFrom('m')
            .selectAll()
            .where('id', '>=', i % 9_000)
            .limit(100)
            .execute(),
        ),
    ],
    'list 10,000 rows, JSON': [20, async () => JSON.stringify(await db.selectFrom('m').selectAll().execute())],
    'insert, one transaction each': [
      3_000,
      async () => {
        const id = nextId++;
        await db
          .transaction()
          .execute((transaction) =>
            transaction
              .insertInto('m')
              .values({ id, mapping_id: 'x', value: 'y', cost: '1', map_type: 'flat', service_id: 1, field_id: 1, created_at: 'c', start: 's', name: 'n' })
              .execute(),
          );
      },
    ],
  };
  const result = {};
  for (const [label, [count, operation]] of Object.entries(operations)) {
    for (let i = 0; i < count / 5; i += 1) await operation(i);
    const before = process.cpuUsage();
    for (let i = 0; i < count; i += 1) await operation(i);
    const used = process.cpuUsage(before);
    result[label] = (used.user + used.system) / count;
  }
  await db.destroy();
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  return result;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(await workload(process.argv[3])));
} else {
  const { values } = parseArgs({ options: { baseline: { type: 'string' }, rounds: { type: 'string', default: '3' } } });
  if (!values.baseline) throw new Error('usage: node bench/sqlite-driver.js --baseline DIR [--rounds N]');
  const targets = { baseline: path.resolve(values.baseline), current: REPO };
  const rounds = { baseline: [], current: [] };
  for (let round = 0; round < Number(values.rounds); round += 1)
    for (const name of round % 2 === 0 ? ['baseline', 'current'] : ['current', 'baseline'])
      rounds[name].push(JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', targets[name]], { encoding: 'utf8' })));
  const commit = (directory) => execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: directory, encoding: 'utf8' }).trim();
  console.log(
    `node ${process.version}; baseline ${commit(targets.baseline)} (${targets.baseline}), current ${commit(REPO)}; ${values.rounds} alternating rounds, medians\n`,
  );
  console.log('| operation | baseline CPU µs/op | current CPU µs/op | change |\n|---|---|---|---|');
  for (const label of Object.keys(rounds.current[0])) {
    const baseline = median(rounds.baseline.map((round) => round[label]));
    const current = median(rounds.current.map((round) => round[label]));
    console.log(`| ${label} | ${baseline.toFixed(1)} | ${current.toFixed(1)} | ${(((current - baseline) / baseline) * 100).toFixed(1)} % |`);
  }
}
