/**
 * The audit trail of configuration writes (issue 15, api.md §9): every acknowledged write leaves
 * one row in `tariff_changes`, inserted by the write's own transaction, and one log line once it
 * committed. A write names its change ({@link ChangeJournal.record}); `inWriteTransaction`
 * inserts it under the configuration lock, just before the commit (one statement, no read), and
 * calls {@link ChangeJournal.committed} after it. A write that throws or rolls back leaves
 * neither; a retried attempt starts with nothing recorded.
 */
import type { Kysely } from 'kysely';
import type { TariffTables } from './tables.js';
import { UTC_STORED_DATETIMES } from './stored-datetimes.js';
import { ReusableStatement } from './reusable-query.js';

/** Tariff's own table of configuration changes. */
export const CHANGES_TABLE = 'tariff_changes';

/** The columns a change fills. */
type ChangeColumn = 'at' | 'user_id' | 'project_id' | 'request_id' | 'route' | 'kind' | 'object_id' | 'action' | 'before' | 'after';

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
  }),
);

/**
 * Who made a change, and through what: the acting user as recorded in `created_by` (the
 * Keystone user, else `X-User-Id`, else `unknown`), the Keystone project (null in noauth mode),
 * the OpenStack request id and the route (method and route template,
 * `PUT /v1/rating/module_config/hashmap/mappings/:mapping_id`). Never a token or a password.
 */
export interface ChangeAuthor {
  userId: string;
  projectId: string | null;
  requestId: string;
  route: string;
}

/** What a write does to its object. */
export type ChangeAction = 'create' | 'update' | 'delete';

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

/** A change as it was written: its author, and when. */
export interface WrittenChange extends ChangeAuthor, ConfigurationChange {
  at: Date;
}

/** Called once per committed write with what was written (the request's log line). */
export type ChangeListener = (change: WrittenChange) => void;

/**
 * The change one configuration write records (one journal per request). Its write calls
 * {@link record} once, inside its transaction; `inWriteTransaction` does the rest.
 */
export class ChangeJournal {
  private pending: ConfigurationChange | undefined;
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
   * @throws Error when the same attempt records a second change (one write, one entry).
   */
  record(change: ConfigurationChange): void {
    if (this.pending !== undefined)
      throw new Error(`a configuration write records one change; ${this.pending.kind} ${this.pending.objectId} is recorded already`);
    this.pending = change;
  }

  /** For `inWriteTransaction`: a new attempt starts, with nothing recorded. */
  startAttempt(): void {
    this.pending = undefined;
    this.written = undefined;
  }

  /**
   * For `inWriteTransaction`, under the configuration lock, just before the commit: inserts the
   * recorded change (one statement). Nothing recorded: nothing written.
   */
  async writeIn(transaction: Kysely<TariffTables>): Promise<void> {
    const change = this.pending;
    if (change === undefined) return;
    const at = new Date();
    const { author } = this;
    await insertChange.execute(transaction, {
      at: UTC_STORED_DATETIMES.toStorage(at),
      user_id: author.userId,
      project_id: author.projectId,
      request_id: author.requestId,
      route: author.route,
      kind: change.kind,
      object_id: change.objectId,
      action: change.action,
      before: change.before === null ? null : JSON.stringify(change.before),
      after: change.after === null ? null : JSON.stringify(change.after),
    });
    this.written = { ...author, ...change, at };
  }

  /** For `inWriteTransaction`, after the commit: tells the listener (once). */
  committed(): void {
    const written = this.written;
    this.pending = undefined;
    this.written = undefined;
    if (written !== undefined) this.onCommitted(written);
  }
}
