/**
 * The calculator's quote (docs/rating.md §3): the usage the form describes as a v2 quote body
 * (one point of one service, its field values in the point's `metadata`, read by the hashmap as
 * the point's desc), and the answer's `explain` entries as rows, naming each rule when the
 * configuration could be read (the answer itself gives only the rule's id).
 */
import type { ExplainEntry, QuoteAnswer, QuoteRequest } from '../../api/quote.js';
import { plainDecimal } from '../../decimal-text.js';
import { hasGeneratedName, type Catalog, type Mapping, type Threshold } from '../../catalog.js';

/** What the calculator's form describes. */
export interface UsageForm {
  /** The service's name (the dataframe's key, CloudKitty's metric alt_name). */
  service: string;
  /** Field values by field name; empty ones are left out (the field is then absent from the desc). */
  fieldValues: Record<string, string>;
  /** The quantity used in the collection period, decimal text as typed (the server checks it). */
  quantity: string;
  /** The quantity's unit; left out when empty. */
  unit: string;
  /** The tenant whose own rules apply too; none when empty (global rules only). */
  tenant: string;
  /** The rating time, ISO text; undefined: now. */
  at: string | undefined;
}

/**
 * The quote body for the form, with `explain`: field values as strings, so that a mapping's value
 * matches as typed and numeric text still reaches field thresholds (rating.md §5).
 */
export function quoteBody(form: UsageForm): QuoteRequest {
  const metadata: Record<string, string> = {};
  for (const [field, value] of Object.entries(form.fieldValues)) if (value !== '') metadata[field] = value;
  const vol = form.unit === '' ? { qty: form.quantity.trim() } : { unit: form.unit, qty: form.quantity.trim() };
  return {
    usage: { [form.service]: [{ vol, metadata }] },
    ...(form.tenant === '' ? {} : { tenant_id: form.tenant }),
    ...(form.at === undefined ? {} : { at: form.at }),
    explain: true,
  };
}

/** One row of the calculator's explanation: a rule by its name, never its id. */
export interface ContributionRow {
  module: string;
  /** The group's name, `—` for none. */
  group: string;
  kind: string;
  /**
   * The rule as people know it: a mapping's name and value, a threshold's level; absent when the
   * rows were made without the configuration (the quote-only calculator).
   */
  rule?: string;
  type: string;
  cost: string;
  /** What the rule's group added to the price (every rule of a group shows the same amount). */
  amount: string;
}

/** The hashmap's group of rules without a group. */
const DEFAULT_GROUP = '_DEFAULT_';

function tenantSuffix(tenantId: string | null): string {
  return tenantId === null ? '' : ` (tenant ${tenantId})`;
}

function mappingLabel(catalog: Catalog, mapping: Mapping): string {
  const field = mapping.field_id === null ? undefined : catalog.fieldById.get(mapping.field_id);
  const match = field === undefined ? 'every point' : `${field.name} = ${mapping.value ?? ''}`;
  // A generated name says nothing: the match alone names the mapping (issue 26).
  return `${hasGeneratedName(mapping) ? '' : `${mapping.name}: `}${match}${tenantSuffix(mapping.tenant_id)}`;
}

function thresholdLabel(catalog: Catalog, threshold: Threshold): string {
  const field = threshold.field_id === null ? undefined : catalog.fieldById.get(threshold.field_id);
  const level = threshold.level === null ? '' : plainDecimal(threshold.level);
  return `${field === undefined ? 'quantity' : field.name} ≥ ${level}${tenantSuffix(threshold.tenant_id)}`;
}

/** A rule's name from `catalog`, for an `explain` entry's rule id. */
function ruleNamer(catalog: Catalog): (ruleId: string | undefined) => string {
  const mappings = new Map(catalog.mappings.map((mapping) => [mapping.mapping_id, mapping]));
  const thresholds = new Map(catalog.thresholds.map((threshold) => [threshold.threshold_id, threshold]));
  return (ruleId) => {
    if (ruleId === undefined) return '—';
    const mapping = mappings.get(ruleId);
    if (mapping !== undefined) return mappingLabel(catalog, mapping);
    const threshold = thresholds.get(ruleId);
    if (threshold !== undefined) return thresholdLabel(catalog, threshold);
    return 'a rule since deleted';
  };
}

/**
 * The rows of every `explain` entry of the answer's points, in order: rules named from `catalog`,
 * or, without one (a user who may not read the configuration), what the answer itself gives —
 * module, group, kind, type, cost and amount — and no rule (its id is not shown).
 */
export function contributionRows(answer: QuoteAnswer, catalog: Catalog | undefined): ContributionRow[] {
  const nameRule = catalog === undefined ? undefined : ruleNamer(catalog);
  return Object.values(answer.usage)
    .flat()
    .flatMap((point) => point.explain ?? [])
    .map((entry) => (entry.script === undefined ? ruleRow(entry, nameRule) : scriptRow(entry, nameRule !== undefined)));
}

/** A hashmap rule's row (or another module's entry without a script). */
function ruleRow(entry: ExplainEntry, nameRule: ((ruleId: string | undefined) => string) | undefined): ContributionRow {
  return {
    module: entry.module,
    group: entry.group === undefined || entry.group === DEFAULT_GROUP ? '—' : entry.group,
    kind: entry.kind ?? '—',
    ...(nameRule === undefined ? {} : { rule: nameRule(entry.rule_id) }),
    type: entry.type ?? '—',
    cost: entry.cost === undefined ? '—' : plainDecimal(entry.cost),
    amount: entry.amount === undefined ? '—' : plainDecimal(entry.amount),
  };
}

/**
 * A script's row: its name and the price before → after (named only where the configuration may be
 * read, as rules are), and what it added as the amount (issue 26: the total included a script's
 * discount that the explanation left out).
 */
function scriptRow(entry: ExplainEntry, named: boolean): ContributionRow {
  const before = entry.price_before === undefined ? '—' : plainDecimal(entry.price_before);
  const after = entry.price_after === undefined ? '—' : plainDecimal(entry.price_after);
  return {
    module: entry.module,
    group: '—',
    kind: 'script',
    ...(named ? { rule: `${entry.script ?? ''}: price ${before} → ${after}` } : {}),
    type: '—',
    cost: '—',
    amount: entry.delta === undefined ? '—' : plainDecimal(entry.delta),
  };
}
