/**
 * The audit trail's side of a request (issue 15): the journal a configuration write records its
 * change in, with the request's author, and the one log line it leaves once committed.
 */
import type { FastifyRequest } from 'fastify';
import { ChangeJournal, type WrittenChange } from '../database/change-journal.js';
import { auditedUser } from './request.js';

/** The message of the log line of a committed configuration change. */
export const CHANGE_LOG_MESSAGE = 'configuration change';

/**
 * The fields of a change's log line: what `GET /v2/rating/changes` lists, but the id (given by
 * the database) and with `at` in ISO 8601 to the millisecond; a price-list apply's line counts
 * its rule changes (`rule_changes`) rather than listing them. Nothing else of the request (no
 * header, no token, no body): secrets cannot reach it.
 */
export function changeLogFields(change: WrittenChange): Record<string, unknown> {
  return {
    at: change.at.toISOString(),
    user_id: change.userId,
    project_id: change.projectId,
    request_id: change.requestId,
    route: change.route,
    kind: change.kind,
    object_id: change.objectId,
    action: change.action,
    before: change.before,
    after: change.after,
    revision: change.revision,
    ...(change.ruleChanges > 0 ? { rule_changes: change.ruleChanges } : {}),
  };
}

/**
 * A journal for the configuration write `request` makes: its author is the acting user
 * (`auditedUser`: as `created_by` records it, but `anonymous` where that says `unknown`), the Keystone project (null in noauth mode), the
 * request id and the route (`POST /v1/rating/module_config/hashmap/mappings`); once the write
 * committed, one line at info level on the request's logger, `{"change": {...}}`.
 *
 * @throws BadRequestError for an acting user the audit columns cannot hold (see `actingUser`).
 */
export function changeJournal(request: FastifyRequest): ChangeJournal {
  const author = {
    userId: auditedUser(request),
    projectId: request.identity?.projectId ?? null,
    requestId: request.id,
    route: `${request.method} ${request.routeOptions.url ?? request.url}`,
  };
  return new ChangeJournal(author, (change) => request.log.info({ change: changeLogFields(change) }, CHANGE_LOG_MESSAGE));
}
