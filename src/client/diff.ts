/**
 * The diff the server answers to a price-list POST (docs/price-list.md §2), checked for the
 * members the client reads.
 */
import { ClientError } from './errors.js';

/** What a change does (docs/price-list.md §2). */
export type ChangeAction = 'added' | 'replaced' | 'ended' | 'deleted' | 'updated' | 'created';

/** Every action, in the order plans count them. */
export const CHANGE_ACTIONS: readonly ChangeAction[] = ['added', 'replaced', 'ended', 'deleted', 'updated', 'created'];

/** Attribute values of a rule, as the API names them (api.md §3). */
export type Attributes = Record<string, unknown>;

/** One change of a diff. */
export interface PriceListChange {
  action: ChangeAction;
  resource: string;
  path: string;
  before?: Attributes;
  after?: Attributes;
}

/** A diff: a dry run's plan or an apply's result. */
export interface PriceListDiff {
  /** After the apply; the current one for a dry run. */
  revision: number;
  dry_run: boolean;
  effective_at: string;
  counts: Record<ChangeAction, number>;
  changes: PriceListChange[];
}

/**
 * Parses and checks a diff answer.
 *
 * @throws ClientError when the answer is not a diff (not a Tariff server, or another version).
 */
export function parseDiff(text: string): PriceListDiff {
  let body: Partial<PriceListDiff>;
  try {
    body = JSON.parse(text) as Partial<PriceListDiff>;
  } catch {
    throw new ClientError(`The server's answer is not JSON: ${text.slice(0, 200)}`);
  }
  const wellFormed =
    typeof body === 'object' &&
    body !== null &&
    typeof body.revision === 'number' &&
    typeof body.effective_at === 'string' &&
    Array.isArray(body.changes) &&
    typeof body.counts === 'object' &&
    body.counts !== null;
  if (!wellFormed) throw new ClientError(`The server's answer is not a price-list diff: ${text.slice(0, 200)}`);
  const counts = Object.fromEntries(CHANGE_ACTIONS.map((action) => [action, Number(body.counts![action] ?? 0)])) as Record<ChangeAction, number>;
  return { ...(body as PriceListDiff), counts };
}

/** The number of changes of a diff. */
export function changeCount(diff: PriceListDiff): number {
  return CHANGE_ACTIONS.reduce((sum, action) => sum + diff.counts[action], 0);
}
