/**
 * `planVersions` (common/versioned-plan.ts), as a property: whatever the stored versions of a
 * rule and the document's, once the steps are carried out the rule's versions from the effective
 * time on are exactly the document's, and nothing before that time changes (history is kept).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planVersions } from '../../src/rating/common/versioned-plan.js';

const HOUR = 3_600_000;
const AT = Date.UTC(2027, 0, 10);

interface Version {
  start: Date | null;
  end: Date | null;
  cost: number;
}

/** Versions that do not overlap: sorted cut points, each interval with a cost; some left out. */
function versions(startless: boolean) {
  return fc
    .record({
      cuts: fc.uniqueArray(fc.integer({ min: -48, max: 48 }), { minLength: 1, maxLength: 7 }),
      costs: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 7, maxLength: 7 }),
      kept: fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
      openEnd: fc.boolean(),
    })
    .map(({ cuts, costs, kept, openEnd }) => {
      const sorted = [...cuts].sort((a, b) => a - b);
      const result: Version[] = [];
      for (let index = 0; index < sorted.length; index += 1) {
        const last = index === sorted.length - 1;
        if (last && !openEnd) break;
        if (!kept[index]) continue;
        const start = new Date(AT + sorted[index] * HOUR);
        const end = last ? null : new Date(AT + sorted[index + 1] * HOUR);
        result.push({ start: startless && start.getTime() <= AT ? null : start, end, cost: costs[index] });
      }
      return result;
    });
}

/** The cost in force at each hour from `from` on (0: none). */
function timeline(rules: readonly { start: Date | null; end: Date | null; cost: number }[], from: number, to: number): number[] {
  const costs: number[] = [];
  for (let hour = from; hour < to; hour += 1) {
    const time = AT + hour * HOUR;
    const rule = rules.find((candidate) => (candidate.start?.getTime() ?? -Infinity) <= time && (candidate.end === null || candidate.end.getTime() > time));
    costs.push(rule?.cost ?? 0);
  }
  return costs;
}

describe('planVersions', () => {
  it('leaves the document’s versions from the effective time on, and the past unchanged', () => {
    fc.assert(
      fc.property(versions(false), versions(true), (storedAll, wanted) => {
        const stored = storedAll.map((rule, index) => ({ ...rule, start: rule.start ?? new Date(0), id: index }));
        // The planner sees live versions with end null or after the effective time.
        const live = stored.filter((rule) => rule.end === null || rule.end.getTime() > AT);
        const result = new Map(stored.map((rule) => [rule.id, { ...rule }]));
        const added: Version[] = [];
        planVersions(wanted, live, new Date(AT), {
          same: (old, next) => old.cost === next.cost,
          keep: (old, next) => {
            (result.get(old.id) as Version).end = next.end;
          },
          add: (next, start, old) => {
            added.push({ ...next, start });
            if (old && old.start.getTime() < start.getTime()) (result.get(old.id) as Version).end = start;
            else if (old) result.delete(old.id);
          },
          end: (old) => {
            (result.get(old.id) as Version).end = new Date(AT);
          },
          remove: (old) => {
            result.delete(old.id);
          },
        });
        const after = [...result.values(), ...added];
        expect(timeline(after, 0, 60)).toEqual(timeline(wanted, 0, 60));
        expect(timeline(after, -60, 0)).toEqual(timeline(stored, -60, 0));
      }),
      { numRuns: 2000 },
    );
  });
});
