/**
 * A rating module's part of the price list (docs/price-list.md): the document members it owns,
 * how it exports them, reads them, and plans and writes the changes an apply makes. The price
 * list (`rating/price-list/`) gathers the registered modules' sections; module states are its
 * own. A module without a section keeps no rules in the document (`noop`).
 */
import type { TSchema } from 'typebox';
import type { Transaction } from '../../database/transaction.js';
import type { StoredDateTimes } from '../../database/stored-datetimes.js';
import type { Audit } from '../common/rule-storage.js';

/** A place in a document: member names and array indexes from the root (`['services', 'compute', 'mappings', 3, 'cost']`). */
export type DocumentPath = readonly (string | number)[];

/** What a section reads a parsed document with. */
export interface DocumentReader {
  /** Records a problem at `path` (the document is then refused with every problem listed). */
  problem: (path: DocumentPath, message: string) => void;
  /**
   * The source text of the number at `path` (`0.10`, `1e3`), for values that must stay exact
   * (costs, levels, mapping values); undefined when no number is there.
   */
  numberText: (path: DocumentPath) => string | undefined;
  /** The database's stored-datetime conversion: a rule's dates must be storable (`readRuleDate`). */
  times: StoredDateTimes;
}

/** What a change does, in the diff an apply answers (docs/price-list.md §2). */
export type PriceListAction = 'added' | 'replaced' | 'ended' | 'deleted' | 'updated' | 'created';

/** One change of an apply: a rule added, replaced, ended or deleted, a state updated, a parent created. */
export interface PriceListChange {
  action: PriceListAction;
  /** `mapping`, `threshold`, `script`, `module`, `service`, `field`, `group`. */
  resource: string;
  /** Where the rule is, in the document's terms: `services[compute].fields[flavor].mappings[value=m1.large]`. */
  path: string;
  /** The stored rule, in the API's attribute names (api.md §3) plus parent and group names. */
  before?: Record<string, unknown>;
  /** The rule as it will be stored, in the same terms. */
  after?: Record<string, unknown>;
}

/** When an apply takes effect. */
export interface PlanContext {
  /** When changed versioned rules switch: the old one ends, the new one starts (whole seconds). */
  effectiveAt: Date;
  /** The request time (whole seconds). */
  now: Date;
  /** The database's stored-datetime conversion. */
  times: StoredDateTimes;
  /** Reports a document fault that only the stored rules show (a name another rule uses at the same time). */
  problem: (path: DocumentPath, message: string) => void;
}

/** A section's changes, planned in a transaction and written in the same one. */
export interface SectionPlan {
  /** Every change, in document order. */
  readonly changes: readonly PriceListChange[];
  /**
   * The id of the object each change touches, for the audit trail (api.md §9): the stored rule's,
   * or the one a new rule or parent will be inserted with (a replaced rule: the new version's).
   * Absent, or a change not in it: the change's path stands for the id.
   */
  readonly objectIds?: ReadonlyMap<PriceListChange, string>;
  /**
   * Paths of changes to rules that are not versioned (thresholds): they take effect when
   * written, whatever `effectiveAt` says.
   */
  readonly unversioned: readonly string[];
  /** Writes the changes; a few statements per kind of change, never one per rule. */
  write(transaction: Transaction, audit: Audit): Promise<void>;
}

/**
 * A module's part of the price list. `Section` is the module's members once read and checked.
 */
export interface PriceListSection<Section = unknown> {
  /** The top-level document members the module owns, in document order, each with its JSON Schema. */
  readonly members: Readonly<Record<string, TSchema>>;
  /**
   * The module's members at `at`: every rule in force then and every rule scheduled after, in a
   * deterministic order (by names and values), defaults left out.
   */
  exportSection(db: Transaction, at: Date, times: StoredDateTimes): Promise<Record<string, unknown>>;
  /**
   * Checks what the schema cannot (decimals, dates, duplicates, references, script sources) and
   * reports every fault through `reader`; the members passed the schema already.
   *
   * @returns the section; meaningless when a problem was reported.
   */
  readSection(members: Readonly<Record<string, unknown>>, reader: DocumentReader): Promise<Section>;
  /**
   * Plans the changes that make the stored rules what `section` says from `context.effectiveAt`
   * on (docs/price-list.md §3), reading the stored rules in `transaction`.
   * Faults only the stored rules show go to `context.problem`.
   */
  planSection(transaction: Transaction, section: Section, context: PlanContext): Promise<SectionPlan>;
}
