/**
 * Issue 11's property-based fuzzer: every route of `GET /v1/openapi.json` (and the few it leaves
 * out) gets requests built from its own schemas with hostile values substituted — unbounded
 * exponents, prototype names, JSON nested thousands deep, invalid UTF-8, lone surrogates, long
 * strings, wrong types, NUL characters, missing and extra attributes, raw bytes — sent over real
 * HTTP to a real server process on this run's database, one at a time. Each request must get a
 * non-5xx answer within 2 s while `/healthcheck` keeps answering within 1 s; the server's RSS must
 * grow less than 300 MiB; and a refused request must leave every table as it was.
 *
 * Per route, four requests of each hostile class come first (fixed examples), then
 * `TARIFF_FUZZ_RUNS` random ones (default 60 on SQLite, 20 on PostgreSQL and MariaDB: what differs
 * between databases is how hostile text and numbers are stored and compared, which every class's
 * fixed examples reach on every route; most random requests are refused by validation, which runs
 * before any SQL and is the same on every database, and 40 more of them cost about a minute per
 * database). `TARIFF_FUZZ_SEED` (default 11) fixes everything;
 * a failure shows fast-check's seed, path and shrunk counterexample for its route.
 * `TARIFF_FUZZ_ROUTES` (a regular expression on `METHOD /path`) and `TARIFF_FUZZ_CHECKS` (one on
 * the run's label, e.g. `exponent in the body`, `random`) narrow the runs, `TARIFF_FUZZ_PATH`
 * replays a reported failure (each failure prints its replay settings), and `TARIFF_FUZZ_SURVEY=1`
 * keeps going past failures without shrinking and lists the distinct ones. `TARIFF_FUZZ_ANSWER_MS`,
 * `TARIFF_FUZZ_HEALTH_MS` and `TARIFF_FUZZ_RSS_MB` move the bounds.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseKind } from '../helpers/databases.js';
import { HOSTILE_CLASSES } from './arbitraries.js';
import { DEFAULT_LIMITS, startFuzzTarget, type FuzzTarget } from './harness.js';
import { requestArbitrary, routeName, type RequestSpec, type Route } from './requests.js';

const SEED = Number(process.env.TARIFF_FUZZ_SEED ?? 11);
const RUNS = Number(process.env.TARIFF_FUZZ_RUNS ?? (testDatabaseKind() === 'sqlite' ? 60 : 20));
/** Requests of each hostile class per route before the random ones. */
const EXAMPLES_PER_CLASS = 4;
const ROUTES = process.env.TARIFF_FUZZ_ROUTES ? new RegExp(process.env.TARIFF_FUZZ_ROUTES) : undefined;
const PATH = process.env.TARIFF_FUZZ_PATH;
const SURVEY = process.env.TARIFF_FUZZ_SURVEY === '1';
const CHECKS = process.env.TARIFF_FUZZ_CHECKS ? new RegExp(process.env.TARIFF_FUZZ_CHECKS) : undefined;
/** How long one fast-check run may take before it stops (shrinking a stall takes long). */
const CHECK_TIME_LIMIT_MS = Number(process.env.TARIFF_FUZZ_CHECK_TIME_LIMIT_MS ?? 120_000);

/** The seed of one route's run: the run's seed mixed with the route's name, so adding routes moves no other. */
/** A failed request, with its kind (symptoms and message) to group the same defect across routes. */
class FuzzFailure extends Error {
  constructor(
    message: string,
    readonly kind: string,
  ) {
    super(message);
  }
}

function routeSeed(route: Route): number {
  let hash = SEED | 0;
  for (const char of routeName(route)) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

describe(`hostile input to every route, on ${testDatabaseKind()}`, () => {
  let target: FuzzTarget;
  let routes: Route[] = [];
  /** Distinct failures (survey mode) and how often each came. */
  const distinct = new Map<string, { count: number; example: string }>();
  /** Whether every route ran all its requests (a failure ends a route's run early). */
  let completed = false;

  beforeAll(async () => {
    target = await startFuzzTarget({
      ...DEFAULT_LIMITS,
      answerMs: Number(process.env.TARIFF_FUZZ_ANSWER_MS ?? DEFAULT_LIMITS.answerMs),
      healthMs: Number(process.env.TARIFF_FUZZ_HEALTH_MS ?? DEFAULT_LIMITS.healthMs),
      rssGrowthMb: Number(process.env.TARIFF_FUZZ_RSS_MB ?? DEFAULT_LIMITS.rssGrowthMb),
    });
    routes = target.routes.filter((route) => !ROUTES || ROUTES.test(routeName(route)));
  }, 180_000);

  afterAll(async () => {
    if (target) console.log(`fuzz ${testDatabaseKind()}: seed ${SEED}, ${JSON.stringify(target.statistics())}`);
    await target?.stop();
  });

  it('reads the routes from the OpenAPI document', () => {
    expect(target.routes.length).toBeGreaterThan(50);
    expect(target.routes.map(routeName)).toEqual(
      expect.arrayContaining(['POST /v1/rating/quote', 'POST /v2/rating/quote', 'PUT /v1/rating/module_config/hashmap/thresholds/{threshold_id}']),
    );
  });

  it(
    'no 5xx, no answer over 2 s, no stalled /healthcheck, bounded RSS, nothing written by a refused request',
    async () => {
      // Failures by kind (symptoms and message): the first one's report, then where else it came.
      const failures = new Map<string, { report: string; also: string[] }>();
      for (const route of routes) {
        const seed = routeSeed(route);
        // The deterministic pass: requests of every class first (three in the body, at the places
        // the class is about, when the route takes a body), then random ones. Each is its own
        // fast-check run, so a failure of any of them is shrunk.
        const checks = [
          ...HOSTILE_CLASSES.flatMap((klass, index) => [
            {
              label: `${klass} in the body`,
              arbitrary: requestArbitrary(route, klass, { inBody: true }),
              numRuns: EXAMPLES_PER_CLASS - 1,
              seed: seed + 2 * index + 1,
            },
            { label: `${klass} anywhere`, arbitrary: requestArbitrary(route, klass), numRuns: 1, seed: seed + 2 * index + 2 },
          ]),
          { label: 'random', arbitrary: requestArbitrary(route), numRuns: RUNS, seed },
        ].filter((check) => !CHECKS || CHECKS.test(check.label));
        for (const check of checks) {
          const property = fc.asyncProperty(check.arbitrary, async (spec: RequestSpec) => {
            const outcome = await target.exercise(route, spec);
            if (!outcome.failure) return;
            if (!SURVEY) throw new FuzzFailure(outcome.failure, outcome.kind!);
            const seen = distinct.get(outcome.signature!);
            if (seen) seen.count++;
            else distinct.set(outcome.signature!, { count: 1, example: outcome.failure });
          });
          const details = await fc.check(property, {
            seed: check.seed,
            numRuns: check.numRuns,
            ...(PATH ? { path: PATH } : {}),
            plugins: [fc.interruptAfterTimeLimit(CHECK_TIME_LIMIT_MS)],
          });
          if (details.failed) {
            const error = details.errorInstance;
            const kind = error instanceof FuzzFailure ? error.kind : String(error);
            const where = `${routeName(route)}, ${check.label}`;
            const seen = failures.get(kind);
            if (seen) {
              seen.also.push(where);
            } else {
              const replay = `TARIFF_FUZZ_SEED=${SEED} TARIFF_FUZZ_ROUTES='^${routeName(route)}$' TARIFF_FUZZ_CHECKS='^${check.label}$' TARIFF_FUZZ_PATH='${details.counterexamplePath}'`;
              const message = error instanceof Error ? error.message : String(error);
              failures.set(kind, { report: `${where} (replay: ${replay}):\n${fc.defaultReportMessage(details)}\n${message}`, also: [] });
            }
          }
        }
      }
      const reports = [...failures.entries()].map(
        ([kind, { report, also }]) => `[${kind}] ${report}${also.length ? `\nThe same failure also in: ${also.join('; ')}` : ''}`,
      );
      if (SURVEY && distinct.size) {
        const list = [...distinct.entries()].map(([signature, { count, example }]) => `× ${count}  ${signature}\n${example}`);
        reports.push(`${distinct.size} distinct failures:\n\n${list.join('\n\n')}`);
      }
      if (reports.length) throw new Error(`${failures.size} distinct failure(s):\n\n${reports.join('\n\n')}`);
      completed = true;
    },
    60 * 60_000,
  );

  it('sent every class of hostile input', (context) => {
    if (!completed) context.skip();
    const statistics = target.statistics();
    // Node refuses to send a few requests (e.g. some methods with odd URLs); nearly all go out.
    for (const klass of HOSTILE_CLASSES) expect(statistics.byClass[klass] ?? 0, klass).toBeGreaterThanOrEqual(routes.length * (EXAMPLES_PER_CLASS - 1));
  });
});
