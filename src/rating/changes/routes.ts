/**
 * `GET /v2/rating/changes` (api.md §9): the audit trail of configuration writes, newest first,
 * paginated as CloudKitty's v2 lists are (`offset`, `limit`, and the `total` matching).
 * `rating:module_config` guards it in Keystone mode (auth/route-policy.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { faultResponses } from '../../http/fault-schema.js';
import { invalidInput } from '../../kernel/errors.js';
import { parseDateTime } from '../common/datetime.js';
import type { ChangeQuery, ChangeRepository } from './repository.js';
import { ChangeCollection, ChangeListQuery } from './schemas.js';

/** CloudKitty compat: the page size of its v2 lists when `limit` is not given. */
export const DEFAULT_CHANGES_LIMIT = 100;
/** The largest `offset` (2^31 - 1): beyond it no database has a row to skip to. */
const MAX_OFFSET = 2_147_483_647;
/** The largest `revision` asked for: 10 digits, as `offset` (a revision grows by one per write). */
const MAX_REVISION = 9_999_999_999;
/** The width of `tariff_changes.object_id`: a longer id names no change. */
const OBJECT_ID_WIDTH = 255;

/**
 * The `object_id` filter: any text up to the column's width (ids, module names, revisions).
 *
 * @throws BadRequestError naming `object_id` when it is empty or longer.
 */
function objectIdFilter(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (text.length === 0 || [...text].length > OBJECT_ID_WIDTH) {
    throw invalidInput('object_id', text, `Value must be an object's id of 1 to ${OBJECT_ID_WIDTH} characters.`);
  }
  return text;
}

/** The kinds of change Tariff itself records, beside the modules' (`RatingModule.changeKinds`). */
export const CORE_CHANGE_KINDS = ['module', 'price_list'] as const;

/** What the changes route is given. */
export interface ChangeRouteOptions {
  changes: ChangeRepository;
  /** Every kind `kind=` accepts: {@link CORE_CHANGE_KINDS} and the registered modules'. */
  kinds: readonly string[];
  /** The largest `limit` (`TARIFF_CHANGES_MAX_LIMIT`). */
  maxLimit: number;
  hidden: boolean;
}

/**
 * A whole number from query text within [minimum, maximum].
 *
 * @throws BadRequestError naming `attribute` otherwise.
 */
function wholeNumber(text: string | undefined, attribute: string, fallback: number, minimum: number, maximum: number, hint: string): number {
  if (text === undefined) return fallback;
  const value = /^[0-9]{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= minimum && value <= maximum)) throw invalidInput(attribute, text, `Value must be a whole number from ${minimum} to ${maximum}${hint}.`);
  return value;
}

/**
 * The query's filters and page.
 *
 * @throws BadRequestError naming `since`, `kind`, `object_id`, `revision`, `offset` or `limit`
 *   when one is not valid.
 */
export function changeQuery(
  query: { since?: string; kind?: string; object_id?: string; revision?: string; offset?: string; limit?: string },
  kinds: readonly string[],
  maxLimit: number,
): ChangeQuery {
  if (query.kind !== undefined && !kinds.includes(query.kind)) {
    throw invalidInput('kind', query.kind, `Value should be one of: ${kinds.join(', ')}.`);
  }
  return {
    since: query.since === undefined ? undefined : parseDateTime(query.since, 'since'),
    kind: query.kind,
    objectId: objectIdFilter(query.object_id),
    revision: query.revision === undefined ? undefined : wholeNumber(query.revision, 'revision', 0, 0, MAX_REVISION, ''),
    offset: wholeNumber(query.offset, 'offset', 0, 0, MAX_OFFSET, ''),
    limit: wholeNumber(query.limit, 'limit', Math.min(DEFAULT_CHANGES_LIMIT, maxLimit), 1, maxLimit, ' (TARIFF_CHANGES_MAX_LIMIT)'),
  };
}

/** `GET /changes`, under `/v2/rating`. */
export const changeRoutes: FastifyPluginAsyncTypebox<ChangeRouteOptions> = async (app, { changes, kinds, maxLimit, hidden }) => {
  app.get(
    '/changes',
    {
      schema: {
        hide: hidden,
        tags: ['changes'],
        summary: 'The audit trail: configuration changes, newest first (since, kind, object_id, revision; offset, limit)',
        querystring: ChangeListQuery,
        response: { 200: ChangeCollection, ...faultResponses(400, 401, 403, 503) },
      },
    },
    (request) => changes.list(changeQuery(request.query, kinds, maxLimit)),
  );
};
