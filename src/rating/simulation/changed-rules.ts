/**
 * Which rules change a point's price in a simulation (docs/price-list.md §4 `rules`): the
 * contributions of the two sides' `explain`, by the names people know the rules by
 * (`RatingModule.ruleName`).
 */
import type { ExplainEntry } from '../contract/dataframe.js';
import type { RatingSnapshot } from '../quote/snapshot.js';

/** A priced point's explain entries by the name of their rule, with what they gave. */
function contributions(snapshot: RatingSnapshot, explain: readonly ExplainEntry[] | undefined): Map<string, string> {
  const named = new Map<string, string>();
  for (const entry of explain ?? []) {
    const loaded = snapshot.ratingOrder.find((step) => step.module.name === entry.module);
    const name = loaded?.module.ruleName?.(loaded.rules, entry) ?? '?';
    const { rule_id: _ruleId, ...given } = entry as ExplainEntry & { rule_id?: unknown };
    const key = `${entry.module}\u0000${name}`;
    named.set(key, (named.get(key) ?? '') + JSON.stringify(given));
  }
  return named;
}

/** The rules (`module \0 name`) whose contributions to a point differ between its current and draft explain. */
export function changedRules(current: RatingSnapshot, draft: RatingSnapshot, currentExplain?: ExplainEntry[], draftExplain?: ExplainEntry[]): string[] {
  const before = contributions(current, currentExplain);
  const after = contributions(draft, draftExplain);
  const names = new Set<string>();
  for (const [name, given] of before) if (after.get(name) !== given) names.add(name);
  for (const [name, given] of after) if (before.get(name) !== given) names.add(name);
  return [...names];
}
