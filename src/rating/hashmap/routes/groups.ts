/** Routes of hashmap groups and the rules of a group (api.md §4). Thin: parse → call → status. */
import { Type } from 'typebox';
import { NoContent, faultResponses } from '../../../http/fault-schema.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actingUser, requestTime, requiredArgument, resourceId, setLocation } from '../../../http/request.js';
import { changeJournal } from '../../../http/change-journal.js';
import { isUuid } from '../../../kernel/ids.js';
import { BooleanText, QueryString, queryBoolean } from '../../common/schemas.js';
import { noSuchGroup } from '../errors.js';
import { Group, GroupCollection, GroupCreateBody, MappingCollection, ThresholdCollection } from '../schemas.js';
import type { HashmapRouteOptions } from './context.js';

const IdQuery = (name: string) => QueryString({ [name]: Type.Optional(Type.String()) });
/** Collections without arguments still refuse unknown query parameters (api.md §1). */
const NoQuery = QueryString({});

/** Groups and the group sub-collections (mappings, thresholds). */
/**
 * The rules of the group named by `id`; none when `id` is not a UUID, which no group has
 * (CloudKitty compat: an empty list, not a 404), without asking the database (a path may hold any
 * text, NUL included, which PostgreSQL refuses in a parameter).
 */
async function ofGroup<Rule>(id: string, list: (groupId: string) => Promise<Rule[]>): Promise<Rule[]> {
  return isUuid(id) ? list(id.toLowerCase()) : [];
}

export const groupRoutes: FastifyPluginAsyncTypebox<HashmapRouteOptions> = async (app, { repositories, hidden }) => {
  const { groups, mappings, thresholds } = repositories;
  const tags = ['hashmap'];

  app.get(
    '/groups',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'List groups',
        querystring: NoQuery,
        response: {
          200: GroupCollection,
          ...faultResponses(400, 401, 403, 503),
        },
      },
    },
    async () => ({
      groups: await groups.listGroups(),
    }),
  );
  app.get(
    '/groups/:group_id',
    {
      schema: {
        hide: hidden,
        tags,
        summary: 'Get a group',
        querystring: IdQuery('group_id'),
        response: {
          200: Group,
          ...faultResponses(400, 401, 403, 404, 503),
        },
      },
    },
    (request) => groups.getGroup(resourceId(request, 'group_id', noSuchGroup)),
  );
  app.post(
    '/groups',
    {
      config: { bodyName: 'group_data' },
      schema: {
        hide: hidden,
        tags,
        summary: 'Create a group',
        querystring: NoQuery,
        body: GroupCreateBody,
        response: {
          201: Group,
          ...faultResponses(400, 401, 403, 409, 413, 415, 503),
        },
      },
    },
    async (request, reply) => {
      const group = await groups.createGroup(request.body.name, changeJournal(request));
      setLocation(request, reply, group.group_id);
      return reply.code(201).send(group);
    },
  );
  for (const url of ['/groups', '/groups/:group_id']) {
    app.delete(
      url,
      {
        schema: {
          hide: hidden,
          tags,
          summary: 'Delete a group; recursive also deletes its rules, else they are detached',
          response: {
            204: NoContent,
            ...faultResponses(400, 401, 403, 404, 413, 415, 503),
          },
          querystring: QueryString({ group_id: Type.Optional(Type.String()), recursive: Type.Optional(BooleanText) }),
          body: Type.Object({ group_id: Type.Optional(Type.String()), recursive: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        },
      },
      async (request, reply) => {
        const recursive = request.body?.recursive ?? queryBoolean(request.query.recursive) ?? false;
        const now = requestTime();
        await groups.deleteGroup(resourceId(request, 'group_id', noSuchGroup), { recursive, actor: actingUser(request), now }, changeJournal(request));
        return reply.code(204).send();
      },
    );
  }
  for (const url of ['/groups/mappings', '/groups/:group_id/mappings']) {
    app.get(
      url,
      {
        schema: {
          hide: hidden,
          tags,
          summary: 'List the mappings of a group',
          querystring: IdQuery('group_id'),
          response: {
            200: MappingCollection,
            ...faultResponses(400, 401, 403, 404, 503),
          },
        },
      },
      async (request) => ({
        mappings: await ofGroup(requiredArgument(request, 'group_id'), (id) => mappings.listOfGroup(id)),
      }),
    );
  }
  for (const url of ['/groups/thresholds', '/groups/:group_id/thresholds']) {
    app.get(
      url,
      {
        schema: {
          hide: hidden,
          tags,
          summary: 'List the thresholds of a group',
          querystring: IdQuery('group_id'),
          response: {
            200: ThresholdCollection,
            ...faultResponses(400, 401, 403, 404, 503),
          },
        },
      },
      async (request) => ({
        thresholds: await ofGroup(requiredArgument(request, 'group_id'), (id) => thresholds.listOfGroup(id)),
      }),
    );
  }
};
