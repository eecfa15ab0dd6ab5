/** SQL for module states (`modules_state`, CloudKitty's table), for whichever modules are registered. */
import type { Database } from '../../database/connection.js';
import { inWriteTransaction, type Transaction } from '../../database/transaction.js';
import type { ChangeJournal } from '../../database/change-journal.js';
import type { ModuleSet } from '../contract/module-set.js';
import type { ModuleState } from './states.js';

function enabled(state: boolean | number | string): boolean {
  return state === true || state === 1 || state === '1' || state === 't';
}

/** The states of the registered modules. */
export class ModuleStateRepository {
  constructor(
    private readonly database: Database,
    private readonly modules: ModuleSet,
  ) {}

  /**
   * Every registered module with its state (defaults for modules without a row), by name. Rows
   * of modules not registered here are left alone.
   */
  list(): Promise<ModuleState[]> {
    return this.listIn(this.database.db);
  }

  /** {@link list}, read through `db` (the database or an open transaction). */
  async listIn(db: Transaction): Promise<ModuleState[]> {
    const rows = await db.selectFrom('modules_state').select(['name', 'state', 'priority']).execute();
    const byName = new Map(rows.map((row) => [row.name, row]));
    return this.modules.all.map(({ name, description, hotConfig }) => {
      const row = byName.get(name);
      return { name, description, hotConfig, enabled: row ? enabled(row.state) : false, priority: row?.priority ?? 1 };
    });
  }

  /** One module's state, or undefined for a module not registered. */
  async get(name: string): Promise<ModuleState | undefined> {
    if (!this.modules.get(name)) return undefined;
    return (await this.list()).find((state) => state.name === name);
  }

  /**
   * Changes a registered module's `enabled` and/or `priority` (an upsert of its row), in one
   * configuration write transaction (other processes see the change within a second), recorded
   * in `journal` with the state before (read under the configuration lock) and after.
   *
   * @throws Error for a module not registered (the routes answer 404 before asking).
   */
  async update(name: string, change: { enabled?: boolean; priority?: number }, journal: ChangeJournal): Promise<ModuleState> {
    return inWriteTransaction(this.database, journal, async (transaction, serialize) => {
      await serialize();
      const current = (await this.listIn(transaction)).find((state) => state.name === name);
      if (!current) throw new Error(`unknown module ${name}`);
      const next = { enabled: change.enabled ?? current.enabled, priority: change.priority ?? current.priority };
      await this.writeIn(transaction, name, next);
      journal.record({
        kind: 'module',
        objectId: name,
        action: 'update',
        before: { enabled: current.enabled, priority: current.priority },
        after: next,
      });
      return { ...current, ...next };
    });
  }

  /** Writes a module's state (an upsert of its row) in an open configuration write transaction. */
  async writeIn(transaction: Transaction, name: string, state: { enabled: boolean; priority: number }): Promise<void> {
    // The dialect's boolean binding (SQLite: 0/1, its driver binds no JS booleans).
    const stored = this.database.traits.bindBoolean(state.enabled) as boolean;
    const existing = await transaction.selectFrom('modules_state').select('name').where('name', '=', name).executeTakeFirst();
    if (existing) await transaction.updateTable('modules_state').set({ state: stored, priority: state.priority }).where('name', '=', name).execute();
    else await transaction.insertInto('modules_state').values({ name, state: stored, priority: state.priority }).execute();
  }
}
