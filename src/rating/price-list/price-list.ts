/**
 * The price list (docs/price-list.md): the whole rating configuration as one document. Export
 * reads one consistent state; apply reads the document (every problem at once), plans each
 * module's section against the stored rules and writes it all in one configuration write
 * transaction, under the configuration lock, or writes nothing.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database } from '../../database/connection.js';
import { inReadSnapshot, inWriteTransaction, readRevision, type Transaction } from '../../database/transaction.js';
import { ChangeJournal, type ChangeAction, type RuleChange } from '../../database/change-journal.js';
import { BadRequestError, ConflictError } from '../../kernel/errors.js';
import { formatApiDateTime, formatMessageDateTime } from '../common/datetime.js';
import type { Audit } from '../common/rule-storage.js';
import type { ModuleSet } from '../contract/module-set.js';
import type { DocumentPath, PlanContext, PriceListAction, PriceListChange, PriceListSection, SectionPlan } from '../contract/price-list-section.js';
import type { RatingModule } from '../contract/rating-module.js';
import { ModuleStateRepository } from '../module-states/repository.js';
import { withNumberTexts, type DocumentFormat, type DocumentTextLimits } from './document-text.js';
import { planModuleStates, type ModuleStatesPlan } from './module-states.js';
import { InvalidPriceListError, PriceListProblems } from './problems.js';
import { DocumentReading } from './reading.js';
import { PriceListSchema } from './schema.js';

/** What an apply is asked to do. */
export interface ApplyOptions {
  /** Plan only: nothing is written. */
  dryRun: boolean;
  /** When changed rules switch (default: the request time). */
  effectiveAt?: Date;
  /** Refuse (409) unless the revision is still this one. */
  ifRevision?: number;
  /** Apply threshold and module state changes now even though `effectiveAt` is later. */
  unversionedNow: boolean;
  /** Called in the write transaction, under the lock, before the first write (the server logs it). */
  onWriting?: (counts: PriceListDiff['counts']) => void;
}

/** The answer of an apply, dry run or not (docs/price-list.md §2). */
export interface PriceListDiff {
  /** The revision after the apply; for a dry run, the current one. */
  revision: number;
  dry_run: boolean;
  effective_at: string;
  counts: Record<PriceListChange['action'], number>;
  changes: PriceListChange[];
}

/** The limits of reading a document. */
export interface PriceListLimits extends DocumentTextLimits {
  /** Problems listed in a refusal (`TARIFF_PRICE_LIST_MAX_PROBLEMS`). */
  maxProblems: number;
  /** Documents read at once per process (`TARIFF_PRICE_LIST_READS`); past it, 503. */
  reads: number;
  /** Least milliseconds between two collections after bulk work (`TARIFF_BULK_COLLECTION_INTERVAL`; routes.ts). */
  bulkCollectionIntervalMs: number;
}

interface ModuleWithSection {
  module: RatingModule;
  section: PriceListSection;
}

/** A document read and checked: each module's section, and the module states it sets. */
interface ReadDocument {
  sections: { entry: ModuleWithSection; section: unknown }[];
  modules: Record<string, { enabled?: boolean; priority?: number }>;
}

/** A document's values as the worker read them (the schema's faults left out), with its number texts and text. */
interface ReadText {
  readonly value: unknown;
  numberText: (path: DocumentPath) => string | undefined;
  readonly text: string;
}

/** Thrown inside an apply's transaction that changes nothing, to roll back the revision's increment. */
class NothingToApply extends Error {
  constructor(readonly diff: PriceListDiff) {
    super('nothing to apply');
  }
}

/** Thrown at the end of a draft's transaction with what was read: it rolls the draft back. */
class DraftRead extends Error {
  constructor(readonly read: unknown) {
    super('draft read');
  }
}

/** The audit trail's word for each action of the diff. */
const AUDITED_ACTIONS: Record<PriceListAction, ChangeAction> = {
  added: 'create',
  created: 'create',
  replaced: 'replace',
  ended: 'end',
  deleted: 'delete',
  updated: 'update',
};

/** A plan's changes with the ids of the objects they touch (module states: the module's name). */
interface AuditedPlan {
  sections: readonly SectionPlan[];
  states: ModuleStatesPlan;
}

/**
 * The audit trail's entry for each change of `plan` (api.md §9), in the diff's order: the diff's
 * resource, action, path (as `name`), before and after; `after` of a new object carries its id.
 */
function* ruleChanges(plan: AuditedPlan): Generator<RuleChange> {
  const audited = (change: PriceListChange, objectId: string): RuleChange => ({
    kind: change.resource,
    objectId,
    action: AUDITED_ACTIONS[change.action],
    name: change.path,
    before: change.before ?? null,
    after: change.after === undefined ? null : { [`${change.resource}_id`]: objectId, ...change.after },
  });
  for (const change of plan.states.changes) yield audited(change, String(change.before?.module_id ?? change.path));
  for (const section of plan.sections) {
    for (const change of section.changes) yield audited(change, section.objectIds?.get(change) ?? change.path);
  }
}

function countChanges(changes: readonly PriceListChange[]): PriceListDiff['counts'] {
  const counts = { added: 0, replaced: 0, ended: 0, deleted: 0, updated: 0, created: 0 };
  for (const change of changes) counts[change.action] += 1;
  return counts;
}

/** Exports and applies price lists for the registered modules. */
export class PriceList {
  /** The document's JSON Schema, compiled. */
  readonly schema: PriceListSchema;
  private readonly sections: ModuleWithSection[];
  private readonly states: ModuleStateRepository;
  private readonly reading: DocumentReading;

  constructor(
    private readonly database: Database,
    private readonly modules: ModuleSet,
    /** The limits of reading documents, and of the work after them. */
    readonly limits: PriceListLimits,
  ) {
    this.schema = new PriceListSchema(modules);
    this.sections = modules.all.flatMap((module) => (module.priceList ? [{ module, section: module.priceList }] : []));
    this.states = new ModuleStateRepository(database, modules);
    this.reading = new DocumentReading(limits.reads);
  }

  /**
   * The document at `at`: revision, module states, each module's section, from one consistent read.
   *
   * @throws BadRequestError (400) naming `at` when it is outside the stored years in CloudKitty's zone.
   */
  export(at: Date): Promise<Record<string, unknown>> {
    this.database.storedDateTimes.checkStorable(at, 'at');
    return inReadSnapshot(this.database, async (db) => {
      const revision = await readRevision(db);
      const states = await this.states.listIn(db);
      const document: Record<string, unknown> = {
        revision,
        at: formatApiDateTime(at),
        modules: Object.fromEntries(states.map((state) => [state.name, { enabled: state.enabled, priority: state.priority }])),
      };
      for (const { section } of this.sections) Object.assign(document, await section.exportSection(db, at, this.database.storedDateTimes));
      return document;
    });
  }

  /**
   * Reads a document's text and applies it (or plans it, for a dry run).
   *
   * @throws InvalidPriceListError (400) listing every problem of the document; BadRequestError
   *   for an `effectiveAt` in the past or outside the stored years in CloudKitty's zone, or
   *   unversioned changes at a later `effectiveAt`;
   *   ConflictError (409) when the revision is not `ifRevision`.
   * @param journal - an apply that writes is recorded there as one `price_list` change (the
   *   revision before and after, and the diff's counts) and one change per rule, parent or
   *   module state it changed, all with the new revision; a dry run or a no-op records nothing.
   */
  async apply(text: string, format: DocumentFormat, options: ApplyOptions, audit: Audit, journal: ChangeJournal): Promise<PriceListDiff> {
    const effectiveAt = options.effectiveAt ?? audit.now;
    // Stored as the replaced rules' end and the new ones' start.
    this.database.storedDateTimes.checkStorable(effectiveAt, 'effective_at');
    if (effectiveAt.getTime() < audit.now.getTime()) {
      throw new BadRequestError(
        `effective_at is in the past: effective_at=[${formatMessageDateTime(effectiveAt)}] current time=[${formatMessageDateTime(audit.now)}]. A price list changes rules from now on.`,
      );
    }
    const { parsed, document, problems } = await this.readChecked(text, format);
    const context: PlanContext = {
      effectiveAt,
      now: audit.now,
      times: this.database.storedDateTimes,
      problem: (path, message) => problems.add(path, message),
    };
    if (options.dryRun) {
      return inReadSnapshot(this.database, async (db) => {
        const revision = await readRevision(db);
        this.checkRevision(revision, options.ifRevision);
        const plan = await this.plan(db, document, context, parsed, problems);
        this.checkUnversioned(plan, effectiveAt, audit.now, options.unversionedNow);
        return this.diff(revision, true, effectiveAt, plan.changes);
      });
    }
    try {
      return await inWriteTransaction(this.database, journal, async (transaction, serialize) => {
        await serialize();
        const revision = await readRevision(transaction);
        // The lock bumped the revision: the one the document was exported at is the one before.
        this.checkRevision(revision - 1, options.ifRevision);
        const plan = await this.plan(transaction, document, context, parsed, problems);
        this.checkUnversioned(plan, effectiveAt, audit.now, options.unversionedNow);
        if (plan.changes.length === 0) throw new NothingToApply(this.diff(revision - 1, false, effectiveAt, []));
        options.onWriting?.(countChanges(plan.changes));
        // Let what `onWriting` logged leave the process before the writes (SQLite's never yield).
        await nextTurn();
        for (const sectionPlan of plan.sections) await sectionPlan.write(transaction, audit);
        for (const [name, state] of plan.states.writes) await this.states.writeIn(transaction, name, state);
        const diff = this.diff(revision, false, effectiveAt, plan.changes);
        journal.record(
          {
            kind: 'price_list',
            objectId: String(revision),
            action: 'update',
            before: { revision: revision - 1 },
            after: { revision, effective_at: diff.effective_at, counts: diff.counts },
          },
          { revision, ruleChanges: ruleChanges(plan) },
        );
        return diff;
      });
    } catch (error) {
      // Nothing changes: rolled back, so the revision stays (an unchanged export applies as a no-op).
      if (error instanceof NothingToApply) return error.diff;
      throw error;
    }
  }

  /**
   * What `text` would make of the rules if applied at `effectiveAt`, without applying it (the
   * simulation, docs/price-list.md §4): the document is read and checked as an apply reads it,
   * then, in one write transaction that is always rolled back, `load` reads the rules as stored,
   * the draft's plan is written as an apply at `effectiveAt` would write it (the time may be past:
   * the plan is made as if it were then), and `load` reads them again. Both reads see one state of
   * the database; nothing is committed, the revision stays, and no lock is taken beyond the rows
   * the plan writes (SQLite: the database's write lock, for the transaction's length).
   *
   * @returns the configuration's revision, and what `load` read before and after the draft.
   * @throws InvalidPriceListError (400) listing every problem of the document; BadRequestError for
   *   an `effectiveAt` outside the stored years in CloudKitty's zone; the database's errors.
   */
  async draft<T>(
    text: string,
    format: DocumentFormat,
    effectiveAt: Date,
    load: (transaction: Transaction) => Promise<T>,
  ): Promise<{ revision: number; current: T; draft: T }> {
    this.database.storedDateTimes.checkStorable(effectiveAt, 'effective_at');
    const { parsed, document, problems } = await this.readChecked(text, format);
    const audit: Audit = { actor: 'simulation', now: effectiveAt };
    const context: PlanContext = {
      effectiveAt,
      now: effectiveAt,
      times: this.database.storedDateTimes,
      problem: (path, message) => problems.add(path, message),
    };
    try {
      await inWriteTransaction(
        this.database,
        new ChangeJournal({ userId: 'simulation', projectId: null, requestId: 'simulation', route: 'simulation' }),
        async (transaction) => {
          const revision = await readRevision(transaction);
          const current = await load(transaction);
          const plan = await this.plan(transaction, document, context, parsed, problems);
          for (const sectionPlan of plan.sections) await sectionPlan.write(transaction, audit);
          for (const [name, state] of plan.states.writes) await this.states.writeIn(transaction, name, state);
          throw new DraftRead({ revision, current, draft: await load(transaction) });
        },
      );
    } catch (error) {
      if (error instanceof DraftRead) return error.read as { revision: number; current: T; draft: T };
      throw error;
    }
    throw new Error('unreachable: a draft transaction always rolls back');
  }

  /**
   * A document's text read and checked, off the event loop (reading.ts): the text, every body's
   * rules, the schema, then each section's own checks.
   *
   * @throws InvalidPriceListError (400) listing every problem; BadRequestError for text no body may hold.
   */
  private async readChecked(text: string, format: DocumentFormat): Promise<{ parsed: ReadText; document: ReadDocument; problems: PriceListProblems }> {
    const checked = await this.reading.check({ text, format, limits: this.limits, schema: this.schema.schema });
    if (checked.kind === 'refused') throw new InvalidPriceListError(checked.problems, checked.omitted);
    if (checked.kind === 'fault') throw new BadRequestError(checked.message);
    const problems = new PriceListProblems(this.limits.maxProblems);
    problems.addRecorded(checked.problems);
    const parsed: ReadText = { value: checked.value, numberText: withNumberTexts(checked.value, checked.lossyNumberTexts), text };
    const document = await this.read(parsed, problems);
    await this.throwIfAny(problems, parsed);
    return { parsed, document, problems };
  }

  /** Throws the refusal listing every problem, when there is one, their positions found off the event loop. */
  private async throwIfAny(problems: PriceListProblems, parsed: ReadText): Promise<void> {
    if (!problems.any) return;
    problems.throwIfAny(await this.reading.locate(parsed.text, problems.unlocated));
  }

  /** Each section's own checks of the values the schema let through. */
  private async read(parsed: ReadText, problems: PriceListProblems): Promise<ReadDocument> {
    const checked = parsed.value;
    if (checked === undefined) return { sections: [], modules: {} };
    const members = checked as Record<string, unknown>;
    const modules = (members.modules ?? {}) as ReadDocument['modules'];
    for (const name of Object.keys(modules)) {
      if (!this.modules.get(name)) problems.add(['modules', name], `no such module: ${this.modules.all.map((module) => module.name).join(', ')} are served`);
    }
    const reader = {
      problem: (path: DocumentPath, message: string) => problems.add(path, message),
      numberText: (path: DocumentPath) => parsed.numberText(path),
      times: this.database.storedDateTimes,
    };
    const sections = [];
    for (const entry of this.sections) sections.push({ entry, section: await entry.section.readSection(members, reader) });
    return { sections, modules };
  }

  private async plan(db: Transaction, document: ReadDocument, context: PlanContext, parsed: ReadText, problems: PriceListProblems) {
    const sections: SectionPlan[] = [];
    for (const { entry, section } of document.sections) sections.push(await entry.section.planSection(db, section, context));
    const states: ModuleStatesPlan = planModuleStates(await this.states.listIn(db), document.modules);
    await this.throwIfAny(problems, parsed);
    const changes = [...states.changes, ...sections.flatMap((plan) => plan.changes)];
    const unversioned = [...states.unversioned, ...sections.flatMap((plan) => plan.unversioned)];
    return { sections, states, changes, unversioned };
  }

  private checkRevision(revision: number, expected: number | undefined): void {
    if (expected !== undefined && revision !== expected) {
      throw new ConflictError(`The configuration changed since revision ${expected}: it is at revision ${revision}. Export it again and review the diff.`);
    }
  }

  /** @throws BadRequestError when unversioned rules change before a later effective time, unless asked. */
  private checkUnversioned(plan: { unversioned: readonly string[] }, effectiveAt: Date, now: Date, unversionedNow: boolean): void {
    if (plan.unversioned.length === 0 || effectiveAt.getTime() <= now.getTime() || unversionedNow) return;
    const listed = plan.unversioned.slice(0, 10).join(', ') + (plan.unversioned.length > 10 ? `, … (${plan.unversioned.length} in all)` : '');
    throw new BadRequestError(
      `Thresholds and module states are not versioned: they would change now, not at effective_at=[${formatMessageDateTime(effectiveAt)}]. ` +
        `Changed: ${listed}. Apply them with unversioned_now=true, or separately.`,
    );
  }

  private diff(revision: number, dryRun: boolean, effectiveAt: Date, changes: PriceListChange[]): PriceListDiff {
    return { revision, dry_run: dryRun, effective_at: formatApiDateTime(effectiveAt), counts: countChanges(changes), changes };
  }
}
