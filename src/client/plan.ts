/**
 * A diff printed as a plan, one line per change, in the manner of `terraform plan`:
 * `+` added or created, `-` ended or deleted, `~` replaced or updated, then the path and the
 * attributes (changed ones as `before → after`), and a summary line with the counts.
 */
import { CHANGE_ACTIONS, changeCount, type Attributes, type ChangeAction, type PriceListChange, type PriceListDiff } from './diff.js';

const SYMBOLS: Record<ChangeAction, string> = { added: '+', created: '+', ended: '-', deleted: '-', replaced: '~', updated: '~' };

/** How the summary names each action: "1 to add", "1 added". */
const VERBS: Record<ChangeAction, { planned: string; done: string }> = {
  added: { planned: 'add', done: 'added' },
  replaced: { planned: 'replace', done: 'replaced' },
  ended: { planned: 'end', done: 'ended' },
  deleted: { planned: 'delete', done: 'deleted' },
  updated: { planned: 'update', done: 'updated' },
  created: { planned: 'create', done: 'created' },
};

/** Longest text value shown whole; longer ones (a script's source) are summarized. */
const LONGEST_SHOWN = 60;

/** Attributes the path already names: a rule's service and field, a mapping's `value`, a threshold's `level`. */
const NAMED_BY_PATH = new Set(['service', 'field', 'value', 'level']);

/** Whether the plan shows an attribute: not one the path names, nor a row id no one reviews (`mapping_id`; `tenant_id` is shown). */
function isShown(name: string): boolean {
  if (NAMED_BY_PATH.has(name)) return false;
  return !name.endsWith('_id') || name === 'tenant_id';
}

/** One attribute value as the plan shows it: plain when short and simple, else quoted or summarized. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'string') return typeof value === 'object' ? JSON.stringify(value) : String(value);
  const lines = value.replace(/\n$/, '').split('\n').length;
  if (lines > 1 || value.length > LONGEST_SHOWN) {
    const head = JSON.stringify(value.slice(0, 30)).slice(0, -1);
    return `${head}…" (${lines} line${lines === 1 ? '' : 's'}, ${value.length} characters)`;
  }
  return /^[\w.:+@/-]+$/.test(value) ? value : JSON.stringify(value);
}

/** The attributes set (not null) and shown: `type flat, cost 0.05`. */
function describeAttributes(attributes: Attributes | undefined): string {
  return Object.entries(attributes ?? {})
    .filter(([name, value]) => value !== null && value !== undefined && isShown(name))
    .map(([name, value]) => `${name} ${formatValue(value)}`)
    .join(', ');
}

/** What an ended or deleted rule was, briefly: its price, its tenant and group, and (deleted) when it was to start. */
function describeRemoved(attributes: Attributes | undefined, names: readonly string[]): string {
  return describeAttributes(Object.fromEntries(Object.entries(attributes ?? {}).filter(([name]) => names.includes(name))));
}

/** The attributes that differ: `cost 0.05 → 0.06`. A replaced rule's `start` is the effective time, not a change of its own. */
function describeDifferences(change: PriceListChange): string {
  const before = change.before ?? {};
  const after = change.after ?? {};
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return names
    .filter((name) => isShown(name) && !(change.action === 'replaced' && name === 'start'))
    .filter((name) => JSON.stringify(before[name] ?? null) !== JSON.stringify(after[name] ?? null))
    .map((name) => `${name} ${formatValue(before[name])} → ${formatValue(after[name])}`)
    .join(', ');
}

/** What a change's line says after its path. */
function describeChange(change: PriceListChange, effectiveAt: string): string {
  switch (change.action) {
    case 'added':
      return describeAttributes(change.after);
    case 'created':
      return `(new ${change.resource})`;
    case 'replaced':
    case 'updated':
      return describeDifferences(change);
    case 'ended': {
      const end = change.after?.end ?? effectiveAt;
      const was = describeRemoved(change.before, ['type', 'cost', 'tenant_id', 'group']);
      return `ends at ${formatValue(end)}${was ? ` (was ${was})` : ''}`;
    }
    case 'deleted': {
      const was = describeRemoved(change.before, ['type', 'cost', 'tenant_id', 'group', 'start']);
      return `deleted before it starts${was ? ` (was ${was})` : ''}`;
    }
  }
}

/** One line of the plan: `~ services[instance].mappings[…]  cost 0.05 → 0.06`. */
export function formatChange(change: PriceListChange, effectiveAt: string): string {
  const description = describeChange(change, effectiveAt);
  return `${SYMBOLS[change.action] ?? '?'} ${change.path}${description ? `  ${description}` : ''}`;
}

/** `1 to add, 0 to replace, …` (planned) or `1 added, 0 replaced, …` (done). */
function formatCounts(diff: PriceListDiff, tense: 'planned' | 'done'): string {
  return CHANGE_ACTIONS.map((action) =>
    tense === 'planned' ? `${diff.counts[action]} to ${VERBS[action].planned}` : `${diff.counts[action]} ${VERBS[action].done}`,
  ).join(', ');
}

/**
 * A dry run's plan: a line per change, then `Plan: 1 to add, … (effective …, revision N).`, or one
 * line saying the document matches the configuration.
 */
export function formatPlan(diff: PriceListDiff): string[] {
  if (changeCount(diff) === 0) {
    return [`No changes: the price list matches the configuration in force at ${diff.effective_at} (revision ${diff.revision}).`];
  }
  return [
    ...diff.changes.map((change) => formatChange(change, diff.effective_at)),
    '',
    `Plan: ${formatCounts(diff, 'planned')} (effective ${diff.effective_at}, against revision ${diff.revision}).`,
  ];
}

/** An apply's result: `Applied: 1 added, … effective …; the configuration is now at revision N.` */
export function formatApplied(diff: PriceListDiff): string {
  if (changeCount(diff) === 0) return `Nothing changed: the price list already matched (revision ${diff.revision}).`;
  return `Applied: ${formatCounts(diff, 'done')}, effective ${diff.effective_at}; the configuration is now at revision ${diff.revision}.`;
}
