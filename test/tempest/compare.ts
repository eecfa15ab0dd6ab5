/**
 * The comparison of two tempest runs (run_tempest.py's results.json): CloudKitty's plugin against
 * Tariff and against CloudKitty 17, and the Markdown report of what differs, with the requests the
 * failing tests made and what each server answered.
 */

/** A test's outcome: `pass` (also an expected failure), `fail` (failure or error), `skip`. */
export type TempestStatus = 'pass' | 'fail' | 'skip';

/** One request a test made, as tempest's rest_client logged it (`debug = True`). */
export interface TempestRequest {
  /** The HTTP status as text (`"200"`). */
  status: string;
  method: string;
  url: string;
  /** The JSON text sent, or null. */
  request_body: string | null;
  /** The answer's body as text, or null. */
  response_body: string | null;
  /** The answer's `Location` header, or null (absent from results written before it was recorded). */
  location?: string | null;
}

/** One test's result. */
export interface TempestTest {
  status: TempestStatus;
  /** The failure's first meaningful lines (the exception and its details) or the skip reason; null for a pass. */
  reason: string | null;
  requests: TempestRequest[];
}

/** What run_tempest.py writes to results.json. */
export interface TempestRun {
  region: string;
  plugin_dir: string;
  /** stestr's exit code, or `"timeout"`. */
  stestr_exit: number | string;
  /** Wall-clock seconds of the run. */
  seconds: number;
  summary: Record<TempestStatus, number>;
  /** By test id (`cloudkitty_tempest_plugin.tests.api.v1....test_x[id-...]`). */
  tests: Record<string, TempestTest>;
}

/** A test whose outcome against Tariff is not CloudKitty's. */
export interface TempestDifference {
  id: string;
  /** `missing`: the test did not run (or did not report) on that side. */
  tariff: TempestStatus | 'missing';
  cloudkitty: TempestStatus | 'missing';
}

/**
 * The tests whose outcome differs, sorted by id. A pass on both sides, a failure on both sides
 * and a skip on both sides are not differences; anything else is (a skip against Tariff counts
 * unless CloudKitty skips it too; a failure against CloudKitty alone is a difference too: Tariff
 * must be CloudKitty, not better, for the comparison to stay empty).
 */
export function compareRuns(tariff: TempestRun, cloudkitty: TempestRun): TempestDifference[] {
  const ids = [...new Set([...Object.keys(tariff.tests), ...Object.keys(cloudkitty.tests)])].sort();
  const differences: TempestDifference[] = [];
  for (const id of ids) {
    const ours = tariff.tests[id]?.status ?? 'missing';
    const theirs = cloudkitty.tests[id]?.status ?? 'missing';
    if (ours !== theirs) differences.push({ id, tariff: ours, cloudkitty: theirs });
  }
  return differences;
}

/** The test id without its module path and idempotent id: `Class.test_name`. */
export function shortName(id: string): string {
  const withoutAttributes = id.replace(/\[.*\]$/, '');
  return withoutAttributes.split('.').slice(-2).join('.');
}

/** A URL's path with ids (UUIDs, tempest's random names) replaced, to match one run's request with the other's. */
function shape(request: TempestRequest): string {
  const path = request.url.replace(/^https?:\/\/[^/]+/, '');
  return `${request.method} ${path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '{id}').replace(/tempest-[\w-]+/g, '{name}')}`;
}

/** The request that made a failing test fail: its last request with an unexpected answer (its last request otherwise). */
function failingRequestIndex(test: TempestTest): number {
  return test.requests.length - 1;
}

function clip(text: string | null, limit = 600): string {
  if (text === null) return '(none)';
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length} characters)` : text;
}

/** An answer as the report shows it: status, `Location` when there is one, body. */
function answer(request: TempestRequest | undefined): string {
  if (!request) return '(no such request)';
  const location = request.location ? ` Location: \`${request.location.replace(/^https?:\/\/[^/]+/, '')}\`` : '';
  return `${request.status}${location} \`${clip(request.response_body)}\``;
}

/** Markdown: both summaries, the differences, then for each test failing against Tariff its request and both answers. */
export function renderReport(tariff: TempestRun, cloudkitty: TempestRun, differences: TempestDifference[]): string {
  const lines: string[] = [];
  const summary = (run: TempestRun) => `${run.summary.pass} pass, ${run.summary.fail} fail, ${run.summary.skip} skip (${run.seconds} s, region ${run.region})`;
  lines.push('# CloudKitty tempest plugin: Tariff against CloudKitty 17', '');
  lines.push(`- plugin: ${tariff.plugin_dir}`);
  lines.push(`- Tariff: ${summary(tariff)}`);
  lines.push(`- CloudKitty 17: ${summary(cloudkitty)}`);
  lines.push(`- differences: ${differences.length}`, '');
  if (differences.length) {
    lines.push('| test | Tariff | CloudKitty 17 |', '|---|---|---|');
    for (const d of differences) lines.push(`| ${shortName(d.id)} | ${d.tariff} | ${d.cloudkitty} |`);
    lines.push('');
  }
  for (const d of differences) {
    const ours = tariff.tests[d.id];
    const theirs = cloudkitty.tests[d.id];
    lines.push(`## ${shortName(d.id)}: Tariff ${d.tariff}, CloudKitty ${d.cloudkitty}`, '');
    const failing = d.tariff === 'fail' || d.tariff === 'skip' ? ours : theirs;
    if (failing?.reason) lines.push('```', failing.reason.trim(), '```', '');
    const side = failing === ours ? ours : theirs;
    if (!side || side.requests.length === 0) continue;
    const index = failingRequestIndex(side);
    const request = side.requests[index];
    const other = (side === ours ? theirs : ours)?.requests ?? [];
    const counterpart = other[index] && shape(other[index]) === shape(request) ? other[index] : other.find((r) => shape(r) === shape(request));
    lines.push(`Request (#${index + 1} of the test): \`${request.method} ${request.url.replace(/^https?:\/\/[^/]+/, '')}\``);
    lines.push('', `Body: \`${clip(request.request_body)}\``, '');
    const tariffAnswer = side === ours ? request : counterpart;
    const cloudkittyAnswer = side === ours ? counterpart : request;
    lines.push(`- Tariff: ${answer(tariffAnswer)}`);
    lines.push(`- CloudKitty 17: ${answer(cloudkittyAnswer)}`);
    lines.push('');
  }
  return lines.join('\n');
}
