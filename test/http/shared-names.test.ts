/**
 * A rule's name is shared by its versions (api.md §6), as a property on every database: for a
 * random sequence of validity intervals under one name, a mapping or script is created (201)
 * exactly when its interval intersects none already created under that name (the model:
 * `intervalsOverlap`), else 409 naming one it intersects; at the end the live rules with the name
 * are the accepted ones. fast-check, fixed seed, bounded runs.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H, P, startTestApp, type TestApp } from '../helpers/app.js';
import { createService } from '../helpers/fixtures.js';
import { intervalsOverlap, type Validity } from '../../src/rating/common/versioning.js';

const SEED = 2099;
const DAY = 86_400_000;
const ORIGIN = Date.parse('2099-01-01T00:00:00Z');

/** An interval in whole days after 2099-01-01, possibly open. */
const interval = fc.record({ startDay: fc.integer({ min: 0, max: 30 }), days: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }) });
type Interval = { startDay: number; days: number | null };

const toValidity = ({ startDay, days }: Interval): Validity => ({
  start: new Date(ORIGIN + startDay * DAY),
  end: days === null ? null : new Date(ORIGIN + (startDay + days) * DAY),
});
const apiText = (date: Date | null) => (date === null ? null : date.toISOString().replace('.000Z', '+00:00'));

let t: TestApp;
let runs = 0;
let services = 0;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/**
 * Runs the property for one kind of rule: `create` posts a rule named `name` with the interval
 * and answers the response; `idOf` reads the new rule's id; `clash(name, id)` is the 409 message.
 */
async function holdsFor(rules: {
  create: (name: string, run: number, validity: Validity) => Promise<{ status: number; body: any; text: string }>;
  idOf: (body: any) => string;
  clash: (name: string, id: string) => string;
  liveIdsNamed: (name: string) => Promise<string[]>;
}): Promise<void> {
  const seen = { created: 0, refused: 0 };
  await fc.assert(
    fc.asyncProperty(fc.array(interval, { minLength: 1, maxLength: 6 }), async (intervals) => {
      const run = ++runs;
      const name = `shared-${run}`;
      const accepted: (Validity & { id: string })[] = [];
      for (const candidate of intervals.map(toValidity)) {
        const response = await rules.create(name, run, candidate);
        const intersecting = accepted.filter((other) => intervalsOverlap(candidate, other));
        if (intersecting.length === 0) {
          expect(response.status, response.text).toBe(201);
          expect(response.body).toMatchObject({ name, start: apiText(candidate.start), end: apiText(candidate.end) });
          accepted.push({ ...candidate, id: rules.idOf(response.body) });
          seen.created++;
        } else {
          expect(response.status, response.text).toBe(409);
          expect(intersecting.map((other) => rules.clash(name, other.id))).toContain(response.body.faultstring);
          seen.refused++;
        }
      }
      expect((await rules.liveIdsNamed(name)).sort()).toEqual(accepted.map((rule) => rule.id).sort());
    }),
    { seed: SEED, numRuns: 25 },
  );
  // The generated sequences exercise both outcomes.
  expect(seen.created).toBeGreaterThan(25);
  expect(seen.refused).toBeGreaterThan(0);
}

describe('a name shared by versions whose intervals do not intersect', () => {
  it('mappings, each on its own service (the name alone decides)', async () => {
    await holdsFor({
      create: async (name, run, validity) =>
        t.post(`${H}/mappings/`, {
          service_id: await createService(t, `shared-${run}-${++services}`),
          cost: 1,
          name,
          start: apiText(validity.start),
          end: apiText(validity.end),
        }),
      idOf: (body) => body.mapping_id,
      clash: (name, id) => `Mapping name '${name}' is already used by mapping ${id}`,
      liveIdsNamed: async (name) =>
        (await t.get(`${H}/mappings/?all=true`)).body.mappings.filter((mapping: any) => mapping.name === name).map((mapping: any) => mapping.mapping_id),
    });
  });

  it('scripts', async () => {
    await holdsFor({
      create: (name, _run, validity) => t.post(`${P}/scripts/`, { name, data: '', start: apiText(validity.start), end: apiText(validity.end) }),
      idOf: (body) => body.script_id,
      clash: (name, id) => `Script ${name} already exists (UUID: ${id})`,
      liveIdsNamed: async (name) =>
        (await t.get(`${P}/scripts/?no_data=true`)).body.scripts.filter((script: any) => script.name === name).map((script: any) => script.script_id),
    });
  });
});
