/**
 * docs/price-list.md §1-2: a generated rule set applied to an empty database, exported (JSON and
 * YAML), the export applied to other empty databases, exported again: the same document, revision
 * aside. An unchanged export applies as a no-op that leaves the revision where it was.
 */
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { testDatabaseKind } from '../helpers/databases.js';
import { NO_CHANGES, applied, content, exported, exportedYaml, fixedExport, generatedRules, isoFromNow, ruleSetDocument } from './price-list.js';

/**
 * Each run makes three databases (about 2 s on PostgreSQL, much more under CI's load): kept small,
 * and a failure is reported as found rather than shrunk, each shrink step costing three more
 * databases (a shrink once ran past the test's time-out and hid the counterexample).
 */
const RUNS = 4;

async function withApps<T>(count: number, body: (apps: TestApp[]) => Promise<T>): Promise<T> {
  const apps = await Promise.all(Array.from({ length: count }, () => startTestApp()));
  try {
    return await body(apps);
  } finally {
    await Promise.all(apps.map((app) => app.close()));
  }
}

describe(`price list round trip on ${testDatabaseKind()}`, () => {
  it('export → apply to an empty database → export gives the same document (JSON and YAML)', { timeout: 180_000 }, async () => {
    const times = { scheduled: isoFromNow(10), end: isoFromNow(30) };
    await fc.assert(
      fc.asyncProperty(generatedRules, (rules) =>
        withApps(3, async ([first, fromJson, fromYaml]) => {
          const document = ruleSetDocument(rules, times);
          const diff = await applied(first, document);
          expect(diff.dry_run).toBe(false);
          expect(diff.revision).toBe(1);

          const original = await exported(first);
          expect(original.revision).toBe(1);
          // `at`: the time the export shows, whole seconds, UTC with +00:00 (docs/price-list.md §1).
          expect(original.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
          expect(Math.abs(Date.parse(original.at) - Date.now())).toBeLessThan(60_000);
          // The fixed rules, exactly: decimals normalized, defaults left out, names kept, the
          // scheduled mapping with its start, the ending one with its end, numbers as text.
          expect(original.services.compute).toEqual(fixedExport(times));
          expect(original.modules.hashmap).toEqual(rules.modules.hashmap);
          expect(original.modules.pyscripts).toEqual(rules.modules.pyscripts);
          expect(original.groups).toEqual([...new Set(document.groups as string[])].sort());
          // Every generated rule is there (as many mappings and thresholds per parent).
          for (const service of rules.services) {
            const got = original.services[`gen-${service.name}`];
            expect(got.mappings ?? []).toHaveLength(service.mappings.length);
            expect(got.thresholds ?? []).toHaveLength(service.thresholds.length);
            for (const field of service.fields) {
              expect(got.fields[field.name].mappings ?? []).toHaveLength(field.mappings.length);
              expect(got.fields[field.name].thresholds ?? []).toHaveLength(field.thresholds.length);
            }
          }

          // YAML: the same document. It is read later, so its `at` may be the next second.
          const yaml = await exportedYaml(first);
          const yamlDocument = parseYaml(yaml) as Record<string, unknown>;
          expect(yamlDocument).toEqual({ ...original, at: expect.any(String) });
          expect(Date.parse(yamlDocument.at as string) - Date.parse(original.at)).toBeGreaterThanOrEqual(0);

          // Each export applied to an empty database, then exported again.
          await applied(fromJson, original);
          await applied(fromYaml, yaml, {}, 'application/yaml');
          expect(content(await exported(fromJson))).toEqual(content(original));
          expect(content(await exported(fromYaml))).toEqual(content(original));

          // An unchanged export: no change, the revision stays.
          for (const app of [first, fromJson]) {
            const before = await exported(app);
            const again = await applied(app, before);
            expect(again).toMatchObject({ revision: before.revision, dry_run: false, counts: NO_CHANGES, changes: [] });
            expect(await exported(app)).toEqual({ ...before, at: expect.any(String) });
          }
          const yamlAgain = await applied(fromYaml, await exportedYaml(fromYaml), {}, 'application/yaml');
          expect(yamlAgain.counts).toEqual(NO_CHANGES);
          expect((await exported(fromYaml)).revision).toBe(yamlAgain.revision);
        }),
      ),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});
