/**
 * The README's five-minute walk-through works as written: its fenced `sh` blocks, taken from
 * README.md as they stand, run in one bash (`set -euo pipefail`) from the checkout against a real
 * Tariff process on a fresh embedded database, with the real `cloudkitty` CLI (Debian's
 * python3-cloudkittyclient), curl, jq and `npx tariff`. Every command must succeed, and each quote
 * must print what the README's comment after it says (`quote    # {"total":…}`).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnvironment } from '../helpers/cli.js';
import { callServer, startServerProcess, type ServerProcess } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The README's heading of the walk-through; its section ends at the next `## ` heading. */
const WALKTHROUGH_HEADING = '## Five-minute walk-through';

/** What the walk-through needs besides Tariff, as the README says. */
const TOOLS = ['cloudkitty', 'curl', 'jq'];

/** Tools missing on this machine (the test is skipped with their names). */
const missingTools = TOOLS.filter((tool) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});
if (missingTools.length > 0) {
  console.warn(`test/operations/readme-walkthrough.test.ts skipped: ${missingTools.join(', ')} missing (Debian's python3-cloudkittyclient, curl, jq)`);
}

/** About fifteen CLI calls (a Python start each), two `npx tariff` runs and a sandbox's first script run, on a loaded machine. */
const WALKTHROUGH_LIMIT_MS = 300_000;

/**
 * The fenced `sh` blocks of the section under `heading` in `markdown`, in order.
 *
 * @throws when the section is missing.
 */
function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section '${heading}'`);
  const next = markdown.indexOf('\n## ', start + heading.length + 1);
  const section = markdown.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}

/** The outputs the blocks promise: each `quote    # <json>` line's JSON, in order. */
function promisedQuotes(blocks: string[]): unknown[] {
  return blocks.flatMap((block) => [...block.matchAll(/^quote\s+#\s*(\{.*\})\s*$/gm)].map((match) => JSON.parse(match[1]) as unknown));
}

/** How the bash running the walk-through ended. */
interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` in bash with `set -euo pipefail` from the checkout, with `environment`, killed at
 * {@link WALKTHROUGH_LIMIT_MS}.
 */
function runBash(script: string, environment: Record<string, string>): Promise<ScriptRun> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: ROOT, env: environment, timeout: WALKTHROUGH_LIMIT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe('the README', () => {
  const blocks = shellBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'), WALKTHROUGH_HEADING);

  it('has a walk-through that enables hashmap, creates a mapping, quotes, applies a price list and adds a script', () => {
    const script = blocks.join('\n');
    for (const step of [
      'module enable hashmap',
      'hashmap service create',
      'hashmap field create',
      'hashmap mapping create',
      'price-list export',
      'price-list apply examples/price-list.yaml',
      'module enable pyscripts',
      'pyscript create discount examples/discount.py',
    ]) {
      expect(script, step).toContain(step);
    }
    for (const file of ['examples/usage.json', 'examples/price-list.yaml', 'examples/discount.py']) {
      expect(script, file).toContain(file);
      expect(existsSync(join(ROOT, file)), file).toBe(true);
    }
    expect(promisedQuotes(blocks)).toHaveLength(3);
  });

  describe.skipIf(missingTools.length > 0)('five-minute walk-through, run as written', () => {
    let directory: string;
    let server: ServerProcess;

    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), 'tariff-readme-'));
      // The defaults but one sandbox worker and no spare: the walk-through runs one script.
      server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, { TARIFF_SANDBOX_WORKERS: '1', TARIFF_SANDBOX_SPARE_WORKERS: '0' });
    }, 90_000);

    afterAll(async () => {
      await server?.stop();
      if (directory) rmSync(directory, { recursive: true, force: true });
    });

    it(
      'succeeds from a fresh database, each quote printing what the README says',
      async () => {
        const environment = cleanEnvironment({ TARIFF_URL: server.url, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` });
        const run = await runBash(blocks.join('\n'), environment);
        expect(run.code, `the walk-through failed:\n${run.stderr}\n${run.stdout}`).toBe(0);
        const quotes = run.stdout
          .split('\n')
          .filter((line) => line.startsWith('{"total"'))
          .map((line) => JSON.parse(line) as unknown);
        expect(quotes).toEqual(promisedQuotes(blocks));

        const modules = await callServer(server, 'GET', '/v2/rating/modules');
        const enabled = (modules.body as { modules: { module_id: string; enabled: boolean }[] }).modules
          .filter((module) => module.enabled)
          .map((module) => module.module_id);
        expect(enabled.sort()).toEqual(['hashmap', 'pyscripts']);
      },
      WALKTHROUGH_LIMIT_MS + 30_000,
    );
  });
});
