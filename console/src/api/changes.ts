/**
 * Tariff's audit trail through its own API (`GET /v2/rating/changes`, docs/api.md §9): the
 * configuration's changes, newest first, each with who made it, what was done to which object,
 * and the object before and after. The shapes are the generated ones (answers.ts).
 */
import type { Answer } from './answers.js';
import { call } from './client.js';

/**
 * A change as `GET /v2/rating/changes` lists it: `at` ISO UTC with offset, `user_id` the acting
 * user (the Keystone user, the `X-User-Id`, or `anonymous`), `before` and `after` the object in
 * API form (a price-list rule change's in the document's terms, with `name` its place there),
 * `revision` the price-list apply's on its entry and its rule changes (null for other writes).
 */
export type AuditChange = Answer<'/v2/rating/changes', 'get'>['changes'][number];

/**
 * The `limit` most recent changes, newest first.
 *
 * @throws ApiError (403 without `rating:module_config`, 400 for a `limit` over
 *   `TARIFF_CHANGES_MAX_LIMIT`)
 */
export async function listChanges(limit: number): Promise<AuditChange[]> {
  const path = `/v2/rating/changes?limit=${limit}`;
  return (await call<Answer<'/v2/rating/changes', 'get'>>('GET', path)).changes;
}
