/**
 * `tariff price-list simulate`, the built CLI (`node bin/tariff.js`) against a real Tariff server
 * process on SQLite (docs/price-list.md §4): live rules applied with the CLI, then a draft that
 * makes m1.large dearer simulated on a gzip usage file; the result's totals come back, the CSV is
 * the server's own `text/csv`, and without a usage file (no CloudKitty behind the server) the
 * server's 400 is printed. The NDJSON edge cases: simulate.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { cleanEnvironment, runCli, type CliRun } from '../helpers/cli.js';

const LIVE = `modules:
  hashmap: { enabled: true, priority: 1 }
services:
  instance:
    fields:
      flavor_name:
        mappings:
          - { value: m1.large, type: flat, cost: 2 }
          - { value: m1.small, type: flat, cost: 0.5 }
`;
const DRAFT = LIVE.replace('cost: 2 }', 'cost: 3 }');

const HOUR = 3_600_000;
/** Usage from tomorrow on: the live rules, applied now, price all of it. */
const BEGIN = Math.ceil((Date.now() + 24 * HOUR) / HOUR) * HOUR;
const iso = (time: number) => new Date(time).toISOString().replace('.000Z', '+00:00');

/** Three hours of two projects, each with an m1.large and an m1.small instance, stored at the live prices. */
function usageLines(): string {
  const lines: string[] = [];
  for (let hour = 0; hour < 3; hour += 1) {
    const begin = BEGIN + hour * HOUR;
    const instance = ['project-a', 'project-b'].flatMap((project) =>
      [
        ['m1.large', '2'],
        ['m1.small', '0.5'],
      ].map(([flavor, price]) => ({
        vol: { unit: 'instance', qty: 1 },
        rating: { price },
        groupby: { project_id: project, id: `${project}-${flavor}` },
        metadata: { flavor_name: flavor },
      })),
    );
    lines.push(JSON.stringify({ period: { begin: iso(begin), end: iso(begin + HOUR) }, usage: { instance } }));
  }
  return `${lines.join('\n')}\n`;
}

describe('tariff price-list simulate against a real server', () => {
  let directory: string;
  let server: ServerProcess;
  let draft: string;
  let usage: string;
  const tariff = (args: string[]): Promise<CliRun> => runCli(cleanEnvironment({ TARIFF_URL: server.url }), ['price-list', ...args]);
  const period = () => ['--from', iso(BEGIN), '--to', iso(BEGIN + 3 * HOUR)];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-simulate-cli-'));
    server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`);
    const live = join(directory, 'live.yaml');
    writeFileSync(live, LIVE);
    draft = join(directory, 'draft.yaml');
    writeFileSync(draft, DRAFT);
    usage = join(directory, 'usage.jsonl.gz');
    writeFileSync(usage, gzipSync(usageLines()));
    const applied = await tariff(['apply', live, '--yes']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('sends the draft and a gzip usage file, and prints the result with its totals', async () => {
    const run = await tariff(['simulate', draft, ...period(), '--usage', usage, '--format', 'json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ begin: iso(BEGIN), end: iso(BEGIN + 3 * HOUR), effective_at: iso(BEGIN), usage: 'file' });
    // 12 points: 6 m1.large at 2 and 6 m1.small at 0.5 stored and current; the draft's m1.large at 3.
    expect(result.totals).toMatchObject({ points: 12, changed_points: 6, stored: '15', current: '15', draft: '21', delta: '6', relative_delta: '0.4' });
    expect(result.movers.projects.map((row: any) => [row.project_id, row.delta])).toEqual([
      ['project-a', '3'],
      ['project-b', '3'],
    ]);
    expect(result.reconciliation).toMatchObject({ points: 0, difference: '0' });
    expect(result.project_services).toHaveLength(2);
  });

  it('prints the summary and the movers as a table, and the CSV the server answers to text/csv', async () => {
    const table = await tariff(['simulate', draft, ...period(), '--usage', usage, '--top', '1']);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines).toContain('Points          12 (4 distinct), 6 priced differently by the draft');
    expect(lines).toContain('Delta           +6 (+40.00 %)');
    expect(lines.filter((line) => line.startsWith('project-'))).toHaveLength(1);

    const csv = await tariff(['simulate', draft, ...period(), '--usage', usage, '--format', 'csv']);
    expect(csv.code).toBe(0);
    const form = new FormData();
    form.append('price_list', new Blob([DRAFT], { type: 'application/yaml' }), 'draft.yaml');
    form.append('usage', new Blob([new Uint8Array(readFileSync(usage))], { type: 'application/gzip' }), 'usage.jsonl.gz');
    const query = new URLSearchParams({ begin: iso(BEGIN), end: iso(BEGIN + 3 * HOUR) });
    const answer = await fetch(`${server.url}/v2/rating/price_list/simulation?${query}`, { method: 'POST', body: form, headers: { accept: 'text/csv' } });
    expect(answer.status).toBe(200);
    expect(csv.stdout).toBe(await answer.text());
  });

  it('ends with the faultstring of a usage file the server cannot read, printing no result', async () => {
    const bad = join(directory, 'bad.jsonl');
    writeFileSync(bad, `${usageLines()}{"period": {"begin": "soon"}}\n`);
    const run = await tariff(['simulate', draft, ...period(), '--usage', bad]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    // An error line of the stream (the simulation had started): its faultstring alone.
    expect(run.stderr).toBe('tariff: Usage file line 4: "usage" must be an object of metric types, each a list of points.\n');
  });

  it("prints the server's refusal of a simulation without a usage file when no CloudKitty is behind it", async () => {
    const run = await tariff(['simulate', draft, ...period()]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^tariff: The server refused the request \(400\): .*usage file.*\n$/);
  });
});
