/**
 * The plan printer (src/client/plan.ts) on fixture diffs shaped as the server answers them
 * (docs/price-list.md §2): one line per change with its symbol, path and attributes, then the counts.
 */
import { describe, expect, it } from 'vitest';
import { parseDiff, type PriceListDiff } from '../../src/client/diff.js';
import { formatApplied, formatPlan, formatValue } from '../../src/client/plan.js';

const E = '2026-11-25T00:00:00+00:00';
const FLAVOR = 'services[instance].fields[flavor_name]';

function diff(changes: PriceListDiff['changes'], revision = 7): PriceListDiff {
  const counts = { added: 0, replaced: 0, ended: 0, deleted: 0, updated: 0, created: 0 };
  for (const change of changes) counts[change.action] += 1;
  return { revision, dry_run: true, effective_at: E, counts, changes };
}

const mapping = (extra: Record<string, unknown>) => ({
  service: 'instance',
  field: 'flavor_name',
  value: 'm1.large',
  type: 'flat',
  cost: '0.05',
  tenant_id: null,
  group: null,
  name: 'm1-large',
  description: null,
  start: '2026-01-01T00:00:00+00:00',
  end: null,
  ...extra,
});

describe('the plan printer', () => {
  it('prints a replaced mapping as ~ with the changed attribute before → after, not its new start', () => {
    const replaced = {
      action: 'replaced' as const,
      resource: 'mapping',
      path: `${FLAVOR}.mappings[value=m1.large]`,
      before: mapping({ mapping_id: '1b0c…' }),
      after: mapping({ cost: '0.06', start: E }),
    };
    expect(formatPlan(diff([replaced]))).toEqual([
      `~ ${FLAVOR}.mappings[value=m1.large]  cost 0.05 → 0.06`,
      '',
      `Plan: 0 to add, 1 to replace, 0 to end, 0 to delete, 0 to update, 0 to create (effective ${E}, against revision 7).`,
    ]);
  });

  it('prints every action with its symbol: + added and created, - ended and deleted, ~ updated', () => {
    const lines = formatPlan(
      diff([
        {
          action: 'updated',
          resource: 'module',
          path: 'modules[hashmap]',
          before: { module_id: 'hashmap', enabled: false, priority: 1 },
          after: { module_id: 'hashmap', enabled: true, priority: 1 },
        },
        { action: 'created', resource: 'group', path: 'groups[discounts]', after: { name: 'discounts' } },
        {
          action: 'added',
          resource: 'mapping',
          path: `${FLAVOR}.mappings[value=m1.tiny]`,
          after: mapping({ value: 'm1.tiny', cost: '0.01', name: null, start: E }),
        },
        { action: 'ended', resource: 'mapping', path: `${FLAVOR}.mappings[value=m1.small]`, before: mapping({ value: 'm1.small', mapping_id: 'x' }) },
        {
          action: 'deleted',
          resource: 'mapping',
          path: `${FLAVOR}.mappings[value=m1.xl,start=2027-01-01T00:00:00Z]`,
          before: mapping({ value: 'm1.xl', cost: '0.2', start: '2027-01-01T00:00:00+00:00' }),
        },
        {
          action: 'updated',
          resource: 'threshold',
          path: 'services[volume.size].thresholds[level=200]',
          before: { threshold_id: 't', level: '200', type: 'rate', cost: '0.95', tenant_id: null, group: 'discounts' },
          after: { threshold_id: 't', level: '200', type: 'rate', cost: '0.9', tenant_id: null, group: null },
        },
      ]),
    );
    expect(lines).toEqual([
      '~ modules[hashmap]  enabled false → true',
      '+ groups[discounts]  (new group)',
      `+ ${FLAVOR}.mappings[value=m1.tiny]  type flat, cost 0.01, start ${E}`,
      `- ${FLAVOR}.mappings[value=m1.small]  ends at ${E} (was type flat, cost 0.05)`,
      `- ${FLAVOR}.mappings[value=m1.xl,start=2027-01-01T00:00:00Z]  deleted before it starts (was type flat, cost 0.2, start 2027-01-01T00:00:00+00:00)`,
      '~ services[volume.size].thresholds[level=200]  cost 0.95 → 0.9, group discounts → null',
      '',
      `Plan: 1 to add, 0 to replace, 1 to end, 1 to delete, 2 to update, 1 to create (effective ${E}, against revision 7).`,
    ]);
  });

  it("summarizes a script's source and quotes text with spaces", () => {
    const before = { script_id: 's', name: 'discount', data: 'rate = 1\nprint(rate)\n', description: 'old one', start: '2026-01-01T00:00:00+00:00', end: null };
    const after = { ...before, data: 'rate = 2\nprint(rate)\n', description: 'new one' };
    const [line] = formatPlan(diff([{ action: 'replaced', resource: 'script', path: 'scripts[discount]', before, after }]));
    expect(line).toBe(
      '~ scripts[discount]  data "rate = 1\\nprint(rate)\\n…" (2 lines, 21 characters) → "rate = 2\\nprint(rate)\\n…" (2 lines, 21 characters), description "old one" → "new one"',
    );
  });

  it('formats values: null, numbers, booleans, plain and quoted text', () => {
    expect([null, 1, true, 'm1.large', 'two words', ''].map(formatValue)).toEqual(['null', '1', 'true', 'm1.large', '"two words"', '""']);
  });

  it('says so when nothing changes', () => {
    expect(formatPlan(diff([], 3))).toEqual([`No changes: the price list matches the configuration in force at ${E} (revision 3).`]);
    expect(formatApplied({ ...diff([], 3), dry_run: false })).toBe('Nothing changed: the price list already matched (revision 3).');
  });

  it("prints an apply's result with the new revision", () => {
    const applied = { ...diff([{ action: 'created', resource: 'service', path: 'services[gpu]', after: { name: 'gpu' } }], 8), dry_run: false };
    expect(formatApplied(applied)).toBe(
      `Applied: 0 added, 0 replaced, 0 ended, 0 deleted, 0 updated, 1 created, effective ${E}; the configuration is now at revision 8.`,
    );
  });

  it('reads a diff answer, refusing what is not one', () => {
    const parsed = parseDiff(JSON.stringify({ revision: 1, dry_run: true, effective_at: E, counts: { added: 2 }, changes: [] }));
    expect(parsed.counts).toEqual({ added: 2, replaced: 0, ended: 0, deleted: 0, updated: 0, created: 0 });
    expect(() => parseDiff('<html>')).toThrow("The server's answer is not JSON");
    expect(() => parseDiff('{"faultstring":"x"}')).toThrow('not a price-list diff');
  });
});
