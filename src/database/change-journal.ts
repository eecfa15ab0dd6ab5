/**
 * The audit trail of configuration writes (issue 15, api.md §9): every acknowledged write leaves
 * one row in `tariff_changes`, inserted by the write's own transaction, and one log line once it
 * committed. A write names its change ({@link ChangeJournal.record}); `inWriteTransaction`
 * inserts it under the configuration lock, just before the commit (one statement, no read), and
 * calls {@link ChangeJournal.committed} after it. A write that throws or rolls back leaves
 * neither; a retried attempt starts with nothing recorded.
 *
 * A price-list apply records its own entry and, beside it, one row per rule it created, ended,
 * deleted or changed (issue 26: {@link ApplyDetails}), inserted by the same transaction just
 * before the apply's entry, a few hundred rows per statement; the log line stays one per apply.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { TariffTables } from './tables.js';
import { UTC_STORED_DATETIMES } from './stored-datetimes.js';
import { ReusableStatement } from './reusable-query.js';

/** Tariff's own table of configuration changes. */
export const CHANGES_TABLE = 'tariff_changes';

/** The columns a change fills. */
type ChangeColumn = 'at' | 'user_id' | 'project_id' | 'request_id' | 'route' | 'kind' | 'object_id' | 'action' | 'before' | 'after' | 'revision' | 'name';

/** Rule changes per insert statement: 12 columns, far below every dialect's bound-parameter limit. */
const RULE_CHANGE_ROWS = 500;

/** The insert of a change, compiled once per database: one statement per write, no read. */
const insertChange = new ReusableStatement<TariffTables, unknown, ChangeColumn>((db, value) =>
  db.insertInto(CHANGES_TABLE).values({
    at: value.at,
    user_id: value.user_id,
    project_id: value.project_id,
    request_id: value.request_id,
    route: value.route,
    kind: value.kind,
    object_id: value.object_id,
    action: value.action,
    before: value.before,
    after: value.after,
    // A stand-in string while compiling (reusable-query.ts); the revision's number when run.
    revision: value.revision as unknown as number,
    name: value.name,
  }),
);

/**
 * Who made a change, and through what: the acting user (the Keystone user, else `X-User-Id`,
 * else `anonymous`: http/change-journal.ts), the Keystone project (null in noauth mode),
 * the OpenStack request id and the route (method and route template,
 * `PUT /v1/rating/module_config/hashmap/mappings/:mapping_id`). Never a token or a password.
 */
export interface ChangeAuthor {
  userId: string;
  projectId: string | null;
  requestId: string;
  route: string;
}

/**
 * What a write does to its object. A price-list apply's rule changes also `replace` (a new
 * version of the rule, with its own id, takes over from the effective time) and `end` (the rule
 * ends at the effective time).
 */
export type ChangeAction = 'create' | 'update' | 'delete' | 'replace' | 'end';

/**
 * What a write changed: the object's kind (`service`, `mapping`, `module`, `price_list`...) and
 * id, and its attributes before (updates and deletes) and after
 * (creates and updates), in API form; null where not known.
 */
export interface ConfigurationChange {
  kind: string;
  objectId: string;
  action: ChangeAction;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** One rule a price-list apply created, ended, deleted or changed, and where it is in the document. */
export interface RuleChange extends ConfigurationChange {
  /** The rule's place in the document, as the apply's diff names it (`services[compute].fields[flavor].mappings[value=m1.large]`). */
  name: string;
}

/** What a price-list apply records beside its own entry (issue 26). */
export interface ApplyDetails {
  /** The configuration revision the apply made: on its entry and on each rule change. */
  revision: number;
  /**
   * Every rule change of the apply, read once, in order, while they are inserted (a generator
   * keeps a 280,000-rule apply from holding them all as rows at once).
   */
  ruleChanges: Iterable<RuleChange>;
}

/** A change as it was written: its author, and when; `revision` is the apply's, null for other writes. */
export interface WrittenChange extends ChangeAuthor, ConfigurationChange {
  at: Date;
  revision: number | null;
  /** Rule changes written beside it (a price-list apply's); 0 for other writes. */
  ruleChanges: number;
}

/** Called once per committed write with what was written (the request's log line). */
export type ChangeListener = (change: WrittenChange) => void;

/**
 * The change one configuration write records (one journal per request). Its write calls
 * {@link record} once, inside its transaction; `inWriteTransaction` does the rest.
 */
export class ChangeJournal {
  private pending: ConfigurationChange | undefined;
  private pendingDetails: ApplyDetails | undefined;
  private written: WrittenChange | undefined;

  /**
   * @param author - who writes, and through which request.
   * @param onCommitted - told of the change after its transaction committed (the log line).
   */
  constructor(
    readonly author: ChangeAuthor,
    private readonly onCommitted: ChangeListener = () => {},
  ) {}

  /**
   * Names the change the running write makes; inserted just before its commit. A write records
   * nothing when it changes nothing (a no-op price list).
   *
   * @param details - a price-list apply's revision and rule changes, inserted before its entry.
   * @throws Error when the same attempt records a second change (one write, one entry).
   */
  record(change: ConfigurationChange, details?: ApplyDetails): void {
    if (this.pending !== undefined)
      throw new Error(`a configuration write records one change; ${this.pending.kind} ${this.pending.objectId} is recorded already`);
    this.pending = change;
    this.pendingDetails = details;
  }

  /** For `inWriteTransaction`: a new attempt starts, with nothing recorded. */
  startAttempt(): void {
    this.pending = undefined;
    this.pendingDetails = undefined;
    this.written = undefined;
  }

  /**
   * For `inWriteTransaction`, under the configuration lock, just before the commit: inserts the
   * recorded change (one statement), after an apply's rule changes (a few hundred rows per
   * statement, so the apply's entry is the newest). Nothing recorded: nothing written.
   */
  async writeIn(transaction: Kysely<TariffTables>): Promise<void> {
    const change = this.pending;
    if (change === undefined) return;
    const at = new Date();
    const stored = UTC_STORED_DATETIMES.toStorage(at);
    const details = this.pendingDetails;
    const revision = details?.revision ?? null;
    const ruleChanges = details === undefined ? 0 : await this.writeRuleChanges(transaction, stored, details);
    await insertChange.execute(transaction, { ...this.row(stored, change, revision), name: null });
    this.written = { ...this.author, ...change, at, revision, ruleChanges };
  }

  /** Inserts an apply's rule changes in statements of {@link RULE_CHANGE_ROWS}; returns how many. */
  private async writeRuleChanges(transaction: Kysely<TariffTables>, at: string, details: ApplyDetails): Promise<number> {
    let count = 0;
    let rows: (ReturnType<ChangeJournal['row']> & { name: string })[] = [];
    const flush = async () => {
      if (rows.length === 0) return;
      await transaction.insertInto(CHANGES_TABLE).values(rows).execute();
      rows = [];
      // SQLite's driver is synchronous: let the process answer between statements.
      await nextTurn();
    };
    for (const change of details.ruleChanges) {
      rows.push({ ...this.row(at, change, details.revision), name: change.name });
      count += 1;
      if (rows.length === RULE_CHANGE_ROWS) await flush();
    }
    await flush();
    return count;
  }

  /** A change's row but its name. */
  private row(at: string, change: ConfigurationChange, revision: number | null) {
    const { author } = this;
    return {
      at,
      user_id: author.userId,
      project_id: author.projectId,
      request_id: author.requestId,
      route: author.route,
      kind: change.kind,
      object_id: change.objectId,
      action: change.action,
      before: change.before === null ? null : JSON.stringify(change.before),
      after: change.after === null ? null : JSON.stringify(change.after),
      revision,
    };
  }

  /** For `inWriteTransaction`, after the commit: tells the listener (once). */
  committed(): void {
    const written = this.written;
    this.pending = undefined;
    this.pendingDetails = undefined;
    this.written = undefined;
    if (written !== undefined) this.onCommitted(written);
  }
}
