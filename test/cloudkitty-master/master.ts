/**
 * CloudKitty master (upstream commit 4595e098, vendored in `../shared/anchors/cloudkitty-master/`
 * and run with Debian's `python3` through its `run.sh`) for the tests that share one database with
 * CloudKitty's own processor (issue 16): its migrations (`cloudkitty-dbsync`), its HashMap
 * processor pricing a dataframe (`price.py`, run once per rating run by `price_batch.py`, one
 * Python process for all the runs of a comparison), and its hashmap database API.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The vendored CloudKitty master, beside the project as CI puts `../shared`. */
export const MASTER = join(ROOT, '..', 'shared', 'anchors', 'cloudkitty-master');
const RUN = join(MASTER, 'run.sh');

/** Whether CloudKitty master and Debian's CloudKitty dependencies are there to run it. */
export function masterAvailable(): boolean {
  return existsSync(RUN) && existsSync('/usr/lib/python3/dist-packages/oslo_db');
}

/** The SQLAlchemy URL CloudKitty needs for a Tariff database URL (`postgres://`, `mysql://`). */
export function sqlalchemyUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const driver = url.protocol.startsWith('postgres') ? 'postgresql+psycopg2' : 'mysql+pymysql';
  return `${driver}://${url.username}${url.password ? `:${url.password}` : ''}@${url.host}${url.pathname}`;
}

/** What a CloudKitty command printed and how it exited. */
export interface MasterRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `run.sh ARGS` with `stdin`, in `environment` (added to this process's), within `timeoutMs`;
 * never throws on a non-zero exit.
 */
export function runMaster(args: string[], options: { stdin?: string; environment?: Record<string, string>; timeoutMs?: number } = {}): Promise<MasterRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [RUN, ...args], {
      cwd: tmpdir(),
      env: { ...process.env, ...options.environment },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** Runs master's `cloudkitty-dbsync ARGS` (e.g. `upgrade`) against the database. */
export async function dbsync(databaseUrl: string, ...args: string[]): Promise<MasterRun> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-ckm-'));
  try {
    const config = join(directory, 'cloudkitty.conf');
    writeFileSync(config, `[DEFAULT]\nuse_stderr = true\n[database]\nconnection = ${sqlalchemyUrl(databaseUrl)}\n`);
    return await runMaster(['dbsync', '--config-file', config, ...args], { timeoutMs: 300_000 });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** One priced point of master's answer. */
export interface MasterPoint {
  vol: { unit: string; qty: string };
  rating: { price: string };
  groupby: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** Master's prices: by service, points in the frame's order; or the error master raised. */
export type MasterPrices = { usage: Record<string, MasterPoint[]> } | { error: string };

/** One rating run of master's processor: whose rules (null: global rules only) and when (ISO text). */
export interface MasterRating {
  tenant: string | null;
  at: string;
}

/** The batch program: one Python process runs `price.py`'s `main()` once per rating run. */
const PRICE_BATCH = fileURLToPath(new URL('./price_batch.py', import.meta.url));

/** What `price.py` printed and how it exited, for one run of a batch. */
interface PriceRunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Prices a v2 dataframe (`{"usage": ...}` as JSON text, so that numbers keep their source form)
 * with master's HashMap processor for every rating run, in one Python process
 * (`price_batch.py`): each run builds the processor for its tenant and reloads its rules from the
 * database at its `at` (an offset is kept, as CloudKitty's orchestrator passes the period start
 * in its host's zone), as a `run.sh processor-hashmap` process of its own would.
 *
 * @param environment - the process's, for every run: e.g. `{TZ: 'Asia/Tokyo', PGTZ: 'Asia/Tokyo'}`.
 * @returns one answer per run, in order.
 * @throws Error when the processor fails other than by master raising while pricing.
 */
export async function masterPricesForRuns(
  databaseUrl: string,
  frame: string,
  ratings: readonly MasterRating[],
  environment: Record<string, string> = {},
): Promise<MasterPrices[]> {
  const runs = ratings.map((rating) => ['--db', databaseUrl, '--at', rating.at, ...(rating.tenant === null ? [] : ['--tenant', rating.tenant])]);
  const batch = await runMaster(['python', PRICE_BATCH, join(MASTER, 'price.py')], {
    stdin: JSON.stringify({ frame, runs }),
    environment,
    timeoutMs: 120_000 + 10_000 * runs.length,
  });
  if (batch.code !== 0) throw new Error(`CloudKitty master's batch processor failed (${batch.code}): ${batch.stderr.slice(-3000)}`);
  const { results } = JSON.parse(batch.stdout.trim().split('\n').at(-1) ?? '') as { results: PriceRunResult[] };
  if (results.length !== runs.length) throw new Error(`CloudKitty master's batch processor answered ${results.length} runs of ${runs.length}`);
  return results.map((result) => {
    if (result.code !== 0 && result.code !== 3) throw new Error(`CloudKitty master's processor failed (${result.code}): ${result.stderr.slice(-3000)}`);
    return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as MasterPrices;
  });
}

/**
 * Prices a v2 dataframe with master's HashMap processor for one rating run: its rules read from
 * the database for `tenant` at `at` ({@link masterPricesForRuns} with one run).
 *
 * @param environment - e.g. `{TZ: 'Asia/Tokyo', PGTZ: 'Asia/Tokyo'}`.
 * @throws Error when the processor fails other than by master raising while pricing.
 */
export async function masterPrices(
  databaseUrl: string,
  frame: string,
  options: MasterRating & { environment?: Record<string, string> },
): Promise<MasterPrices> {
  const [prices] = await masterPricesForRuns(databaseUrl, frame, [options], options.environment);
  return prices;
}

/** Runs a Python program with master first on `sys.path`, e.g. to write rules with its hashmap database API. */
export function masterPython(program: string, args: string[], environment: Record<string, string> = {}): Promise<MasterRun> {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-ckm-'));
  const file = join(directory, 'program.py');
  writeFileSync(file, program);
  return runMaster(['python', file, ...args], { environment }).finally(() => rmSync(directory, { recursive: true, force: true }));
}
